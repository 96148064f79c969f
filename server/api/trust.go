package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/idtoken"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Trusted publishing (docs/protocol.md, Trusted publishing): the trusted
// publishers of an account, guarded by the tokens scope (a trusted
// publisher is a way to get tokens; adding one needs the publish scope
// too, which the domain checks with the rest of what its maker may grant),
// and the exchange of a CI job's ID
// token for a short publish token, which needs no token at all.

// maxTrustBodyBytes bounds POST /api/trusted-publishers and POST
// /api/oidc/exchange: an ID token is at most idtoken.MaxTokenBytes, and
// twenty globs and ten claims of 300 bytes fit well under this.
const maxTrustBodyBytes = 16 << 10

func (s *Server) listTrustedPublishers(c *gin.Context) {
	list, err := s.svc.ListTrustedPublishers(c, account(c), apiToken(c), c.Query("owner"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.TrustedPublisher, len(list))
	for i := range list {
		out[i] = presentTrustedPublisher(&list[i])
	}
	httpx.JSON(c, http.StatusOK, wire.TrustedPublisherList{OK: true, TrustedPublishers: out})
}

func (s *Server) addTrustedPublisher(c *gin.Context) {
	var body wire.TrustedPublisherRequest
	if err := s.decodeStrict(c, &body, wire.TrustedPublisherRequestFields, "a trusted publisher has owner, issuer, packages and claims"); err != nil {
		s.shared.Fail(c, err)
		return
	}
	p, err := s.svc.AddTrustedPublisher(c, account(c), apiToken(c), registry.TrustedPublisherSpec{
		Owner: body.Owner, Issuer: body.Issuer, Packages: body.Packages, Claims: body.Claims})
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	w := presentTrustedPublisher(p)
	httpx.JSON(c, http.StatusCreated, wire.CreatedTrustedPublisher{OK: true, ID: w.ID, Issuer: w.Issuer, Packages: w.Packages,
		Claims: w.Claims, NamesOnly: w.NamesOnly, CreatedAt: w.CreatedAt, ExpiresAt: w.ExpiresAt, CreatedBy: w.CreatedBy})
}

func (s *Server) deleteTrustedPublisher(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		s.shared.Fail(c, registry.Errorf(registry.NotFound, "no trusted publisher with id %q", c.Param("id")))
		return
	}
	if err := s.svc.DeleteTrustedPublisher(c, account(c), c.Query("owner"), apiToken(c), id); err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.OK{OK: true})
}

func (s *Server) exchangeIDToken(c *gin.Context) {
	var body wire.OIDCExchangeRequest
	if err := s.decodeStrict(c, &body, []string{"token", "owner"}, "an exchange has token and owner"); err != nil {
		s.shared.Fail(c, err)
		return
	}
	if s.idtokens == nil {
		s.shared.Fail(c, registry.Errorf(registry.Unauthorized, "issuer check failed: this registry allows no OpenID Connect issuer (pactd serve --oidc-issuer)"))
		return
	}
	tok, err := s.idtokens.Verify(c, strings.TrimSpace(body.Token))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	ex, err := s.svc.ExchangeIDToken(c, tok, body.Owner)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.OIDCExchange{OK: true, Token: ex.Secret, ExpiresAt: wire.Time(*ex.Token.ExpiresAt), Packages: ex.Packages})
}

func newIDTokenVerifier(svc *registry.Service, baseURL string) *idtoken.Verifier {
	if len(svc.OIDCIssuers()) == 0 {
		return nil
	}
	return idtoken.New(baseURL, svc.OIDCIssuers(), svc.Now)
}
