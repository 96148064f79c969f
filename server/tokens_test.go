package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
)

// makeToken creates a token through POST /api/tokens with the token in
// header, and returns its secret.
func makeToken(t *testing.T, env *servertest.Env, header string, body map[string]any) string {
	t.Helper()
	resp := env.API.PostJSON("/api/tokens", body, header)
	wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
	secret, _ := resp.JSON(t)["token"].(string)
	if !strings.HasPrefix(secret, "pact_") {
		t.Fatalf("token = %q, want a pact_ secret", secret)
	}
	return secret
}

func bearer(secret string) string { return "Authorization: Bearer " + secret }

// listTokens reads every page of GET /api/tokens?query (the active
// tokens; all=true the ended ones too).
func listTokens(t *testing.T, env *servertest.Env, header string, query ...string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for cursor := ""; ; {
		path := "/api/tokens?limit=100"
		if len(query) > 0 {
			path += "&" + strings.Join(query, "&")
		}
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		resp := env.API.Get(path, header)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		page := resp.JSON(t)
		for _, tok := range page["tokens"].([]any) {
			out = append(out, tok.(map[string]any))
		}
		next, _ := page["next_cursor"].(string)
		if next == "" {
			return out
		}
		cursor = next
	}
}

func TestTokensAPI(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")

		resp := env.API.PostJSON("/api/tokens", map[string]any{
			"name": "ci", "scopes": []string{"yank", "publish", "publish"}, "packages": []string{"widget-*"}, "expires_in_days": 30,
		}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
		created := resp.JSON(t)
		secret, _ := created["token"].(string)
		if !strings.HasPrefix(secret, "pact_") || created["name"] != "ci" || created["revoked"] != false ||
			fmt.Sprint(created["scopes"]) != "[publish yank]" || fmt.Sprint(created["packages"]) != "[widget-*]" ||
			created["last_used_at"] != nil || created["revoked_at"] != nil {
			t.Errorf("created token = %v", created)
		}
		expires, err := time.Parse(time.RFC3339, created["expires_at"].(string))
		if want := env.Clock.Now().AddDate(0, 0, 30); err != nil || !expires.Equal(want) {
			t.Errorf("expires_at = %v, want %v", created["expires_at"], want)
		}
		if bytes.Contains(env.API.Get("/api/tokens", alice.Bearer()).Body, []byte(secret)) {
			t.Error("the list shows the secret")
		}

		tokens := listTokens(t, env, alice.Bearer())
		if len(tokens) != 2 || tokens[0]["name"] != "ci" || tokens[1]["name"] != "test" {
			t.Fatalf("alice's tokens = %v, want ci and test, newest first", tokens)
		}
		for _, tok := range tokens {
			for _, field := range []string{"token", "hash", "secret"} {
				if _, ok := tok[field]; ok {
					t.Errorf("a listed token has %q: %v", field, tok)
				}
			}
		}
		// The token made before scopes existed (servertest's) has them all.
		if tokens[1]["scopes"] != nil || tokens[1]["packages"] != nil || tokens[1]["expires_at"] != nil {
			t.Errorf("the full-power token is listed as %v, want null scopes, packages and expires_at", tokens[1])
		}
		if tokens[1]["last_used_at"] == nil {
			t.Errorf("the token that made these requests shows no last use: %v", tokens[1])
		}

		// The new token works, and its use is recorded.
		me := env.API.Get("/api/me", bearer(secret))
		wantStatus(t, me.Status, http.StatusOK, me.Body)
		if used := listTokens(t, env, alice.Bearer())[0]; used["last_used_at"] == nil {
			t.Errorf("last_used_at is null after a request with the token: %v", used)
		}

		id := jsonInt(created["id"])
		for _, bad := range []string{"/api/tokens/" + id, "/api/tokens/999999", "/api/tokens/abc", "/api/tokens/0"} {
			del := env.API.Delete(bad, bob.Bearer())
			wantError(t, del.Status, del.JSON(t), http.StatusNotFound, "no")
		}
		if me := env.API.Get("/api/me", bearer(secret)); me.Status != http.StatusOK {
			t.Fatalf("bob's refused revocations revoked alice's token: %d", me.Status)
		}
		del := env.API.Delete("/api/tokens/"+id, alice.Bearer())
		wantStatus(t, del.Status, http.StatusOK, del.Body)
		again := env.API.Delete("/api/tokens/"+id, alice.Bearer())
		wantStatus(t, again.Status, http.StatusOK, again.Body)
		me = env.API.Get("/api/me", bearer(secret))
		wantError(t, me.Status, me.JSON(t), http.StatusUnauthorized, "missing or invalid API token")
		// The list is of active tokens; all=true shows the revoked one.
		if active := listTokens(t, env, alice.Bearer()); len(active) != 1 || active[0]["name"] != "test" {
			t.Errorf("alice's active tokens after the revocation = %v", active)
		}
		revoked := listTokens(t, env, alice.Bearer(), "all=true")[0]
		if revoked["revoked"] != true || revoked["revoked_at"] == nil || revoked["name"] != "ci" {
			t.Errorf("revoked token = %v", revoked)
		}
		if bobs := listTokens(t, env, bob.Bearer()); len(bobs) != 1 || bobs[0]["name"] != "test" {
			t.Errorf("bob's tokens = %v", bobs)
		}
		head := env.API.Head("/api/tokens", alice.Bearer())
		wantStatus(t, head.Status, http.StatusOK, head.Body)
	})
}

