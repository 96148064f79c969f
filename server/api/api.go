package api

import (
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/openapi"
	"github.com/pact-registry/pact/server/registry"
)

// openAPIGzip is the document compressed, once, for the clients that take
// gzip (httpx's gzip.go).
var openAPIGzip = sync.OnceValue(func() []byte { return httpx.Gzip(nil, openapi.JSON) })

var openAPIContentType = []string{"application/json"}

func serveOpenAPI(c *gin.Context) {
	var gz []byte
	if httpx.AcceptsGzip(c.Request) {
		gz = openAPIGzip()
	}
	httpx.WriteEncoded(c, http.StatusOK, openAPIContentType, openapi.JSON, gz, true)
}

func (s *Server) routeAPI(e *gin.Engine) {
	e.Use(s.gate) // first: every route below passes the authority table
	e.NoRoute(func(c *gin.Context) {
		s.shared.Fail(c, registry.Errorf(registry.NotFound, "no such route: %s %s", c.Request.Method, c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		s.shared.Fail(c, httpx.Errorf(httpx.MethodNotAllowed, "method %s is not allowed on %s", c.Request.Method, c.Request.URL.Path))
	})

	// The API's one route table: every path is pkg/routes', which the
	// client fills in, and what each needs is its row in registry.Routes,
	// which gate applies (docs/protocol.md, Who may do what). A GET
	// answers HEAD too.
	table := []struct {
		method, path string
		handlers     []gin.HandlerFunc
	}{
		{"GET", routes.OpenAPI, h(serveOpenAPI)},
		{"GET", routes.Healthz, h(func(c *gin.Context) { httpx.JSON(c, http.StatusOK, wire.OK{OK: true}) })},
		{"GET", routes.Readyz, h(s.ready)},
		{"GET", routes.Raw, h(s.raw)},
		{"GET", routes.LogCheckpoint, h(s.logCheckpoint)},
		{"GET", routes.LogKey, h(s.logKey)},
		{"GET", routes.LogPolicy, h(s.logPolicy)},
		{"GET", routes.LogTile, h(s.logTile)},
		{"GET", routes.LogProof, h(s.logProof)},

		{"GET", routes.Packages, h(newFirstPageCache(s.svc).serve, s.listPackages)},
		{"GET", routes.Package, h(s.packageDetail)},
		{"GET", routes.PackageDownloads, h(s.packageDownloads)},
		{"PATCH", routes.Package, h(s.updatePackage)},
		{"POST", routes.Yank, h(s.yankVersion)},
		{"POST", routes.Unyank, h(s.unyankVersion)},
		{"POST", routes.Deprecate, h(s.deprecatePackage)},
		{"POST", routes.Publish, h(s.publish)},
		{"POST", routes.PublishSigned, h(s.publishSigned)},
		{"POST", routes.DeviceLogin, h(s.startDeviceLogin)},
		{"POST", routes.DeviceLoginToken, h(s.pollDeviceLogin)},
		{"GET", routes.Me, h(s.me)},
		{"GET", routes.SSHKeys, h(s.listKeys)},
		{"POST", routes.SSHKeys, h(s.addKey)},
		{"DELETE", routes.SSHKey, h(s.deleteKey)},
		{"GET", routes.Tokens, h(s.listTokens)},
		{"POST", routes.Tokens, h(s.createToken)},
		{"DELETE", routes.Token, h(s.revokeToken)},
		{"POST", routes.OIDCExchange, h(s.exchangeIDToken)},
		{"GET", routes.TrustedPublishers, h(s.listTrustedPublishers)},
		{"POST", routes.TrustedPublishers, h(s.addTrustedPublisher)},
		{"DELETE", routes.TrustedPublisher, h(s.deleteTrustedPublisher)},
		{"POST", routes.Releases, h(s.registerRelease)},
		{"GET", routes.ContractReleases, h(s.listReleases)},
		{"GET", routes.ContractRelease, h(s.getRelease)},
		{"GET", routes.Orgs, h(s.myOrgs)},
		{"POST", routes.Orgs, h(s.createOrg)},
		{"GET", routes.Org, h(s.showOrg)},
		{"GET", routes.OrgMembers, h(s.listMembers)},
		{"PUT", routes.OrgMember, h(s.setMember)},
		{"DELETE", routes.OrgMember, h(s.removeMember)},
		{"GET", routes.Hooks, h(s.listHooks)},
		{"POST", routes.Hooks, h(s.createHook)},
		{"DELETE", routes.Hook, h(s.deleteHook)},
		{"GET", routes.HookDeliveries, h(s.listHookDeliveries)},
		{"POST", routes.HookRedeliver, h(s.redeliverHook)},
	}
	if !s.cfg.SeparateMetrics {
		table = append(table, struct {
			method, path string
			handlers     []gin.HandlerFunc
		}{"GET", routes.Metrics, h(s.serveMetrics)})
	}
	for _, r := range table {
		if r.method == http.MethodGet {
			httpx.GetAndHead(e, r.path, r.handlers...)
		} else {
			e.Handle(r.method, r.path, r.handlers...)
		}
	}
}

// h lists a route's handlers.
func h(handlers ...gin.HandlerFunc) []gin.HandlerFunc { return handlers }

func (s *Server) serveMetrics(c *gin.Context) {
	s.shared.Metrics.Handler().ServeHTTP(c.Writer, c.Request)
}

func (s *Server) ready(c *gin.Context) {
	if err := s.svc.Ping(c); err != nil {
		// The answer says only this; the log has why (the store's outage
		// line when the database cannot be reached).
		s.shared.Fail(c, errors.Join(registry.Errorf(registry.Unavailable, "database is not answering"), err))
		return
	}
	// The witnesses are a detail: a replica whose witnesses fail still
	// serves and publishes (docs/operations.md, Witnesses).
	report, err := s.svc.WitnessReport(c)
	if err != nil {
		s.shared.Fail(c, errors.Join(registry.Errorf(registry.Unavailable, "database is not answering"), err))
		return
	}
	httpx.JSON(c, http.StatusOK, wire.Ready{OK: true, LogWitnesses: presentWitnesses(report)})
}

func (s *Server) listPackages(c *gin.Context) {
	q := registry.ListQuery{
		Cursor: c.Query("cursor"), Query: c.Query("q"), Owner: c.Query("owner"), Scheme: c.Query("scheme"),
	}
	if l, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > registry.MaxListLimit {
			s.shared.Fail(c, registry.Errorf(registry.Invalid, "limit must be a whole number between 1 and %d", registry.MaxListLimit))
			return
		}
		q.Limit = n
	}
	pkgs, next, err := s.svc.ListPackages(c, q)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	suggestions, err := s.svc.Suggestions(c, q, pkgs)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSONBytes(c, http.StatusOK, func(b []byte) []byte { return s.appendPackageList(b, pkgs, next, q, suggestions) })
}

func (s *Server) packageDetail(c *gin.Context) {
	p, versions, err := s.svc.PackageDetail(c, c.Param("owner"), c.Param("pack"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.Version, len(versions))
	for i := range versions {
		out[i] = s.presentVersion(p, &versions[i])
	}
	httpx.JSON(c, http.StatusOK, wire.PackageDetail{OK: true, Package: s.presentPackage(p), Versions: out, LogHead: p.LogHead})
}

// packageDownloads answers a package's download counts as flushed so far
// (docs/protocol.md, Download counts).
func (s *Server) packageDownloads(c *gin.Context) {
	_, d, err := s.svc.PackageDownloads(c, c.Param("owner"), c.Param("pack"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, presentDownloads(d))
}

func (s *Server) publish(c *gin.Context) {
	req, err := s.decodePublish(c)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	release, err := s.publishing.acquire(c)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	defer release()
	req.Token = apiToken(c)
	p, created, err := s.svc.Publish(c, account(c), req)
	s.shared.Metrics.RecordPublish("token", created, err)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.PublishResult{OK: true, Package: s.presentPackage(p), Created: created, Warnings: presentWarnings(p), LogIndex: p.LogIndex,
		Published: presentPublished(p)})
}

func (s *Server) publishSigned(c *gin.Context) {
	req, err := s.decodeSignedPublish(c)
	if err != nil {
		s.shared.Metrics.RecordPublish("ssh-signature", false, err)
		s.shared.Fail(c, err)
		return
	}
	p, created, err := s.verifyAndPublish(c, req)
	s.shared.Metrics.RecordPublish("ssh-signature", created, err)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.SignedPublishResult{OK: true, Package: s.presentPackage(p), Auth: wire.AuthSSHSignature, Created: created, Warnings: presentWarnings(p), LogIndex: p.LogIndex,
		Published: presentPublished(p)})
}

// verifyAndPublish checks the signature, then the key's rate limit (only
// now, so nobody can exhaust another person's key with forged requests),
// then publishes and spends the nonce.
func (s *Server) verifyAndPublish(c *gin.Context, req registry.SignedPublishRequest) (*registry.Package, bool, error) {
	release, err := s.publishing.acquire(c)
	if err != nil {
		return nil, false, err
	}
	defer release()
	verified, err := s.svc.VerifySigned(c, req)
	if err != nil {
		return nil, false, err
	}
	if ok, after := s.limitKey.allow(verified.Key.Fingerprint, s.svc.Now()); !ok {
		return nil, false, httpx.TooManyRequests("for this SSH key", after)
	}
	return s.svc.PublishVerified(c, verified)
}

func (s *Server) me(c *gin.Context) {
	t := presentToken(apiToken(c))
	httpx.JSON(c, http.StatusOK, wire.MeResult{OK: true, User: presentUser(account(c)),
		Token: wire.MeToken{Name: t.Name, Scopes: t.Scopes, Packages: t.Packages, ExpiresAt: t.ExpiresAt}})
}

func (s *Server) listKeys(c *gin.Context) {
	keys, err := s.svc.ListSSHKeys(c, account(c).ID)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.Key, len(keys))
	for i := range keys {
		out[i] = presentKey(&keys[i])
	}
	httpx.JSON(c, http.StatusOK, wire.KeyList{OK: true, Keys: out})
}

func (s *Server) addKey(c *gin.Context) {
	var body wire.SSHKeyRequest
	if err := s.decodeJSONBodyLimited(c, &body, maxKeyBodyBytes); err != nil {
		s.shared.Fail(c, err)
		return
	}
	if body.PublicKey == nil {
		s.shared.Fail(c, registry.Errorf(registry.Invalid, "public_key is required"))
		return
	}
	k, err := s.svc.AddSSHKey(c, account(c).ID, *body.PublicKey, deref(body.Name))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.KeyResult{OK: true, Key: presentKey(k)})
}

func (s *Server) deleteKey(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		s.shared.Fail(c, registry.Errorf(registry.NotFound, "no SSH key with id %q", c.Param("id")))
		return
	}
	if err := s.svc.DeleteSSHKey(c, account(c).ID, id); err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.OK{OK: true})
}
