package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/openapi"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// The every-route test: it reads the routes the real server registered,
// fails on one the authority table (registry.Routes) lacks, and tries each
// route that needs a credential with every credential that must not pass:
// none, a revoked token, an expired token, a token without the route's
// scope, a token limited to other packs (on pack routes) or to any packs
// (on account-wide routes), an organisation maintainer on what only owners
// may do, another user's token or session, and a token where only a
// browser session will do. Each is refused with the documented status
// (docs/protocol.md, Who may do what), and the database's dump is the same
// before and after. Then the same request with the right credential
// succeeds, so the refusals were the authority's, not a bad request's.

// TestUnlistedRoutesNamesARouteWithoutARow is the test of the test: a route
// added without a row is named, and its gate refuses it.
func TestUnlistedRoutesNamesARouteWithoutARow(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	if missing := server.UnlistedRoutes(env.Routes); len(missing) != 0 {
		t.Fatalf("routes without a row in registry.Routes: %v", missing)
	}
	routes := append(slices.Clone(env.Routes), gin.RouteInfo{Method: "POST", Path: "/api/packages/:owner/:pack/transfer"})
	if missing := server.UnlistedRoutes(routes); !slices.Equal(missing, []string{"POST /api/packages/:owner/:pack/transfer"}) {
		t.Errorf("UnlistedRoutes = %v, want the added route", missing)
	}
}

// authFixture is what the every-route test acts on: alice's packs and
// objects, her organisation acme (bob a maintainer), and the credentials.
type authFixture struct {
	env        *servertest.Env
	alice, bob *servertest.User
	aliceWeb   *servertest.WebClient
	bobWeb     *servertest.WebClient
	// Tokens of alice's that must not pass somewhere.
	revoked, expired, noScope, widgets string
	ciIssuer                           string
	members                            int // members made by member
}

// member makes a new account a maintainer of acme and answers its name.
func (f *authFixture) member(t *testing.T) string {
	f.members++
	name := fmt.Sprintf("member%d", f.members)
	u := f.env.CreateUser(t, name)
	if _, err := f.env.Service.SetMember(context.Background(), f.alice.Account, nil, "acme", u.Account.Username, registry.RoleMaintainer); err != nil {
		t.Fatal(err)
	}
	return name
}

// authRequest is one route's request: its path with parameters filled in,
// a JSON body (API) or a form (pages), and what it acts on.
type authRequest struct {
	path string
	json any
	form url.Values
	// own: it acts on the caller's own account only, so another user's
	// credential acts on theirs (no refusal to test).
	own bool
	// orgOwnerOnly is the same operation on acme, which only its owners
	// may do: bob, a maintainer, is refused there.
	orgOwnerOnly *authRequest
	// ok is the status the request answers with alice's own credential;
	// 0 when the test does not try it (ceremonies a browser drives).
	ok int
	// filtered names the list a token limited to other packs gets empty,
	// where alice's own token gets some: a listing within its globs.
	filtered string
}

func TestEveryRouteRefusesWhatItMust(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{"https://ci.example.com"}, WebhookAllowPrivate: true})
		f := newAuthFixture(t, env)
		if missing := server.UnlistedRoutes(env.Routes); len(missing) != 0 {
			t.Fatalf("routes without a row in registry.Routes: %v", missing)
		}
		tried := 0
		for _, r := range env.Routes {
			if r.Method == http.MethodHead {
				continue // its GET's row
			}
			op, _ := registry.RouteOp(r.Method, r.Path)
			rule, _ := registry.RuleOf(op)
			if rule.Reach == registry.ReachPublic {
				continue
			}
			req, ok := f.request(t, r.Method, r.Path)
			if !ok {
				t.Errorf("%s %s: the every-route test has no request for this route (add one to authFixture.request)", r.Method, r.Path)
				continue
			}
			tried++
			t.Run(r.Method+" "+r.Path, func(t *testing.T) {
				f.tryRoute(t, r.Method, rule, req)
			})
		}
		if tried < 50 {
			t.Errorf("tried %d routes that need a credential, want every one of them (50 or more)", tried)
		}
	})
}