// Each scope guards its routes; a token without it gets 403 naming it,
// and reads work with any active token.
func TestTokenScopesGuardTheirRoutes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		readOnly := bearer(makeToken(t, env, alice.Bearer(), map[string]any{"name": "read", "scopes": []string{}}))
		publishOnly := bearer(makeToken(t, env, alice.Bearer(), map[string]any{"name": "publish", "scopes": []string{"publish"}}))

		for _, path := range []string{"/api/me", "/api/ssh-keys"} {
			resp := env.API.Get(path, readOnly)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		cases := []struct {
			name, method, path string
			body               any
			scope              string
		}{
			{"publish", http.MethodPost, "/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, "publish"},
			{"add a key", http.MethodPost, "/api/ssh-keys", map[string]any{"public_key": "ssh-ed25519 AAAA"}, "keys"},
			{"delete a key", http.MethodDelete, "/api/ssh-keys/1", nil, "keys"},
			{"list tokens", http.MethodGet, "/api/tokens", nil, "tokens"},
			{"create a token", http.MethodPost, "/api/tokens", map[string]any{"name": "more"}, "tokens"},
			{"revoke a token", http.MethodDelete, "/api/tokens/1", nil, "tokens"},
			{"yank", http.MethodPost, "/api/packages/alice/widget/versions/1.0.0/yank", map[string]any{"reason": "broken"}, "yank"},
			{"unyank", http.MethodPost, "/api/packages/alice/widget/versions/1.0.0/unyank", map[string]any{}, "yank"},
			{"deprecate", http.MethodPost, "/api/packages/alice/widget/deprecate", map[string]any{"message": "old"}, "yank"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				for _, header := range []string{readOnly, publishOnly} {
					if header == publishOnly && c.scope == "publish" {
						continue
					}
					var resp interface {
						JSON(testing.TB) map[string]any
					}
					var status int
					switch c.method {
					case http.MethodGet:
						r := env.API.Get(c.path, header)
						resp, status = r, r.Status
					case http.MethodDelete:
						r := env.API.Delete(c.path, header)
						resp, status = r, r.Status
					default:
						r := env.API.PostJSON(c.path, c.body, header)
						resp, status = r, r.Status
					}
					wantError(t, status, resp.JSON(t), http.StatusForbidden, fmt.Sprintf("this token lacks the %q scope", c.scope))
				}
			})
		}
		if d := env.API.Get("/api/packages/alice/widget"); d.Status != http.StatusNotFound {
			t.Errorf("a refused publish published: %d", d.Status)
		}
		if n := len(listTokens(t, env, alice.Bearer())); n != 3 {
			t.Errorf("alice has %d tokens after refused creations, want 3", n)
		}
		// The publish token publishes.
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, publishOnly)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if v := env.API.Get("/api/packages/alice/widget").JSON(t)["versions"].([]any)[0].(map[string]any); v["yanked"] == true {
			t.Errorf("a refused yank yanked: %v", v)
		}
		// A yank token limited to other packs may not yank this one; one
		// limited to it may.
		others := bearer(makeToken(t, env, alice.Bearer(), map[string]any{"name": "others", "scopes": []string{"yank"}, "packages": []string{"gadget-*"}}))
		resp = env.API.PostJSON("/api/packages/alice/widget/versions/1.0.0/yank", map[string]any{}, others)
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, `"widget" is not one of them`)
		yanker := bearer(makeToken(t, env, alice.Bearer(), map[string]any{"name": "yanker", "scopes": []string{"yank"}, "packages": []string{"wid*"}}))
		resp = env.API.PostJSON("/api/packages/alice/widget/versions/1.0.0/yank", map[string]any{"reason": "broken"}, yanker)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	})
}

