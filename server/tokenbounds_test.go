package server_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/oidctest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

// seedTokens stores n tokens of account directly (an exchange or a POST
// each would take minutes), exchanged ones when ci is set, each ending at
// expires (nil: never).
func seedTokens(t *testing.T, env *servertest.Env, account int64, prefix string, n int, ci bool, expires *time.Time) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("%s-%04d", prefix, i)
		sum := sha256.Sum256([]byte(name))
		tok := &registry.Token{AccountID: account, Name: name, Hash: sum[:], CreatedAt: env.Clock.Now(), ExpiresAt: expires}
		if ci {
			tok.Scopes = []registry.Scope{registry.ScopePublish}
			tok.CI = &registry.CIIdentity{Issuer: "https://token.actions.githubusercontent.com", Repository: "alice/widget"}
		}
		if err := env.Store.CreateToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
}

// Tokens from trusted publishing have a bound of their own: 90 exchanges
// in a quarter of an hour once made POST /api/tokens, and every further
// exchange, 409. Now the account's own tokens are counted apart, 1,000
// exchanged ones active at once make the next exchange 409, and that
// refusal leaves the ID token's jti unspent: the same ID token is
// exchanged once a token ends.
func TestExchangedTokensHaveTheirOwnBound(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget"},
			"claims": map[string]string{"repository": "alice/widget"}})
		idToken := func() string {
			return idp.Mint("RS256", false, oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", env.Clock.Now()))
		}
		for i := range 95 {
			if status, body := exchange(t, env, idToken()); status != http.StatusOK {
				t.Fatalf("exchange %d: %d %v", i+1, status, body)
			}
		}
		// 95 exchanged tokens and servertest's: alice's own are not
		// crowded out, up to 100 of them.
		for i := 1; i < 100; i++ {
			makeToken(t, env, alice.Bearer(), map[string]any{"name": fmt.Sprintf("own %d", i), "scopes": []string{}})
		}
		resp := env.API.PostJSON("/api/tokens", map[string]any{"name": "one too many"}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict, "100 active tokens")
		if n := len(listTokens(t, env, alice.Bearer())); n != 195 {
			t.Errorf("alice lists %d active tokens, want 195", n)
		}

		// Up to 1,000 exchanged ones, the next exchange is refused, and its
		// jti not spent.
		ends := env.Clock.Now().Add(registry.ExchangedTokenLifetime)
		seedTokens(t, env, alice.Account.ID, "ci", 1000-95, true, &ends)
		again := idToken()
		status, body := exchange(t, env, again)
		wantError(t, status, body, http.StatusConflict, "1000 active tokens from trusted publishing")
		exchanged := listTokens(t, env, alice.Bearer())[0]
		del := env.API.Delete("/api/tokens/"+jsonInt(exchanged["id"]), alice.Bearer())
		wantStatus(t, del.Status, http.StatusOK, del.Body)
		if status, body := exchange(t, env, again); status != http.StatusOK {
			t.Fatalf("the refused ID token again, with room: %d %v; want its jti unspent", status, body)
		}
		// Spent now: with room again, the same ID token is refused.
		del = env.API.Delete("/api/tokens/"+jsonInt(listTokens(t, env, alice.Bearer())[1]["id"]), alice.Bearer())
		wantStatus(t, del.Status, http.StatusOK, del.Body)
		status, body = exchange(t, env, again)
		wantError(t, status, body, http.StatusUnauthorized, "jti check failed")

		// Once they expire, there is room for many again.
		env.Clock.Advance(registry.ExchangedTokenLifetime)
		if status, body := exchange(t, env, idToken()); status != http.StatusOK {
			t.Errorf("an exchange once the others expired: %d %v", status, body)
		}
	})
}