func newAuthFixture(t *testing.T, env *servertest.Env) *authFixture {
	f := &authFixture{env: env, alice: env.CreateUser(t, "alice"), bob: env.CreateUser(t, "bob")}
	env.CreateUser(t, "carol")
	env.CreateUser(t, "erin")
	for _, pack := range []string{"widget-a", "unrelated", "locked", "weblocked"} {
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc(pack, "1.0.0")}, f.alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	}
	resp := env.API.PostJSON("/api/orgs", map[string]any{"name": "acme"}, f.alice.Bearer())
	wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
	resp = env.API.PutJSON("/api/orgs/acme/members/bob", map[string]any{"role": "maintainer"}, f.alice.Bearer())
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("rocket", "1.0.0"), "owner": "acme"}, f.alice.Bearer())
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)

	f.revoked = makeToken(t, env, f.alice.Bearer(), map[string]any{"name": "revoked"})
	id := tokenID(t, env, f.alice, "revoked")
	wantStatus(t, env.API.Delete(fmt.Sprintf("/api/tokens/%d", id), f.alice.Bearer()).Status, http.StatusOK, nil)
	f.expired = makeToken(t, env, f.alice.Bearer(), map[string]any{"name": "expired", "expires_in_days": 1})
	f.noScope = makeToken(t, env, f.alice.Bearer(), map[string]any{"name": "no scope", "scopes": []string{}})
	f.widgets = makeToken(t, env, f.alice.Bearer(), map[string]any{"name": "widgets", "packages": []string{"widget-*"}})
	env.Clock.Advance(2 * 24 * time.Hour)
	// Some of alice's hooks and trusted publishers exist from the start,
	// for the listings.
	f.ciIssuer = "https://ci.example.com"
	f.aliceHook(t, "")
	f.aliceTrustedPublisher(t, "")

	f.aliceWeb = servertest.NewWebClient(t, env.URL)
	f.aliceWeb.Login(f.alice)
	f.bobWeb = servertest.NewWebClient(t, env.URL)
	f.bobWeb.Login(f.bob)
	// Each credential is used once before the dumps are compared: a first
	// use records when it was last used, which the refusals must not.
	for _, token := range []string{f.alice.Token, f.bob.Token, f.noScope, f.widgets} {
		wantStatus(t, env.API.Get("/api/me", bearer(token)).Status, http.StatusOK, nil)
	}
	return f
}

// tokenID is the id of u's active token named name.
func tokenID(t *testing.T, env *servertest.Env, u *servertest.User, name string) int64 {
	t.Helper()
	for _, tok := range listTokens(t, env, u.Bearer()) {
		if tok["name"] == name {
			return int64(tok["id"].(float64))
		}
	}
	t.Fatalf("%s has no token %q", u.Account.Username, name)
	return 0
}

// newKeyLine is a fresh ed25519 public key as an authorized_keys line.
func newKeyLine(t *testing.T) string {
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k)))
}

// Fresh objects of alice's, one per route, so that each route's final
// request with the right credential finds its own.

