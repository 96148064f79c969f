package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/oidctest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// setTrustedOnly sends PATCH /api/packages/{pkg} {"trusted_publishing_only": only}.
func setTrustedOnly(env *servertest.Env, pkg string, only bool, header string) *apitest.Response {
	return env.API.PatchJSON("/api/packages/"+pkg, map[string]any{"trusted_publishing_only": only}, header)
}

// logSize is how many entries the log holds, once those appended so far
// are sequenced (the background sequencer adds nothing after that).
func logSize(t *testing.T, env *servertest.Env) int64 {
	t.Helper()
	if _, err := env.Service.SequenceLog(context.Background()); err != nil {
		t.Fatal(err)
	}
	size, _, err := env.Service.LogHead(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// trustedOnlyOf reads the setting as GET /api/packages/{pkg} and the list
// show it.
func trustedOnlyOf(t *testing.T, env *servertest.Env, pkg string) (detail, listed bool) {
	t.Helper()
	resp := env.API.Get("/api/packages/" + pkg)
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	detail = resp.JSON(t)["package"].(map[string]any)["trusted_publishing_only"].(bool)
	owner, _, _ := strings.Cut(pkg, "/")
	resp = env.API.Get("/api/packages?owner=" + owner)
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	for _, p := range resp.JSON(t)["packages"].([]any) {
		if p := p.(map[string]any); p["owner_slug"].(string)+"/"+p["pack_slug"].(string) == pkg {
			listed = p["trusted_publishing_only"].(bool)
		}
	}
	return detail, listed
}

// A package set to trusted publishing only takes publishes from CI jobs of
// its trusted publishers alone: a token publish and an SSH-signed publish
// are refused with 403 naming the setting, a token exchanged for a CI
// job's ID token publishes, and that token cannot turn the setting off.
// Only the owner changes it, each change is a log entry, and pactd log
// check passes.
func TestTrustedPublishingOnly(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		key := registerKey(t, env, alice, priv, pub)
		resp := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		addTrust(t, env, alice.Bearer(), map[string]any{"issuer": idp.Issuer, "packages": []string{"widget"},
			"claims": map[string]string{"repository": "alice/widget", "job_workflow_ref": releaseRef}})
		if detail, listed := trustedOnlyOf(t, env, "alice/widget"); detail || listed {
			t.Fatalf("a new package is trusted publishing only: detail %v, list %v", detail, listed)
		}

		// Only the owner, with the yank scope, and with a body that says it.
		resp = setTrustedOnly(env, "alice/widget", true, bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "only alice may change the settings of alice/widget")
		publishOnly := makeToken(t, env, alice.Bearer(), map[string]any{"scopes": []string{"publish"}})
		resp = setTrustedOnly(env, "alice/widget", true, bearer(publishOnly))
		wantError(t, resp.Status, resp.JSON(t), 403, `lacks the "yank" scope`)
		resp = env.API.PatchJSON("/api/packages/alice/widget", map[string]any{}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 400, "trusted_publishing_only is required")
		resp = env.API.PatchJSON("/api/packages/alice/widget", map[string]any{"trusted_publishing_only": true, "deprecated": "x"}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 400, `field "deprecated" is not known`)
		resp = env.API.PatchJSON("/api/packages/alice/widget", map[string]any{"trusted_publishing_only": "yes"}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 400, "trusted_publishing_only must be true or false")
		resp = setTrustedOnly(env, "alice/nothing", true, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 404, "no such package")
		if detail, _ := trustedOnlyOf(t, env, "alice/widget"); detail {
			t.Fatal("a refused change changed the setting")
		}

		resp = setTrustedOnly(env, "alice/widget", true, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if p := resp.JSON(t)["package"].(map[string]any); p["trusted_publishing_only"] != true || p["version"] != "1.0.0" {
			t.Errorf("PATCH answered %v", p)
		}
		if detail, listed := trustedOnlyOf(t, env, "alice/widget"); !detail || !listed {
			t.Errorf("after setting it: detail %v, list %v; want both true", detail, listed)
		}
		// Again: 200, and nothing more to log.
		resp = setTrustedOnly(env, "alice/widget", true, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)

		// A token publish and a signed publish are refused, naming the setting.
		resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "alice/widget is set to trusted publishing only (trusted_publishing_only)")
		resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "trusted_publishing_only") // the identical version too
		signedDoc := packDoc("widget", "1.1.0")
		signedReq := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), signedDoc, "", "")
		resp = env.API.PostJSON("/api/publish-signed", signedReq)
		wantError(t, resp.Status, resp.JSON(t), 403, "trusted_publishing_only")
		// Another package of alice's is not affected.
		resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("gadget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)

		// The page says who may publish.
		web := servertest.NewWebClient(t, env.URL)
		servertest.WantPage(t, web.Get("/alice/widget"), http.StatusOK, "Only CI may publish", "trusted publishing only")

		// A CI job's exchanged token publishes, and cannot lift the lock.
		status, body := exchange(t, env, idp.Mint("RS256", false,
			oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/widget", "release.yml", "refs/heads/main", time.Now())))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		ci := bearer(body["token"].(string))
		resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.1.0")}, ci)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = setTrustedOnly(env, "alice/widget", false, ci)
		wantError(t, resp.Status, resp.JSON(t), 403, "a token from trusted publishing cannot change trusted_publishing_only")
		if detail, _ := trustedOnlyOf(t, env, "alice/widget"); !detail {
			t.Fatal("the CI job's token turned the setting off")
		}

		// No token lifts the lock, not even the owner's full-power one:
		// it is there for the day a token is stolen (docs/protocol.md,
		// Who may do what). Nothing changes, nothing is logged.
		size := logSize(t, env)
		resp = setTrustedOnly(env, "alice/widget", false, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "an API token cannot turn trusted_publishing_only off")
		if detail, _ := trustedOnlyOf(t, env, "alice/widget"); !detail || logSize(t, env) != size {
			t.Fatal("the owner's token turned the setting off")
		}

		// Off again, in the owner's logged-in browser session: tokens and
		// keys publish; the refused signed publish spent no nonce.
		web.Login(alice)
		r := web.Post("/dashboard/packages/widget/trusted-publishing-only", url.Values{"only": {"false"}})
		if r.Status != http.StatusSeeOther {
			t.Fatalf("turning it off on the dashboard: status %d; body:\n%s", r.Status, r.Body)
		}
		if detail, listed := trustedOnlyOf(t, env, "alice/widget"); detail || listed {
			t.Errorf("after turning it off: detail %v, list %v", detail, listed)
		}
		signedReq = signedBody(t, key, env.Clock.Now().Unix(), signedReq["nonce"].(string), packDoc("widget", "1.2.0"), "", "")
		resp = env.API.PostJSON("/api/publish-signed", signedReq)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.3.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)

		// The log: key, 1.0.0, on, gadget, CI's 1.1.0, off, 1.2.0, 1.3.0,
		// each publish followed by its pack-state entry; the second "on"
		// changed nothing and is not logged.
		l := logtest.WaitFor(t, env.URL, 13)
		var kinds []string
		for _, e := range l.Entries {
			kinds = append(kinds, logtest.Field(e, "kind"))
		}
		if want := "key-add publish pack-state trusted-publishing-only publish pack-state publish pack-state trusted-publishing-only publish pack-state publish pack-state"; strings.Join(kinds, " ") != want {
			t.Errorf("log kinds %q, want %q", strings.Join(kinds, " "), want)
		}
		for i, want := range map[int]string{3: "true", 8: "false"} {
			e := l.Entries[i]
			if logtest.Field(e, "owner") != "alice" || logtest.Field(e, "pack") != "widget" || logtest.Field(e, "value") != want || logtest.Field(e, "by") != "alice" {
				t.Errorf("log entry %d:\n%s\nwant alice/widget value %s by alice", i, e, want)
			}
		}
		var report []string
		if err := env.Service.CheckLog(t.Context(), func(line string) { report = append(report, line) }); err != nil {
			t.Fatalf("the log check (pactd log check) fails: %v", err)
		}
		if !strings.Contains(strings.Join(report, "\n"), "package settings: 0 packages trusted publishing only") {
			t.Errorf("the log check says:\n%s", strings.Join(report, "\n"))
		}
	})
}