func TestTokenPackageGlobs(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		widgets := bearer(makeToken(t, env, alice.Bearer(), map[string]any{
			"name": "widgets", "scopes": []string{"publish"}, "packages": []string{"widget-*", "gad?et", "[xy]z"},
		}))
		for _, name := range []string{"widget-a", "Widget-B", "gadget", "xz"} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc(name, "1.0.0")}, widgets)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		for _, c := range []struct{ name, slug string }{{"widget", "widget"}, {"other", "other"}, {"gaddget", "gaddget"}, {"zz", "zz"}} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc(c.name, "1.0.0")}, widgets)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, fmt.Sprintf("%q is not one of them", c.slug))
			if d := env.API.Get("/api/packages/alice/" + c.slug); d.Status != http.StatusNotFound {
				t.Errorf("%s was published by a token limited to other packs: %d", c.slug, d.Status)
			}
		}
	})
}

func TestExpiredTokensSaySo(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		day := bearer(makeToken(t, env, alice.Bearer(), map[string]any{"name": "day", "expires_in_days": 1}))
		forever := bearer(makeToken(t, env, alice.Bearer(), map[string]any{"name": "forever", "expires_in_days": nil}))
		env.Clock.Advance(23 * time.Hour)
		wantStatus(t, env.API.Get("/api/me", day).Status, http.StatusOK, nil)
		env.Clock.Advance(time.Hour)
		me := env.API.Get("/api/me", day)
		wantError(t, me.Status, me.JSON(t), http.StatusUnauthorized, "this API token expired at ")
		if me.Header.Get("WWW-Authenticate") == "" {
			t.Error("the 401 of an expired token has no WWW-Authenticate")
		}
		env.Clock.Advance(10 * 365 * 24 * time.Hour)
		wantStatus(t, env.API.Get("/api/me", forever).Status, http.StatusOK, nil)
		unknown := env.API.Get("/api/me", bearer("pact_"+strings.Repeat("A", 43)))
		wantError(t, unknown.Status, unknown.JSON(t), http.StatusUnauthorized, "missing or invalid API token")
		// The expired one is listed with all=true only.
		if tokens := listTokens(t, env, alice.Bearer()); len(tokens) != 2 || tokens[0]["name"] != "forever" {
			t.Errorf("active tokens = %v", tokens)
		}
		tokens := listTokens(t, env, alice.Bearer(), "all=true")
		if tokens[1]["name"] != "day" || tokens[1]["expires_at"] == nil || tokens[0]["expires_at"] != nil {
			t.Errorf("tokens = %v", tokens)
		}
	})
}

// A token with the tokens scope makes only tokens with no more power
// than its own; a token limited to packs makes none, since tokens reach
// the whole account (docs/protocol.md, Who may do what).
func TestTokensCannotEscalate(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		maker := bearer(makeToken(t, env, alice.Bearer(), map[string]any{
			"name": "maker", "scopes": []string{"tokens", "publish"}, "expires_in_days": 10,
		}))
		packMaker := bearer(makeToken(t, env, alice.Bearer(), map[string]any{
			"name": "pack maker", "scopes": []string{"tokens", "publish"}, "packages": []string{"widget-*"}, "expires_in_days": 10,
		}))
		refused := []struct {
			name  string
			maker string
			body  map[string]any
			msg   string
		}{
			{"a scope it lacks", maker, map[string]any{"scopes": []string{"keys"}, "expires_in_days": 5}, `lacks the "keys" scope`},
			{"every scope", maker, map[string]any{"expires_in_days": 5}, "must list scopes among those"},
			{"a later expiry", maker, map[string]any{"scopes": []string{"tokens"}, "expires_in_days": 11}, "must expire no later"},
			{"no expiry", maker, map[string]any{"scopes": []string{"tokens"}}, "must expire no later"},
			{"a maker limited to packs", packMaker, map[string]any{"scopes": []string{"publish"}, "packages": []string{"widget-x"}, "expires_in_days": 5},
				"this token is limited to the packs widget-*, so it cannot list, make or revoke tokens"},
		}
		for _, c := range refused {
			t.Run(c.name, func(t *testing.T) {
				resp := env.API.PostJSON("/api/tokens", c.body, c.maker)
				wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, c.msg)
			})
		}
		narrower := bearer(makeToken(t, env, maker, map[string]any{
			"name": "narrower", "scopes": []string{"publish"}, "packages": []string{"widget-x", "widget-*"}, "expires_in_days": 10,
		}))
		makeToken(t, env, maker, map[string]any{"name": "tokens only", "scopes": []string{"tokens"}, "expires_in_days": 1})
		if n := len(listTokens(t, env, alice.Bearer())); n != 5 {
			t.Errorf("alice has %d tokens, want 5: test, maker, pack maker, narrower, tokens only", n)
		}
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget-x", "1.0.0")}, narrower)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	})
}