func (f *authFixture) aliceKey(t *testing.T) int64 {
	k, err := f.env.Service.AddSSHKey(context.Background(), f.alice.Account.ID, newKeyLine(t), "")
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

func (f *authFixture) aliceToken(t *testing.T) int64 {
	_, tok, err := f.env.Service.CreateToken(context.Background(), f.alice.Account.ID, "victim", nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok.ID
}

// aliceHook is a hook of every pack of owner: no token limited to packs
// manages it.
func (f *authFixture) aliceHook(t *testing.T, owner string) int64 {
	h, err := f.env.Service.CreateHook(context.Background(), f.alice.Account, nil, registry.HookSpec{Owner: owner,
		URL: "http://127.0.0.1:9/hook", Secret: hookSecret, Events: []string{"publish"}})
	if err != nil {
		t.Fatal(err)
	}
	return h.ID
}

func (f *authFixture) aliceTrustedPublisher(t *testing.T, owner string) int64 {
	p, err := f.env.Service.AddTrustedPublisher(context.Background(), f.alice.Account, nil, registry.TrustedPublisherSpec{Owner: owner,
		Issuer: f.ciIssuer, Packages: []string{"unrelated", "rocket"}, Claims: map[string]string{"repository": "alice/unrelated"}})
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func (f *authFixture) aliceSession(t *testing.T) int64 {
	ctx := context.Background()
	if _, err := f.env.Service.StartSession(ctx, f.alice.Account.ID, registry.SessionClient{UserAgent: "test", IP: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	list, _, err := f.env.Service.ListSessions(ctx, f.alice.Account.ID)
	if err != nil {
		t.Fatal(err)
	}
	newest := list[0]
	for _, s := range list {
		if s.ID > newest.ID {
			newest = s
		}
	}
	return newest.ID
}

// request is the request of one route; false for a route it does not know.
func (f *authFixture) request(t *testing.T, method, path string) (authRequest, bool) {
	trust := func(owner string) map[string]any {
		return map[string]any{"owner": owner, "issuer": f.ciIssuer, "packages": []string{"unrelated"},
			"claims": map[string]string{"repository": "alice/unrelated"}}
	}
	hook := func(owner, pack string) map[string]any {
		return map[string]any{"owner": owner, "package": pack, "url": "http://127.0.0.1:9/hook", "secret": hookSecret, "events": []string{"publish"}}
	}
	switch method + " " + path {
	case "GET /api/me":
		return authRequest{path: "/api/me", own: true, ok: 200}, true
	case "GET /api/ssh-keys":
		return authRequest{path: "/api/ssh-keys", own: true, ok: 200}, true
	case "POST /api/ssh-keys":
		return authRequest{path: "/api/ssh-keys", json: map[string]any{"public_key": newKeyLine(t)}, own: true, ok: 200}, true
	case "DELETE /api/ssh-keys/:id":
		return authRequest{path: fmt.Sprintf("/api/ssh-keys/%d", f.aliceKey(t)), ok: 200}, true
	case "GET /api/tokens":
		return authRequest{path: "/api/tokens", own: true, ok: 200}, true
	case "POST /api/tokens":
		return authRequest{path: "/api/tokens", json: map[string]any{"name": "new", "scopes": []string{"publish"}, "packages": []string{"widget-a"}}, own: true, ok: 201}, true
	case "DELETE /api/tokens/:id":
		return authRequest{path: fmt.Sprintf("/api/tokens/%d", f.aliceToken(t)), ok: 200}, true
	case "GET /api/orgs":
		return authRequest{path: "/api/orgs", own: true, ok: 200}, true
	case "POST /api/orgs":
		return authRequest{path: "/api/orgs", json: map[string]any{"name": "neworg"}, own: true, ok: 201}, true
	case "PUT /api/orgs/:org/members/:username":
		return authRequest{path: "/api/orgs/acme/members/carol", json: map[string]any{"role": "owner"}, ok: 200}, true
	case "DELETE /api/orgs/:org/members/:username":
		return authRequest{path: "/api/orgs/acme/members/" + f.member(t), ok: 200}, true
	case "POST /api/publish":
		return authRequest{path: "/api/publish", json: map[string]any{"content": packDoc("fresh", "1.0.0"), "owner": "alice"}, ok: 200}, true
	case "POST /api/releases":
		return authRequest{path: "/api/releases", json: map[string]any{"contract_id": "alice/unrelated", "version": "1.0.0",
			"artifact_index_url": "https://ci.example.com/index.json", "artifacts": []map[string]any{{"name": "a.tar.gz"}}}, ok: 200}, true
	case "POST /api/packages/:owner/:pack/versions/:version/yank":
		return authRequest{path: "/api/packages/alice/unrelated/versions/1.0.0/yank", json: map[string]any{"reason": "broken"}, ok: 200}, true
	case "POST /api/packages/:owner/:pack/versions/:version/unyank":
		return authRequest{path: "/api/packages/alice/unrelated/versions/1.0.0/unyank", ok: 200}, true
	case "POST /api/packages/:owner/:pack/deprecate":
		return authRequest{path: "/api/packages/alice/unrelated/deprecate", json: map[string]any{"message": "use alice/other"}, ok: 200,
			orgOwnerOnly: &authRequest{path: "/api/packages/acme/rocket/deprecate", json: map[string]any{"message": "gone"}}}, true
	case "PATCH /api/packages/:owner/:pack":
		return authRequest{path: "/api/packages/alice/locked", json: map[string]any{"trusted_publishing_only": true}, ok: 200,
			orgOwnerOnly: &authRequest{path: "/api/packages/acme/rocket", json: map[string]any{"trusted_publishing_only": true}}}, true
	case "GET /api/trusted-publishers":
		return authRequest{path: "/api/trusted-publishers?owner=alice", own: true, ok: 200, filtered: "trusted_publishers",
			orgOwnerOnly: &authRequest{path: "/api/trusted-publishers?owner=acme"}}, true
	case "POST /api/trusted-publishers":
		return authRequest{path: "/api/trusted-publishers", json: trust("alice"), ok: 201,
			orgOwnerOnly: &authRequest{path: "/api/trusted-publishers", json: trust("acme")}}, true
	case "DELETE /api/trusted-publishers/:id":
		return authRequest{path: fmt.Sprintf("/api/trusted-publishers/%d", f.aliceTrustedPublisher(t, "")), ok: 200,
			orgOwnerOnly: &authRequest{path: fmt.Sprintf("/api/trusted-publishers/%d?owner=acme", f.aliceTrustedPublisher(t, "acme"))}}, true
	case "GET /api/hooks":
		return authRequest{path: "/api/hooks", own: true, ok: 200, filtered: "hooks", orgOwnerOnly: &authRequest{path: "/api/hooks?owner=acme"}}, true
	case "POST /api/hooks":
		return authRequest{path: "/api/hooks", json: hook("alice", "unrelated"), ok: 201,
			orgOwnerOnly: &authRequest{path: "/api/hooks", json: hook("acme", "rocket")}}, true
	case "DELETE /api/hooks/:id":
		return authRequest{path: fmt.Sprintf("/api/hooks/%d", f.aliceHook(t, "")), ok: 200,
			orgOwnerOnly: &authRequest{path: fmt.Sprintf("/api/hooks/%d", f.aliceHook(t, "acme"))}}, true
	case "GET /api/hooks/:id/deliveries":
		return authRequest{path: fmt.Sprintf("/api/hooks/%d/deliveries", f.aliceHook(t, "")), ok: 200,
			orgOwnerOnly: &authRequest{path: fmt.Sprintf("/api/hooks/%d/deliveries", f.aliceHook(t, "acme"))}}, true
	case "POST /api/hooks/:id/deliveries/:delivery/redeliver":
		// No delivery 1 exists: alice is told so (404), the others are
		// refused before it is looked for.
		return authRequest{path: fmt.Sprintf("/api/hooks/%d/deliveries/1/redeliver", f.aliceHook(t, "")), ok: 404}, true

	// The pages: a browser session, never a token.
	case "GET /login/device":
		return authRequest{path: "/login/device", own: true, ok: 200}, true
	case "POST /login/device":
		return authRequest{path: "/login/device", form: url.Values{"code": {"BCDF-GHJK"}}, own: true}, true
	case "POST /login/device/decide":
		return authRequest{path: "/login/device/decide", form: url.Values{"code": {"BCDF-GHJK"}, "decision": {"deny"}}, own: true}, true
	case "GET /dashboard", "GET /dashboard/tokens", "GET /dashboard/keys", "GET /dashboard/orgs", "GET /dashboard/trusted-publishers",
		"GET /dashboard/hooks", "GET /dashboard/account":
		return authRequest{path: path, own: true, ok: 200}, true
	case "GET /dashboard/packages":
		return authRequest{path: path, own: true, ok: 200}, true
	case "GET /dashboard/hooks/:id":
		return authRequest{path: fmt.Sprintf("/dashboard/hooks/%d", f.aliceHook(t, "")), ok: 200}, true
	case "GET /dashboard/package/:owner/:pack":
		return authRequest{path: "/dashboard/package/alice/unrelated", ok: 200}, true
	case "POST /dashboard/package/:owner/:pack/versions/:version/yank":
		return authRequest{path: "/dashboard/package/alice/unrelated/versions/1.0.0/yank", form: url.Values{"confirm": {"yes"}, "reason": {"broken"}}, ok: 303}, true
	case "POST /dashboard/package/:owner/:pack/versions/:version/unyank":
		return authRequest{path: "/dashboard/package/alice/unrelated/versions/1.0.0/unyank", form: url.Values{}, ok: 303}, true
	case "POST /dashboard/package/:owner/:pack/deprecate":
		return authRequest{path: "/dashboard/package/alice/unrelated/deprecate", form: url.Values{"message": {"use alice/other"}}, ok: 303,
			orgOwnerOnly: &authRequest{path: "/dashboard/package/acme/rocket/deprecate", form: url.Values{"message": {"gone"}}}}, true
	case "POST /dashboard/hooks":
		return authRequest{path: path, form: url.Values{"url": {"http://127.0.0.1:9/web"}, "secret": {hookSecret}, "event": {"publish"}}, own: true, ok: 303,
			orgOwnerOnly: &authRequest{path: path, form: url.Values{"owner": {"acme"}, "url": {"http://127.0.0.1:9/web"}, "secret": {hookSecret}, "event": {"publish"}}}}, true
	case "POST /dashboard/hooks/:id/remove":
		return authRequest{path: fmt.Sprintf("/dashboard/hooks/%d/remove", f.aliceHook(t, "")), form: url.Values{"confirm": {"yes"}}, ok: 303}, true
	case "POST /dashboard/tokens":
		return authRequest{path: path, form: url.Values{"name": {"web"}, "scope": {"publish"}}, own: true, ok: 200}, true
	case "POST /dashboard/tokens/:id/revoke":
		return authRequest{path: fmt.Sprintf("/dashboard/tokens/%d/revoke", f.aliceToken(t)), form: url.Values{"confirm": {"yes"}}, ok: 303}, true
	case "POST /dashboard/keys":
		return authRequest{path: path, form: url.Values{"public_key": {newKeyLine(t)}}, own: true, ok: 303}, true
	case "POST /dashboard/keys/:id/delete":
		return authRequest{path: fmt.Sprintf("/dashboard/keys/%d/delete", f.aliceKey(t)), form: url.Values{"confirm": {"yes"}}, ok: 303}, true
	case "POST /dashboard/trusted-publishers":
		return authRequest{path: path, form: url.Values{"issuer": {f.ciIssuer}, "packages": {"unrelated"}, "claims": {"repository=alice/unrelated"}}, own: true, ok: 303}, true
	case "POST /dashboard/trusted-publishers/:id/remove":
		return authRequest{path: fmt.Sprintf("/dashboard/trusted-publishers/%d/remove", f.aliceTrustedPublisher(t, "")), form: url.Values{"confirm": {"yes"}}, ok: 303}, true
	case "POST /dashboard/packages/:pack/trusted-publishing-only":
		// The pack is the session's own: bob's session names his, and he
		// has none of that name.
		return authRequest{path: "/dashboard/packages/weblocked/trusted-publishing-only", form: url.Values{"only": {"true"}}, ok: 303}, true
	case "POST /dashboard/orgs":
		return authRequest{path: path, form: url.Values{"name": {"weborg"}}, own: true, ok: 303}, true
	case "POST /dashboard/orgs/:org/members":
		return authRequest{path: "/dashboard/orgs/acme/members", form: url.Values{"username": {"erin"}, "role": {"maintainer"}}, ok: 303}, true
	case "POST /dashboard/orgs/:org/members/:username/remove":
		return authRequest{path: "/dashboard/orgs/acme/members/" + f.member(t) + "/remove", form: url.Values{"confirm": {"yes"}}, ok: 303}, true
	case "POST /dashboard/password":
		return authRequest{path: path, form: url.Values{"current_password": {"wrong"}, "new_password": {"a new long password"}, "confirm_password": {"a new long password"}}, own: true}, true
	case "POST /dashboard/sessions/:id/end":
		return authRequest{path: fmt.Sprintf("/dashboard/sessions/%d/end", f.aliceSession(t)), ok: 303}, true
	case "POST /dashboard/logout-everywhere":
		return authRequest{path: path, own: true}, true
	case "POST /dashboard/passkeys/begin", "POST /dashboard/passkeys/finish", "POST /dashboard/second-factor", "POST /dashboard/recovery-codes":
		return authRequest{path: path, form: url.Values{}, own: true}, true
	case "POST /dashboard/passkeys/:id/delete":
		return authRequest{path: "/dashboard/passkeys/1/delete", form: url.Values{"confirm": {"yes"}}}, true
	case "POST /dashboard/orgs/:org/second-factor":
		return authRequest{path: "/dashboard/orgs/acme/second-factor", form: url.Values{"on": {"true"}}}, true
	}
	return authRequest{}, false
}

// tryRoute sends req with every credential that must not pass, checks
// each refusal and that nothing changed, then sends it with alice's.
func (f *authFixture) tryRoute(t *testing.T, method string, rule registry.Rule, req authRequest) {
	web := req.form != nil || strings.HasPrefix(req.path, "/dashboard") || strings.HasPrefix(req.path, "/login")
	f.settle(t)
	before := f.dump(t)
	check := func(what string, status int, body string, want ...int) {
		t.Helper()
		if !slices.Contains(want, status) {
			t.Errorf("%s: status %d, want one of %v; body: %.300s", what, status, want, body)
		}
	}
	if web {
		for _, c := range []struct {
			what   string
			header string
		}{{"no session", ""}, {"alice's full token, no session", f.alice.Bearer()}} {
			status, loc, body := f.send(t, nil, method, req.path, req.json, req.form, c.header)
			check(c.what, status, body, http.StatusSeeOther)
			if !strings.HasPrefix(loc, "/login") {
				t.Errorf("%s: sent to %q, want the log-in page", c.what, loc)
			}
		}
		if !req.own {
			status, _, body := f.send(t, f.bobWeb, method, req.path, req.json, req.form, "")
			check("bob's session", status, body, http.StatusForbidden, http.StatusNotFound)
		}
	} else {
		refusals := []struct {
			what   string
			token  string
			status []int
			when   bool
		}{
			{"no credential", "", []int{401}, true},
			{"a revoked token", f.revoked, []int{401}, true},
			{"an expired token", f.expired, []int{401}, true},
			{"a token without the scope", f.noScope, []int{403}, len(rule.Scopes) > 0},
			// Its packs are widget-*: the requests act on alice/unrelated,
			// acme's packs, every pack of an owner or the whole account.
			{"a token limited to other packs", f.widgets, []int{403, 404}, rule.Reach == registry.ReachAccount || rule.Reach == registry.ReachPack && req.filtered == ""},
			{"another user's token", f.bob.Token, []int{403, 404}, !req.own},
		}
		for _, c := range refusals {
			if !c.when {
				continue
			}
			status, _, body := f.send(t, nil, method, req.path, req.json, nil, bearerOrNone(c.token))
			check(c.what, status, body, c.status...)
			if c.status[0] == 403 && status == 403 && !strings.Contains(body, `"error"`) {
				t.Errorf("%s: a refusal without an error message: %s", c.what, body)
			}
		}
	}
	if req.filtered != "" {
		listed := func(token string) int {
			status, _, body := f.send(t, nil, method, req.path, nil, nil, bearer(token))
			var out map[string]any
			if status != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil {
				t.Fatalf("listing: status %d; body: %.300s", status, body)
			}
			list, _ := out[req.filtered].([]any)
			return len(list)
		}
		if n := listed(f.widgets); n != 0 {
			t.Errorf("a token limited to other packs lists %d %s", n, req.filtered)
		}
		if n := listed(f.alice.Token); n == 0 {
			t.Errorf("alice's own token lists no %s: the test proves nothing", req.filtered)
		}
	}
	if o := req.orgOwnerOnly; o != nil {
		var status int
		var body string
		if web {
			status, _, body = f.send(t, f.bobWeb, method, o.path, o.json, o.form, "")
		} else {
			status, _, body = f.send(t, nil, method, o.path, o.json, nil, f.bob.Bearer())
		}
		check("acme's maintainer bob, on what only owners may do", status, body, http.StatusForbidden, http.StatusNotFound)
	}
	f.settle(t)
	if after := f.dump(t); after != before {
		t.Errorf("the refused requests changed the database:\n%s", firstDifference(before, after))
	}
	if req.ok == 0 {
		return
	}
	var status int
	var body string
	if web {
		status, _, body = f.send(t, f.aliceWeb, method, req.path, req.json, req.form, "")
	} else {
		status, _, body = f.send(t, nil, method, req.path, req.json, nil, f.alice.Bearer())
	}
	if status != req.ok {
		t.Errorf("with alice's own credential: status %d, want %d (the request itself must be good); body: %.300s", status, req.ok, body)
	}
}

func bearerOrNone(token string) string {
	if token == "" {
		return ""
	}
	return bearer(token)
}

// send makes one request, as a browser with web's cookies (nil: none), and
// answers the status, the Location and the body.
func (f *authFixture) send(t *testing.T, web *servertest.WebClient, method, path string, jsonBody any, form url.Values, header string) (int, string, string) {
	t.Helper()
	var body io.Reader
	contentType := ""
	switch {
	case form != nil:
		body, contentType = strings.NewReader(form.Encode()), "application/x-www-form-urlencoded"
	case jsonBody != nil:
		b, err := json.Marshal(jsonBody)
		if err != nil {
			t.Fatal(err)
		}
		body, contentType = bytes.NewReader(b), "application/json"
	}
	req, err := http.NewRequest(method, f.env.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if name, value, ok := strings.Cut(header, ": "); ok {
		req.Header.Set(name, value)
	}
	if web != nil {
		r := web.Do(req)
		return r.Status, r.Header.Get("Location"), r.Body
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// settle hashes what the log holds into its tree now, so that a dump
// does not catch the sequencer half-way through the last route's entries.
func (f *authFixture) settle(t *testing.T) {
	t.Helper()
	if _, err := f.env.Service.SequenceLog(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// dump is the database as pactd dump writes it, without its header (which
// says when it was made).
func (f *authFixture) dump(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := f.env.Store.(*sqlstore.Store).DumpWith(context.Background(), &b, f.env.Service.BlobDocument); err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(b.String(), "\n")
	return rest
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("before: %.400s\nafter:  %.400s", x, y)
		}
	}
	return "(same lines)"
}

// The review's findings, as an attacker with a token made with
// --package 'widget-*' tried them (docs/protocol.md, Who may do what).
func TestAPackLimitedTokenHoldsOnlyPackPowers(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{WebhookAllowPrivate: true})
		alice := env.CreateUser(t, "alice")
		for _, pack := range []string{"widget-a", "unrelated"} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc(pack, "1.0.0")}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		widgets := bearer(makeToken(t, env, alice.Bearer(), map[string]any{"name": "widgets", "packages": []string{"widget-*"}}))

		// 1. It adds no SSH key, which would sign publishes of every pack.
		t.Run("ssh keys", func(t *testing.T) {
			resp := env.API.PostJSON("/api/ssh-keys", map[string]any{"public_key": newKeyLine(t)}, widgets)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "this token is limited to the packs widget-*, so it cannot add or remove SSH keys")
			if keys := env.API.Get("/api/ssh-keys", alice.Bearer()); !strings.Contains(string(keys.Body), `"keys":[]`) {
				t.Errorf("alice's keys after the refusal: %s", keys.Body)
			}

		})
		// 2. It may set trusted_publishing_only on a pack of its own, never
		// lift it: no token may.
		t.Run("trusted publishing only", func(t *testing.T) {
			resp := env.API.PatchJSON("/api/packages/alice/widget-a", map[string]any{"trusted_publishing_only": true}, widgets)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			resp = env.API.PatchJSON("/api/packages/alice/widget-a", map[string]any{"trusted_publishing_only": false}, widgets)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "an API token cannot turn trusted_publishing_only off")
			resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget-a", "1.1.0")}, widgets)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "trusted_publishing_only")

		})
		// 3. It lists only the hooks of its packs, and not the deliveries of
		// a hook of every pack.
		t.Run("hooks", func(t *testing.T) {
			whole := addHook(t, env, alice, map[string]any{"url": "http://127.0.0.1:9/all", "secret": hookSecret, "events": []string{"publish"}})
			other := addHook(t, env, alice, map[string]any{"package": "unrelated", "url": "http://127.0.0.1:9/unrelated", "secret": hookSecret, "events": []string{"publish"}})
			mine := addHook(t, env, alice, map[string]any{"package": "widget-a", "url": "http://127.0.0.1:9/widget", "secret": hookSecret, "events": []string{"publish"}})
			resp := env.API.Get("/api/hooks", widgets)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var list wire.HookList
			resp.Decode(t, &list)
			if len(list.Hooks) != 1 || list.Hooks[0].ID != mine.ID {
				t.Errorf("the widget token lists %+v, want only hook %d", list.Hooks, mine.ID)
			}
			if strings.Contains(string(resp.Body), "/all") || strings.Contains(string(resp.Body), "/unrelated") {
				t.Errorf("the listing names another hook's URL: %s", resp.Body)
			}
			for _, id := range []int64{whole.ID, other.ID} {
				resp = env.API.Get(fmt.Sprintf("/api/hooks/%d/deliveries", id), widgets)
				wantError(t, resp.Status, resp.JSON(t), http.StatusNotFound, fmt.Sprintf("no hook %d that this token manages", id))
			}
			resp = env.API.Get(fmt.Sprintf("/api/hooks/%d/deliveries", mine.ID), widgets)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		})
	})
}

// openAPIRoute is the route of registry.Routes an operation of
// openapi.json documents.
func openAPIRoute(path string) string {
	switch {
	case strings.HasPrefix(path, "/raw/"):
		return "/raw/:owner/:file"
	case strings.HasPrefix(path, "/log/tile/"):
		return "/log/tile/*path"
	case path == "/{owner}.keys":
		return "/:owner"
	}
	return regexp.MustCompile(`\{([a-z_]+)\}`).ReplaceAllString(path, ":$1")
}

// /openapi.json says what each operation needs, as the authority table
// does (x-pact-authority).
func TestOpenAPISaysWhatEachRouteNeeds(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method, raw := range ops {
			if method == "parameters" {
				continue
			}
			var op struct {
				Authority *struct {
					Operation string           `json:"operation"`
					Reach     string           `json:"reach"`
					Scopes    []registry.Scope `json:"scopes"`
				} `json:"x-pact-authority"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			m := strings.ToUpper(method)
			route := openAPIRoute(path)
			id, ok := registry.RouteOp(m, route)
			if !ok {
				t.Errorf("%s %s: no route %s in the authority table", m, path, route)
				continue
			}
			documented[strings.Replace(m, "HEAD", "GET", 1)+" "+route] = true
			rule, _ := registry.RuleOf(id)
			if a := op.Authority; a == nil || a.Operation != string(id) || a.Reach != string(rule.Reach) || !slices.Equal(a.Scopes, rule.Scopes) {
				t.Errorf("%s %s: x-pact-authority %+v, want operation %s, reach %s, scopes %v", m, path, a, id, rule.Reach, rule.Scopes)
			}
		}
	}
	for _, r := range registry.Routes {
		if api := strings.HasPrefix(r.Path, "/api/"); api && !documented[r.Method+" "+r.Path] {
			t.Errorf("%s %s is not in openapi.json", r.Method, r.Path)
		}
	}
}

// authorityTable renders registry.Routes as docs/protocol.md shows them.
func authorityTable() string {
	var b strings.Builder
	b.WriteString("| Method | Path | Operation | Who may | Token scopes |\n|---|---|---|---|---|\n")
	for _, r := range registry.Routes {
		rule, _ := registry.RuleOf(r.Op)
		scopes := make([]string, len(rule.Scopes))
		for i, s := range rule.Scopes {
			scopes[i] = "`" + string(s) + "`"
		}
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | %s | %s |\n", r.Method, r.Path, r.Op, rule.Reach, strings.Join(scopes, ", "))
	}
	return b.String()
}

// docs/protocol.md's authority table holds the rows of the code.
func TestDocsAuthorityTable(t *testing.T) {
	t.Parallel()
	const begin, end = "<!-- authority table: the rows of server/registry/authority.go -->\n", "<!-- end of the authority table -->"
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), begin)
	table, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("docs/protocol.md has no authority table between %q and %q", begin, end)
	}
	if want := authorityTable(); table != want {
		t.Errorf("docs/protocol.md's authority table differs from the code's; it should read:\n%s", want)
	}
}