// In an organisation the setting is its owners' to change, as deprecating
// is: a maintainer, who may publish, may not lift or set it.
func TestTrustedPublishingOnlyInAnOrganisation(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		resp := o.publish(t, o.bob, map[string]any{"content": packDoc("rocket", "1.0.0"), "owner": "acme"})
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = setTrustedOnly(o.Env, "acme/rocket", true, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "only owners of the organisation acme may change the settings of its packages; bob is a maintainer")
		resp = setTrustedOnly(o.Env, "acme/rocket", true, o.mallory.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "mallory is not a member of the organisation acme")
		resp = setTrustedOnly(o.Env, "acme/rocket", true, o.alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		// Neither the maintainer's token nor the owner's publishes now.
		for _, u := range []*servertest.User{o.bob, o.alice} {
			resp = o.publish(t, u, map[string]any{"content": packDoc("rocket", "1.1.0"), "owner": "acme"})
			wantError(t, resp.Status, resp.JSON(t), 403, "acme/rocket is set to trusted publishing only")
		}
		l := logtest.WaitFor(t, o.URL, 5) // alice and bob's member entries, rocket 1.0.0 and its state, the setting
		if e := l.Entries[4]; logtest.Field(e, "kind") != "trusted-publishing-only" || logtest.Field(e, "owner") != "acme" || logtest.Field(e, "by") != "alice" {
			t.Errorf("log entry 4:\n%s\nwant acme/rocket's setting, by alice", e)
		}
		var report []string
		if err := o.Service.CheckLog(t.Context(), func(line string) { report = append(report, line) }); err != nil {
			t.Fatalf("the log check fails: %v", err)
		}
		if !strings.Contains(strings.Join(report, "\n"), "package settings: 1 packages trusted publishing only") {
			t.Errorf("the log check says:\n%s", strings.Join(report, "\n"))
		}
	})
}
