package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/oidctest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/idtoken"
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
	t.Parallel()
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
	return exchangeBody(t, env, idToken, map[string]string{"token": idToken})
}

// exchangeFor posts an ID token to /api/oidc/exchange with owner.
func exchangeFor(t *testing.T, env *servertest.Env, idToken, owner string) (int, map[string]any) {
	t.Helper()
	return exchangeBody(t, env, idToken, map[string]string{"token": idToken, "owner": owner})
}

func exchangeBody(t *testing.T, env *servertest.Env, idToken string, request map[string]string) (int, map[string]any) {
	t.Helper()
	resp := env.API.PostJSON("/api/oidc/exchange", request)
	body := resp.JSON(t)
	if msg, _ := body["error"].(string); idToken != "" && strings.Contains(msg, idToken) {
		t.Errorf("the refusal quotes the ID token: %s", msg)
	}
	return resp.Status, body
}

func TestOIDCExchange(t *testing.T) {
	t.Parallel()
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
			env.Clock.Advance(idtoken.KeyRefetchInterval)
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
	t.Parallel()
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

// Another account's trusted publisher with the same claims cannot block an
// exchange that names its owner, nor borrow it: the exchange then
// considers only the owner's trusted publishers. Without owner an
// ambiguous match stays refused, and says to name the owner.
func TestOIDCExchangeOwner(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice, mallory := env.CreateUser(t, "alice"), env.CreateUser(t, "mallory")
		env.CreateUser(t, "bob")
		claims := map[string]string{"repository": "alice/widget", "job_workflow_ref": releaseRef}
		addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget"}, "claims": claims})
		idToken := idp.Mint("RS256", false, oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now()))

		// Alice's trust alone: no owner is needed.
		status, body := exchange(t, env, idp.Mint("RS256", false, oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now())))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))

		addTrust(t, env, mallory.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"gadget"}, "claims": claims})
		status, body = exchange(t, env, idToken)
		wantError(t, status, body, 403, `trusted publishers of more than one account match this job's claims (repository alice/widget); name the account whose packs it publishes: "owner" in the exchange`)

		for _, r := range []struct {
			owner  string
			status int
			says   string
		}{
			{"bob", 403, "no trusted publisher of issuer " + idp.Issuer + ", among those of bob, matches this job's claims"},
			{"nobody", 403, "claims check failed: there is no user or organisation nobody"},
			{strings.Repeat("a", 65), 400, "owner must be a user's or an organisation's name"},
		} {
			status, body := exchangeFor(t, env, idToken, r.owner)
			wantError(t, status, body, r.status, r.says)
		}
		resp := env.API.PostJSON("/api/oidc/exchange", map[string]string{"token": idToken, "owners": "alice"})
		wantError(t, resp.Status, resp.JSON(t), 400, `field "owners" is not known: an exchange has token and owner`)

		// The refusals spent nothing: the same ID token, naming its owner,
		// gets alice's token, for her packs only.
		status, body = exchangeFor(t, env, idToken, " Alice ")
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		if fmt.Sprint(body["packages"]) != "[widget]" {
			t.Errorf("packages = %v, want alice's only", body["packages"])
		}
		secret := body["token"].(string)
		resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.0.0")}, bearer(secret))
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if got := resp.JSON(t)["package"].(map[string]any)["owner_slug"]; got != "alice" {
			t.Errorf("published into %v, want alice", got)
		}
		// Mallory's trust, named, gives mallory's token, for mallory's packs.
		mtok := idp.Mint("RS256", false, oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now()))
		status, body = exchangeFor(t, env, mtok, "mallory")
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		if fmt.Sprint(body["packages"]) != "[gadget]" {
			t.Errorf("packages = %v, want mallory's only", body["packages"])
		}
	})
}

// A trust that requires repository_id is bound to that repository: one
// re-created under the same name (another id) does not inherit it. Lists
// mark the trusts bound by names only.
func TestOIDCExchangeBindingClaims(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bound := addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget"},
			"claims": map[string]string{"repository": "alice/widget", "repository_id": "123456", "repository_owner_id": "654321"}})
		if bound["names_only"] != false {
			t.Errorf("a trust with repository_id: names_only = %v", bound["names_only"])
		}
		named := addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"gadget"},
			"claims": map[string]string{"project_path": "alice/gadget"}})
		if named["names_only"] != true {
			t.Errorf("a trust by project_path only: names_only = %v", named["names_only"])
		}
		addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"tool"},
			"claims": map[string]string{"project_path": "alice/tool", "project_id": "20", "namespace_id": "72"}})
		resp := env.API.Get("/api/trusted-publishers", alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		var marks []any
		for _, p := range resp.JSON(t)["trusted_publishers"].([]any) {
			marks = append(marks, p.(map[string]any)["names_only"])
		}
		if fmt.Sprint(marks) != "[false true false]" {
			t.Errorf("names_only in the list = %v, want [false true false]", marks)
		}
		for _, bad := range []map[string]string{
			{"repository": "alice/widget", "repository_id": "R_kgDO"},
			{"project_path": "alice/tool", "namespace_id": "-72"},
			{"repository": "alice/widget", "repository_owner_id": strings.Repeat("1", 21)},
		} {
			resp := env.API.PostJSON("/api/trusted-publishers", map[string]any{"issuer": idp.Issuer, "packages": []string{"w"}, "claims": bad}, alice.Bearer())
			wantError(t, resp.Status, resp.JSON(t), 400, "must be a decimal id of at most 20 digits")
		}

		github := func(repoID string) string {
			c := oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now())
			c["repository_id"] = repoID
			return idp.Mint("RS256", false, c)
		}
		status, body := exchange(t, env, github("999999"))
		wantError(t, status, body, 403, "no trusted publisher of issuer "+idp.Issuer+" matches this job's claims (repository alice/widget)")
		status, body = exchange(t, env, github("123456"))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		if fmt.Sprint(body["packages"]) != "[widget]" {
			t.Errorf("packages = %v", body["packages"])
		}
		gl := oidctest.GitLabClaims(idp.Issuer, env.URL, "alice/tool", "main", time.Now())
		status, body = exchange(t, env, idp.Mint("ES256", false, gl))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		gl = oidctest.GitLabClaims(idp.Issuer, env.URL, "alice/tool", "main", time.Now())
		gl["project_id"] = "21"
		status, body = exchange(t, env, idp.Mint("ES256", false, gl))
		wantError(t, status, body, 403, "claims check failed")
	})
}

