package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/oidctest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

const releaseRef = "alice/widget/.github/workflows/release.yml@refs/heads/main"

// trustEnv is a server on each backend that allows the issuer of a real
// OpenID provider process (internal/oidctest).
func eachTrustBackend(t *testing.T, idp *oidctest.Provider, fn func(t *testing.T, env *servertest.Env)) {
	servertest.Backends(t, func(t *testing.T, dsn string) {
		fn(t, servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{idp.Issuer}}))
	})
}

func addTrust(t *testing.T, env *servertest.Env, header string, body map[string]any) map[string]any {
	t.Helper()
	resp := env.API.PostJSON("/api/trusted-publishers", body, header)
	wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
	return resp.JSON(t)
}

func TestTrustedPublishersAPI(t *testing.T) {
	idp := oidctest.Start(t)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		created := addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget", "widget-*"},
			"claims": map[string]string{"repository": "alice/widget", "job_workflow_ref": releaseRef}})
		if created["ok"] != true || created["issuer"] != idp.Issuer || fmt.Sprint(created["packages"]) != "[widget widget-*]" ||
			fmt.Sprint(created["claims"]) != "map[job_workflow_ref:"+releaseRef+" repository:alice/widget]" {
			t.Errorf("created = %v", created)
		}
		id := int64(created["id"].(float64))

		resp := env.API.Get("/api/trusted-publishers", alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if list := resp.JSON(t)["trusted_publishers"].([]any); len(list) != 1 {
			t.Errorf("alice lists %v", list)
		}
		resp = env.API.Get("/api/trusted-publishers", bob.Bearer())
		if list := resp.JSON(t)["trusted_publishers"].([]any); len(list) != 0 {
			t.Errorf("bob lists alice's trusted publishers: %v", list)
		}

		refusals := []struct {
			name   string
			body   map[string]any
			status int
			says   string
		}{
			{"issuer not allowed", map[string]any{"issuer": "https://gitlab.com", "packages": []string{"w"}, "claims": map[string]string{"project_path": "a/b"}},
				400, "is not allowed here"},
			{"no identifying claim", map[string]any{"issuer": idp.Issuer, "packages": []string{"w"}, "claims": map[string]string{"ref": "refs/heads/main"}},
				400, "claims must name repository or project_path"},
			{"unknown claim", map[string]any{"issuer": idp.Issuer, "packages": []string{"w"}, "claims": map[string]string{"repository": "a/b", "sub": "x"}},
				400, `claim "sub" is not known`},
			{"claim too long", map[string]any{"issuer": idp.Issuer, "packages": []string{"w"}, "claims": map[string]string{"repository": strings.Repeat("a", 301)}},
				400, "longer than 300 bytes"},
			{"no packages", map[string]any{"issuer": idp.Issuer, "claims": map[string]string{"repository": "a/b"}},
				400, "packages is required"},
			{"bad glob", map[string]any{"issuer": idp.Issuer, "packages": []string{"Widget"}, "claims": map[string]string{"repository": "a/b"}},
				400, "may hold only"},
			{"unknown field", map[string]any{"issuer": idp.Issuer, "packages": []string{"w"}, "claims": map[string]string{"repository": "a/b"}, "claim": 1},
				400, `field "claim" is not known`},
		}
		for _, r := range refusals {
			resp := env.API.PostJSON("/api/trusted-publishers", r.body, alice.Bearer())
			wantError(t, resp.Status, resp.JSON(t), r.status, r.says)
		}
		big := `{"issuer":"` + strings.Repeat("x", 17<<10) + `"}`
		resp = env.API.Post("/api/trusted-publishers", "application/json", []byte(big), alice.Bearer())
		wantStatus(t, resp.Status, http.StatusRequestEntityTooLarge, resp.Body)

		// The tokens scope guards them: a publish token cannot add one.
		publishOnly := makeToken(t, env, alice.Bearer(), map[string]any{"scopes": []string{"publish"}})
		resp = env.API.PostJSON("/api/trusted-publishers", map[string]any{"issuer": idp.Issuer, "packages": []string{"w"},
			"claims": map[string]string{"repository": "a/b"}}, bearer(publishOnly))
		wantError(t, resp.Status, resp.JSON(t), 403, `lacks the "tokens" scope`)

		resp = env.API.Delete(fmt.Sprintf("/api/trusted-publishers/%d", id), bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 404, "no trusted publisher")
		resp = env.API.Delete(fmt.Sprintf("/api/trusted-publishers/%d", id), alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = env.API.Get("/api/trusted-publishers", alice.Bearer())
		if list := resp.JSON(t)["trusted_publishers"].([]any); len(list) != 0 {
			t.Errorf("after the delete alice lists %v", list)
		}
	})
}