// Every field of a token request has a bound; a request past one is
// refused and makes nothing.
func TestTokenRequestBounds(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		many := func(n int, f func(i int) string) []string {
			out := make([]string, n)
			for i := range out {
				out[i] = f(i)
			}
			return out
		}
		cases := []struct {
			name   string
			body   any
			status int
			msg    string
		}{
			{"too many scopes", map[string]any{"scopes": many(17, func(int) string { return "publish" })}, 400, "at most 16"},
			{"an unknown scope", map[string]any{"scopes": []string{"publish", "admin"}}, 400, `scope "admin" is not known`},
			{"scopes of the wrong type", map[string]any{"scopes": "publish"}, 400, "scopes must be an array"},
			{"too many packages", map[string]any{"scopes": []string{"publish"}, "packages": many(21, func(i int) string { return fmt.Sprintf("p%d", i) })}, 400, "at most 20"},
			{"a long glob", map[string]any{"scopes": []string{"publish"}, "packages": []string{strings.Repeat("a", 65)}}, 400, "longer than 64"},
			{"a malformed glob", map[string]any{"scopes": []string{"publish"}, "packages": []string{"widget-["}}, 400, "not a valid glob"},
			{"a glob with two slashes", map[string]any{"scopes": []string{"publish"}, "packages": []string{"acme/widget/x"}}, 400, "may hold only"},
			{"a glob whose organisation is a glob", map[string]any{"scopes": []string{"publish"}, "packages": []string{"ac*/widget"}}, 400, "has a pattern in its organisation's name"},
			{"a glob with upper case", map[string]any{"scopes": []string{"publish"}, "packages": []string{"Widget"}}, 400, "may hold only"},
			{"an empty glob", map[string]any{"scopes": []string{"publish"}, "packages": []string{" "}}, 400, "empty glob"},
			{"no packages", map[string]any{"scopes": []string{"publish"}, "packages": []string{}}, 400, "at least one"},
			{"packages without publish or yank", map[string]any{"scopes": []string{"keys"}, "packages": []string{"w"}}, 400, "add one of them"},
			{"zero days", map[string]any{"expires_in_days": 0}, 400, "between 1 and 3650"},
			{"too many days", map[string]any{"expires_in_days": 3651}, 400, "between 1 and 3650"},
			{"days as text", map[string]any{"expires_in_days": "30d"}, 400, "expires_in_days must be a whole number"},
			{"a long name", map[string]any{"name": strings.Repeat("n", 101)}, 400, "at most 100"},
			{"a control character in the name", map[string]any{"name": "ci\x1b[2J"}, 400, "control characters"},
			{"an unknown field", map[string]any{"scope": []string{"publish"}}, 400, `field "scope" is not known`},
			{"bad JSON", []byte(`{"name": "ci",`), 400, "not valid JSON"},
			{"not an object", []byte(`["publish"]`), 400, "JSON object"},
			{"a field twice", []byte(`{"scopes":["publish"],"Scopes":null}`), 400, "twice"},
			{"an empty body", []byte(``), 400, "required"},
			{"a body too large", []byte(`{"name":"` + strings.Repeat("n", 20<<10) + `"}`), 413, "larger than"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				resp := env.API.PostJSON("/api/tokens", c.body, alice.Bearer())
				wantError(t, resp.Status, resp.JSON(t), c.status, c.msg)
			})
		}
		t.Run("not JSON", func(t *testing.T) {
			resp := env.API.Post("/api/tokens", "text/plain", []byte("name=ci"), alice.Bearer())
			wantError(t, resp.Status, resp.JSON(t), http.StatusUnsupportedMediaType, "application/json")
		})
		if n := len(listTokens(t, env, alice.Bearer())); n != 1 {
			t.Errorf("alice has %d tokens after refused requests, want 1", n)
		}
	})
}

// An account holds a bounded number of active tokens; revoking one makes
// room again.
func TestActiveTokensAreBounded(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		for i := 1; i < 100; i++ { // servertest's token is the first
			makeToken(t, env, alice.Bearer(), map[string]any{"name": fmt.Sprintf("t%d", i), "scopes": []string{}})
		}
		resp := env.API.PostJSON("/api/tokens", map[string]any{"name": "one too many"}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict, "100 active tokens")
		tokens := listTokens(t, env, alice.Bearer())
		if len(tokens) != 100 || slices.ContainsFunc(tokens, func(tok map[string]any) bool { return tok["name"] == "one too many" }) {
			t.Fatalf("alice has %d tokens, want 100 without the refused one", len(tokens))
		}
		del := env.API.Delete("/api/tokens/"+jsonInt(tokens[0]["id"]), alice.Bearer())
		wantStatus(t, del.Status, http.StatusOK, del.Body)
		makeToken(t, env, alice.Bearer(), map[string]any{"name": "room again"})
	})
}
