package server_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

func TestMe(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		for _, header := range []string{"Authorization: Bearer " + alice.Token, "authorization: bearer " + alice.Token, "X-Pact-Token: " + alice.Token} {
			resp := env.API.Get("/api/me", header)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			user := resp.JSON(t)["user"].(map[string]any)
			if user["username"] != "alice" || user["email"] != "alice@example.com" || jsonInt(user["id"]) == "0" || user["created_at"] == "" {
				t.Errorf("%s: user = %v", header, user)
			}
		}
		for name, header := range map[string]string{
			"no header":        "",
			"unknown token":    "Authorization: Bearer pact_0000000000000000000000000000000000000000000",
			"basic auth":       "Authorization: Basic YWxpY2U6cHc=",
			"token in X empty": "X-Pact-Token: ",
		} {
			var resp = env.API.Get("/api/me")
			if header != "" {
				resp = env.API.Get("/api/me", header)
			}
			wantError(t, resp.Status, resp.JSON(t), http.StatusUnauthorized, "token")
			if got := resp.Header.Get("WWW-Authenticate"); got != `Bearer realm="pact"` {
				t.Errorf("%s: WWW-Authenticate = %q", name, got)
			}
		}
	})
}

// GET /api/me names the token it was asked with: name, scopes, packages
// and expiry, for a client to show what its stored credentials hold.
func TestMeNamesTheToken(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		days := 30
		scoped, _, err := env.Service.IssueToken(t.Context(), alice.Account.ID, nil, registry.TokenSpec{
			Name: "ci", Scopes: []string{"publish"}, Packages: []string{"widget-*"}, ExpiresInDays: &days})
		if err != nil {
			t.Fatal(err)
		}
		resp := env.API.Get("/api/me", "Authorization: Bearer "+scoped)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		token := resp.JSON(t)["token"].(map[string]any)
		want := env.Clock.Now().AddDate(0, 0, days).UTC().Format(time.RFC3339)
		if token["name"] != "ci" || fmt.Sprint(token["scopes"]) != "[publish]" || fmt.Sprint(token["packages"]) != "[widget-*]" ||
			token["expires_at"] != want || len(token) != 4 {
			t.Errorf("token = %v, want ci, [publish], [widget-*], expiring %s, and nothing else", token, want)
		}

		resp = env.API.Get("/api/me", "Authorization: Bearer "+alice.Token)
		token = resp.JSON(t)["token"].(map[string]any)
		for _, field := range []string{"scopes", "packages", "expires_at"} {
			if v, present := token[field]; !present || v != nil {
				t.Errorf("a full token's %s = %#v (present %v), want null", field, v, present)
			}
		}
	})
}

func TestRevokedAndExpiredTokens(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		ctx := context.Background()
		alice := env.CreateUser(t, "alice")
		expiry := env.Clock.Now().Add(time.Hour)
		short, tok, err := env.Service.CreateToken(ctx, alice.Account.ID, "short", &expiry)
		if err != nil {
			t.Fatal(err)
		}
		if resp := env.API.Get("/api/me", "X-Pact-Token: "+short); resp.Status != http.StatusOK {
			t.Fatalf("fresh token: status %d", resp.Status)
		}
		env.Clock.Advance(time.Hour + time.Second)
		if resp := env.API.Get("/api/me", "X-Pact-Token: "+short); resp.Status != http.StatusUnauthorized {
			t.Errorf("expired token: status %d, want 401", resp.Status)
		}
		if err := env.Store.RevokeToken(ctx, alice.Account.ID, tok.ID+1000, env.Clock.Now()); err == nil {
			t.Errorf("revoking a token that does not exist succeeded")
		}
		tokens, err := env.Store.ListTokens(ctx, alice.Account.ID, registry.TokenFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range tokens {
			if err := env.Store.RevokeToken(ctx, alice.Account.ID, tk.ID, env.Clock.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if resp := env.API.Get("/api/me", alice.Bearer()); resp.Status != http.StatusUnauthorized {
			t.Errorf("revoked token: status %d, want 401", resp.Status)
		}
	})
}

// A token that differs from alice's in one character only (its last, or one
// in the middle) gets 401 on every token route, with either header, and
// publishes nothing.
func TestNearlyRightTokensGet401(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		change := func(i int) string {
			c := byte('A')
			if alice.Token[i] == c {
				c = 'B'
			}
			return alice.Token[:i] + string(c) + alice.Token[i+1:]
		}
		near := map[string]string{
			"last character changed":   change(len(alice.Token) - 1),
			"middle character changed": change(len(alice.Token) / 2),
		}
		for name, token := range near {
			for _, header := range []string{"Authorization: Bearer " + token, "X-Pact-Token: " + token} {
				resp := env.API.Get("/api/me", header)
				wantError(t, resp.Status, resp.JSON(t), http.StatusUnauthorized, "token")
				resp = env.API.Get("/api/ssh-keys", header)
				wantError(t, resp.Status, resp.JSON(t), http.StatusUnauthorized, "token")
				resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("near-miss", "1.0.0")}, header)
				if resp.Status != http.StatusUnauthorized {
					t.Errorf("%s: publish with %q: status %d, want 401", name, header, resp.Status)
				}
			}
		}
		if resp := env.API.Get("/api/packages/alice/near-miss"); resp.Status != http.StatusNotFound {
			t.Errorf("a near-miss token published a package: status %d", resp.Status)
		}
		// The real token still works.
		if resp := env.API.Get("/api/me", alice.Bearer()); resp.Status != http.StatusOK {
			t.Errorf("alice's own token: status %d", resp.Status)
		}
	})
}