// Tokens that ended are deleted --token-retention after, except those a
// version was published with; the token list and the dashboard show the
// active ones, a page at a time, whatever the number of ended ones (30,000
// expired rows once made the dashboard 17 MB).
func TestEndedTokensArePruned(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		ctx := context.Background()
		day := makeToken(t, env, alice.Bearer(), map[string]any{"name": "day", "expires_in_days": 1})
		publisher := makeToken(t, env, alice.Bearer(), map[string]any{"name": "publisher", "scopes": []string{"publish"}})
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("Widget", "1.0.0")}, bearer(publisher))
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		revoked := makeToken(t, env, alice.Bearer(), map[string]any{"name": "revoked"})
		for _, secret := range []string{publisher, revoked} {
			_, tok, err := env.Service.AuthenticateToken(ctx, secret)
			if err != nil {
				t.Fatal(err)
			}
			if err := env.Service.RevokeToken(ctx, alice.Account.ID, tok.ID); err != nil {
				t.Fatal(err)
			}
		}
		_, dayToken, _ := env.Service.AuthenticateToken(ctx, day)
		ended := env.Clock.Now().Add(-time.Minute)
		seedTokens(t, env, alice.Account.ID, "ended", 300, true, &ended)
		seedTokens(t, env, alice.Account.ID, "laptop", 150, false, nil)

		// The list and the dashboard: the 152 active tokens only, paged.
		active := listTokens(t, env, alice.Bearer())
		if len(active) != 152 || active[0]["name"] != "laptop-0149" || active[151]["name"] != "test" {
			t.Errorf("%d active tokens listed, want 152 newest first", len(active))
		}
		resp = env.API.Get("/api/tokens", alice.Bearer())
		if page := resp.JSON(t); len(page["tokens"].([]any)) != 20 || page["next_cursor"] == nil {
			t.Errorf("the first page holds %d tokens, next_cursor %v; want 20 and a cursor", len(page["tokens"].([]any)), page["next_cursor"])
		}
		wantStatus(t, env.API.Get("/api/tokens?all=maybe", alice.Bearer()).Status, http.StatusBadRequest, nil)
		wantStatus(t, env.API.Get("/api/tokens?limit=101", alice.Bearer()).Status, http.StatusBadRequest, nil)
		if n := len(listTokens(t, env, alice.Bearer(), "all=true")); n != 154+300 {
			t.Errorf("all=true lists %d tokens, want %d", n, 154+300)
		}
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		rows := regexp.MustCompile(`<tr class="token-`)
		page := web.Get("/dashboard/tokens")
		servertest.WantPage(t, page, http.StatusOK, "Older tokens")
		if n := len(rows.FindAllString(page.Body, -1)); n != 100 || strings.Contains(page.Body, "ended-0") {
			t.Errorf("the dashboard shows %d token rows (ended ones: %v), want the 100 newest active", n, strings.Contains(page.Body, "ended-0"))
		}
		older := regexp.MustCompile(`href="(/dashboard/tokens\?cursor=[^"]+)"`).FindStringSubmatch(page.Body)
		if older == nil {
			t.Fatal("no link to older tokens")
		}
		page = web.Get(strings.ReplaceAll(older[1], "&amp;", "&"))
		servertest.WantPage(t, page, http.StatusOK, "Newest tokens", "laptop-0000", "day")
		if n := len(rows.FindAllString(page.Body, -1)); n != 52 || strings.Contains(page.Body, "Older tokens") {
			t.Errorf("the second page of the dashboard shows %d token rows, want 52 and no older page", n)
		}

		// 32 days later (30 after the day token expired, and a day more), what ended is gone; what a version names
		// and what is active stay.
		env.Clock.Advance(32 * 24 * time.Hour)
		n, err := env.Service.PruneTokens(ctx)
		if err != nil || n != 300+2 {
			t.Fatalf("PruneTokens = %d, %v; want %d", n, err, 300+2)
		}
		all := listTokens(t, env, alice.Bearer(), "all=true")
		names := map[string]bool{}
		for _, tok := range all {
			names[tok["name"].(string)] = true
		}
		if len(all) != 152 || names["day"] || names["revoked"] || names["ended-0000"] || !names["publisher"] || !names["laptop-0000"] {
			t.Errorf("after pruning, all=true lists %d tokens: %v", len(all), names)
		}
		if _, err := env.Store.TokenByID(ctx, dayToken.ID); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("the expired token's row is still there: %v", err)
		}
		v := env.API.Get("/api/packages/alice/widget").JSON(t)["versions"].([]any)[0].(map[string]any)
		if by := v["published_by"].(map[string]any); by["token_id"] == nil {
			t.Errorf("the version lost its token: published_by %v", by)
		}
		if n, err := env.Service.PruneTokens(ctx); err != nil || n != 0 {
			t.Errorf("PruneTokens again = %d, %v; want nothing", n, err)
		}
	})
}