// exchange posts an ID token to /api/oidc/exchange.
func exchange(t *testing.T, env *servertest.Env, idToken string) (int, map[string]any) {
	t.Helper()
	resp := env.API.PostJSON("/api/oidc/exchange", map[string]string{"token": idToken})
	body := resp.JSON(t)
	if msg, _ := body["error"].(string); idToken != "" && strings.Contains(msg, idToken) {
		t.Errorf("the refusal quotes the ID token: %s", msg)
	}
	return resp.Status, body
}

func TestOIDCExchange(t *testing.T) {
	idp := oidctest.Start(t)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget", "widget-*"},
			"claims": map[string]string{"repository": "alice/widget", "job_workflow_ref": releaseRef}})
		addTrust(t, env, bob.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"tool"},
			"claims": map[string]string{"project_path": "bob/tool", "ci_config_ref_uri": "gitlab.com/bob/tool//.gitlab-ci.yml@refs/heads/main"}})
		github := func() map[string]any {
			return oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now())
		}

		t.Run("a good GitHub token, RS256, publishes the trusted packs only", func(t *testing.T) {
			status, body := exchange(t, env, idp.Mint("RS256", false, github()))
			wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
			secret, _ := body["token"].(string)
			if !strings.HasPrefix(secret, "pact_") || fmt.Sprint(body["packages"]) != "[widget widget-*]" {
				t.Fatalf("exchange = %v", body)
			}
			expires, err := time.Parse(time.RFC3339, body["expires_at"].(string))
			if err != nil || expires.After(env.Clock.Now().Add(15*time.Minute)) || !expires.After(env.Clock.Now()) {
				t.Errorf("expires_at = %v, want within 15 minutes", body["expires_at"])
			}
			resp := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget-cli", "1.0.0")}, bearer(secret))
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			logIndex := int64(resp.JSON(t)["log_index"].(float64))

			// Provenance: the API, the page and the transparency log name the CI job.
			resp = env.API.Get("/api/packages/alice/widget-cli")
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			ci := resp.JSON(t)["versions"].([]any)[0].(map[string]any)["ci"]
			wantCI := map[string]any{"issuer": idp.Issuer, "repository": "alice/widget", "workflow": releaseRef,
				"ref": "refs/heads/main", "sha": "3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a", "run_id": "4242424242"}
			if fmt.Sprint(ci) != fmt.Sprint(wantCI) {
				t.Errorf("ci = %v, want %v", ci, wantCI)
			}
			page := servertest.NewWebClient(t, env.URL).Get("/alice/widget-cli")
			servertest.WantPage(t, page, http.StatusOK, "Built by", strings.TrimPrefix(idp.Issuer, "http://")+"/alice/widget, workflow release.yml at 3f2a9c1… (run 4242424242)")
			entries, err := env.Store.LogEntries(t.Context(), logIndex, logIndex+1)
			if err != nil || len(entries) != 1 {
				t.Fatalf("log entry %d: %v", logIndex, err)
			}
			if e := string(entries[0]); !strings.Contains(e, "\nauth oidc\nissuer "+idp.Issuer+"\nci {") || !strings.Contains(e, `"repository":"alice/widget"`) {
				t.Errorf("log entry:\n%s", e)
			}
			resp = env.API.Get("/api/packages/alice/tool")
			if resp.Status == http.StatusOK {
				t.Errorf("tool exists before bob published it")
			}
			resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("gadget", "1.0.0")}, bearer(secret))
			wantError(t, resp.Status, resp.JSON(t), 403, "limited to the packs widget, widget-*")
			resp = env.API.PostJSON("/api/tokens", map[string]any{"name": "more"}, bearer(secret))
			wantError(t, resp.Status, resp.JSON(t), 403, `lacks the "tokens" scope`)
			resp = env.API.PostJSON("/api/packages/alice/widget-cli/versions/1.0.0/yank", map[string]any{}, bearer(secret))
			wantError(t, resp.Status, resp.JSON(t), 403, `lacks the "yank" scope`)
		})

		t.Run("a good GitLab token, ES256", func(t *testing.T) {
			claims := oidctest.GitLabClaims(idp.Issuer, env.URL, "bob/tool", "main", time.Now())
			status, body := exchange(t, env, idp.Mint("ES256", false, claims))
			wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
			if fmt.Sprint(body["packages"]) != "[tool]" {
				t.Errorf("packages = %v", body["packages"])
			}
			resp := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("tool", "0.1.0")}, bearer(body["token"].(string)))
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		})

		t.Run("keys rotated at the issuer are fetched again", func(t *testing.T) {
			idp.Rotate()
			status, body := exchange(t, env, idp.Mint("RS256", false, github()))
			wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		})

		t.Run("a jti is exchanged once", func(t *testing.T) {
			claims := github()
			status, _ := exchange(t, env, idp.Mint("RS256", false, claims))
			wantStatus(t, status, http.StatusOK, nil)
			status, body := exchange(t, env, idp.Mint("ES256", false, claims))
			wantError(t, status, body, 401, "jti check failed")
		})

		with := func(change func(c map[string]any)) map[string]any {
			c := github()
			change(c)
			return c
		}
		refusals := []struct {
			name   string
			token  func() string
			status int
			says   string
		}{
			{"wrong audience", func() string {
				return idp.Mint("RS256", false, with(func(c map[string]any) { c["aud"] = "https://other.example.com" }))
			}, 401, "audience check failed: the ID token's audience must be " + env.URL},
			{"expired", func() string {
				return idp.Mint("RS256", false, with(func(c map[string]any) {
					c["iat"], c["nbf"], c["exp"] = time.Now().Add(-time.Hour).Unix(), time.Now().Add(-time.Hour).Unix(), time.Now().Add(-time.Minute).Unix()
				}))
			}, 401, "expiry check failed"},
			{"not yet valid", func() string {
				return idp.Mint("RS256", false, with(func(c map[string]any) {
					c["nbf"], c["exp"] = time.Now().Add(time.Hour).Unix(), time.Now().Add(2*time.Hour).Unix()
				}))
			}, 401, "not-before check failed"},
			{"unknown issuer", func() string {
				return idp.Mint("RS256", false, with(func(c map[string]any) { c["iss"] = "https://token.actions.githubusercontent.com" }))
			}, 401, "issuer check failed"},
			{"alg none", func() string { return idp.Mint("none", false, github()) }, 401, "signature check failed"},
			{"signed by an unknown key", func() string { return idp.Mint("RS256", true, github()) }, 401, "signature check failed"},
			{"claims of another repository", func() string {
				return idp.Mint("RS256", false, with(func(c map[string]any) { c["repository"] = "mallory/widget" }))
			}, 403, "claims check failed"},
			{"another workflow of the trusted repository", func() string {
				return idp.Mint("RS256", false, with(func(c map[string]any) {
					c["job_workflow_ref"] = "alice/widget/.github/workflows/test.yml@refs/heads/main"
				}))
			}, 403, "claims check failed"},
			{"not a JWT", func() string { return "not-a-jwt" }, 401, "format check failed"},
			{"no token", func() string { return "" }, 401, "token is required"},
			{"too long", func() string { return strings.Repeat("a", 9<<10) }, 401, "longer than 8192 bytes"},
		}
		for _, r := range refusals {
			t.Run(r.name, func(t *testing.T) {
				status, body := exchange(t, env, r.token())
				wantError(t, status, body, r.status, r.says)
			})
		}
		t.Run("a body over 16 KiB", func(t *testing.T) {
			resp := env.API.Post("/api/oidc/exchange", "application/json", []byte(`{"token":"`+strings.Repeat("a", 17<<10)+`"}`))
			wantStatus(t, resp.Status, http.StatusRequestEntityTooLarge, resp.Body)
		})
	})
}

// An issuer that does not answer gets 503 and nothing is issued or
// published.
func TestOIDCExchangeIssuerDown(t *testing.T) {
	servertest.Backends(t, func(t *testing.T, dsn string) {
		idp := oidctest.Start(t)
		env := servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{idp.Issuer}})
		alice := env.CreateUser(t, "alice")
		addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget"},
			"claims": map[string]string{"repository": "alice/widget"}})
		idToken := idp.Mint("RS256", false, oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now()))
		idp.Stop()
		status, body := exchange(t, env, idToken)
		wantError(t, status, body, 503, "nothing was issued")
		tokens, err := env.Store.ListTokens(t.Context(), alice.Account.ID, registry.TokenFilter{})
		if err != nil || len(tokens) != 1 {
			t.Errorf("alice holds %d tokens (%v), want only her own", len(tokens), err)
		}
	})
}