// Forged ID tokens (an allowed iss, an unknown kid or a known one, a junk
// signature) do not each make pactd fetch the issuer's keys: a kid among
// the keys held fetches nothing, an unknown one at most once per
// KeyRefetchInterval. The provider counts its JWKS requests.
func TestOIDCExchangeKeyFetches(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{OIDCIssuers: []string{idp.Issuer}})
	alice := env.CreateUser(t, "alice")
	addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget"},
		"claims": map[string]string{"repository": "alice/widget"}})
	github := func() map[string]any {
		return oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now())
	}
	good := func(t *testing.T) {
		t.Helper()
		status, body := exchange(t, env, idp.Mint("RS256", false, github()))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
	}
	forged := func(t *testing.T, n int, token func(i int) string) {
		t.Helper()
		for i := range n {
			status, body := exchange(t, env, token(i))
			wantError(t, status, body, 401, "signature check failed")
		}
	}
	unknownKid := func(i int) string { return idp.MintUnknownKey("RS256", fmt.Sprintf("forged-%d", i), github()) }
	// A known kid and header, the signature of another payload.
	junkSignature := func(int) string {
		a := strings.Split(idp.Mint("RS256", false, github()), ".")
		b := strings.Split(idp.Mint("RS256", false, github()), ".")
		return a[0] + "." + a[1] + "." + b[2]
	}
	hits := func() int { return idp.JWKSHits() }

	good(t) // discovery and the first fetch
	start := hits()
	if start != 1 {
		t.Fatalf("the first exchange fetched the JWKS %d times, want 1", start)
	}
	forged(t, 20, unknownKid)
	forged(t, 20, junkSignature)
	if n := hits() - start; n != 0 {
		t.Errorf("40 forged tokens within %s of the last fetch fetched the JWKS %d times, want 0", idtoken.KeyRefetchInterval, n)
	}

	env.Clock.Advance(idtoken.KeyRefetchInterval)
	forged(t, 20, junkSignature)
	if n := hits() - start; n != 0 {
		t.Errorf("20 forged tokens of a kid held fetched the JWKS %d times, want 0", n)
	}
	forged(t, 20, unknownKid)
	if n := hits() - start; n != 1 {
		t.Errorf("20 forged tokens of unknown kids, %s after the last fetch, fetched the JWKS %d times, want 1", idtoken.KeyRefetchInterval, n)
	}
	good(t)

	// Keys rotated right after a fetch are fetched once the interval has
	// passed; the exchanges before are refused and change nothing.
	idp.Rotate()
	status, body := exchange(t, env, idp.Mint("RS256", false, github()))
	wantError(t, status, body, 401, "signature check failed")
	env.Clock.Advance(idtoken.KeyRefetchInterval - time.Second)
	status, body = exchange(t, env, idp.Mint("RS256", false, github()))
	wantError(t, status, body, 401, "signature check failed")
	if n := hits() - start; n != 1 {
		t.Errorf("the JWKS was fetched %d times in all before the interval passed, want 1", n)
	}
	env.Clock.Advance(time.Second)
	good(t)
	if n := hits() - start; n != 2 {
		t.Errorf("the JWKS was fetched %d times in all, want 2", n)
	}
}

// A token of issuer B whose claims match a trusted publisher of issuer A
// is refused, with or without owner: a trust holds for its issuer only.
// Two real providers, both allowed.
func TestOIDCExchangeOtherIssuer(t *testing.T) {
	t.Parallel()
	a, b := oidctest.Start(t), oidctest.Start(t)
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{a.Issuer, b.Issuer}})
		alice := env.CreateUser(t, "alice")
		addTrust(t, env, alice.Bearer(), map[string]any{"issuer": a.Issuer, "packages": []string{"widget"},
			"claims": map[string]string{"repository": "alice/widget", "job_workflow_ref": releaseRef}})
		fromB := func() string {
			return b.Mint("RS256", false, oidctest.GitHubClaims(b.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now()))
		}
		status, body := exchange(t, env, fromB())
		wantError(t, status, body, 403, "claims check failed: no trusted publisher of issuer "+b.Issuer+" matches")
		status, body = exchangeFor(t, env, fromB(), "alice")
		wantError(t, status, body, 403, "claims check failed: no trusted publisher of issuer "+b.Issuer+", among those of alice, matches")
		tokens, err := env.Store.ListTokens(t.Context(), alice.Account.ID, registry.TokenFilter{})
		if err != nil || len(tokens) != 1 {
			t.Errorf("alice holds %d tokens (%v), want only her own", len(tokens), err)
		}
		// The same claims from A are accepted.
		status, body = exchange(t, env, a.Mint("RS256", false, oidctest.GitHubClaims(a.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now())))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
	})
}
