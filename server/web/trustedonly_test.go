package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// The package page says when only CI may publish the package, and stops
// saying it once the owner turns the setting off.
func TestPackagePageSaysOnlyCIPublishes(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{})
		alice := env.CreateUser(t, "alice")
		publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
		web := servertest.NewWebClient(t, env.URL)
		const line = "Only CI may publish: trusted publishing only."
		if page := web.Get("/alice/widget"); strings.Contains(page.Body, line) {
			t.Fatal("the page of a package anyone with a token may publish says only CI may")
		}
		set := func(only bool) {
			t.Helper()
			if only { // a token sets it; only a session lifts it
				resp := env.API.PatchJSON("/api/packages/alice/widget", map[string]any{"trusted_publishing_only": only}, alice.Bearer())
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				return
			}
			owner := servertest.NewWebClient(t, env.URL)
			owner.Login(alice)
			if r := owner.Post("/dashboard/packages/widget/trusted-publishing-only", url.Values{"only": {"false"}}); r.Status != http.StatusSeeOther {
				t.Fatalf("turning it off on the dashboard: status %d; body:\n%s", r.Status, r.Body)
			}
		}
		set(true)
		for _, path := range []string{"/alice/widget", "/alice/widget@1.0.0"} {
			page := web.Get(path)
			servertest.WantPage(t, page, http.StatusOK, "<dt>Publishing</dt><dd>"+line)
			assertNoInlineCode(t, page.Body)
		}
		set(false)
		if page := web.Get("/alice/widget"); strings.Contains(page.Body, line) {
			t.Error("the page still says only CI may publish after the owner turned it off")
		}
	})
}

// The dashboard's trusted publishers page sets and lifts trusted publishing
// only for each of the account's packages, as the API does, and the
// overview marks such a package.
func TestDashboardTrustedPublishingOnly(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{})
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		setting := func() bool {
			t.Helper()
			resp := env.API.Get("/api/packages/alice/widget")
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			return resp.JSON(t)["package"].(map[string]any)["trusted_publishing_only"].(bool)
		}

		page := web.Get("/dashboard/trusted-publishers")
		servertest.WantPage(t, page, http.StatusOK, `<h2 id="trusted-only-heading">Trusted publishing only</h2>`,
			`<form action="/dashboard/packages/widget/trusted-publishing-only" method="post"><input type="hidden" name="only" value="true">`,
			"tokens, SSH keys and CI")
		assertNoInlineCode(t, page.Body)

		servertest.WantPage(t, web.Post("/dashboard/packages/widget/trusted-publishing-only", url.Values{"only": {"maybe"}}), http.StatusBadRequest,
			"choose whether only CI may publish the package")
		r := web.Post("/dashboard/packages/widget/trusted-publishing-only", url.Values{"only": {"true"}})
		servertest.WantRedirect(t, r, "/dashboard/trusted-publishers?done=trusted-only-on#trusted-only")
		if !setting() {
			t.Fatal("the dashboard's form did not set trusted publishing only")
		}
		servertest.WantPage(t, web.Get("/dashboard/trusted-publishers?done=trusted-only-on"), http.StatusOK,
			"The package is set to trusted publishing only", `<span class="tag">CI only</span> trusted publishing only`, `<input type="hidden" name="only" value="false">`)
		servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, `>CI only</span>`)
		resp := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusForbidden, resp.Body)

		// Bob's dashboard acts on bob's packages only: he has no widget.
		other := servertest.NewWebClient(t, env.URL)
		other.Login(bob)
		servertest.WantPage(t, other.Post("/dashboard/packages/widget/trusted-publishing-only", url.Values{"only": {"false"}}), http.StatusNotFound)
		if !setting() {
			t.Fatal("bob's form changed alice's package")
		}

		r = web.Post("/dashboard/packages/widget/trusted-publishing-only", url.Values{"only": {"false"}})
		servertest.WantRedirect(t, r, "/dashboard/trusted-publishers?done=trusted-only-off#trusted-only")
		if setting() {
			t.Fatal("the dashboard's form did not lift trusted publishing only")
		}
		resp = env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	})
}
