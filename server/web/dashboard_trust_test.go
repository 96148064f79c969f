package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

const githubIssuer = "https://token.actions.githubusercontent.com"

// The dashboard adds, lists and removes trusted publishers; what it adds is
// what the API lists, and a bad form changes nothing.
func TestDashboardTrustedPublishers(t *testing.T) {
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{githubIssuer}})
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, "Trusted publishers", `<option value="`+githubIssuer+`"`, "No trusted publishers yet.")

		listAPI := func(who *servertest.User) []any {
			t.Helper()
			r := env.API.Get("/api/trusted-publishers", who.Bearer())
			wantStatus(t, r.Status, http.StatusOK, r.Body)
			return r.JSON(t)["trusted_publishers"].([]any)
		}
		for _, c := range []struct {
			name   string
			form   url.Values
			status int
			want   string
		}{
			{"no identifying claim", url.Values{"issuer": {githubIssuer}, "packages": {"widget"}, "claims": {"ref=refs/heads/main"}}, 400, "repository or project_path"},
			{"a line without =", url.Values{"issuer": {githubIssuer}, "packages": {"widget"}, "claims": {"repository alice/widget"}}, 400, "name=value"},
			{"an unknown claim", url.Values{"issuer": {githubIssuer}, "packages": {"widget"}, "claims": {"repository=alice/widget\nbranch=main"}}, 400, "is not known"},
			{"an issuer not allowed", url.Values{"issuer": {"https://gitlab.com"}, "packages": {"widget"}, "claims": {"repository=alice/widget"}}, 400, "not allowed here"},
			{"no packages", url.Values{"issuer": {githubIssuer}, "packages": {""}, "claims": {"repository=alice/widget"}}, 400, "packages"},
		} {
			t.Run(c.name, func(t *testing.T) {
				servertest.WantPage(t, web.Post("/dashboard/trusted-publishers", c.form), c.status, c.want)
			})
		}
		if n := len(listAPI(alice)); n != 0 {
			t.Fatalf("refused forms stored %d trusted publishers", n)
		}

		r := web.Post("/dashboard/trusted-publishers", url.Values{"issuer": {githubIssuer}, "packages": {"widget, widget-*"},
			"claims": {"repository=alice/widget\r\njob_workflow_ref=alice/widget/.github/workflows/release.yml@refs/heads/main\r\n"}})
		servertest.WantRedirect(t, r, "/dashboard?done=trust-added#trusted")
		page := web.Get("/dashboard?done=trust-added")
		servertest.WantPage(t, page, http.StatusOK, "The trusted publisher is added", "<code>widget widget-*</code>",
			"<code>job_workflow_ref=alice/widget/.github/workflows/release.yml@refs/heads/main</code>", "<code>repository=alice/widget</code><br>",
			`a repository re-created under this name inherits the trust">names only</span>`)
		api := listAPI(alice)
		if len(api) != 1 {
			t.Fatalf("the API lists %d trusted publishers, want 1", len(api))
		}
		tp := api[0].(map[string]any)
		if tp["issuer"] != githubIssuer || tp["claims"].(map[string]any)["repository"] != "alice/widget" {
			t.Errorf("the API shows %v", tp)
		}
		if n := len(listAPI(bob)); n != 0 {
			t.Errorf("bob sees %d trusted publishers", n)
		}

		id := regexp.MustCompile(`action="/dashboard/trusted-publishers/(\d+)/remove"`).FindStringSubmatch(page.Body)
		if id == nil {
			t.Fatalf("no remove button:\n%s", page.Body)
		}
		// Another account cannot remove it.
		other := servertest.NewWebClient(t, env.URL)
		other.Login(bob)
		servertest.WantPage(t, other.Post("/dashboard/trusted-publishers/"+id[1]+"/remove", nil), http.StatusNotFound)
		servertest.WantPage(t, other.Post("/dashboard/trusted-publishers/"+id[1]+"/remove", confirmed), http.StatusNotFound)
		servertest.WantPage(t, web.Post("/dashboard/trusted-publishers/"+id[1]+"/remove", nil), http.StatusOK, "Remove the trusted publisher for widget")
		if n := len(listAPI(alice)); n != 1 {
			t.Errorf("asking to remove the trusted publisher removed it")
		}
		servertest.WantRedirect(t, web.Post("/dashboard/trusted-publishers/"+id[1]+"/remove", confirmed), "/dashboard?done=trust-removed#trusted")
		if n := len(listAPI(alice)); n != 0 {
			t.Errorf("%d trusted publishers after removing the only one", n)
		}

		// A trust bound to the repository's id is not marked.
		r = web.Post("/dashboard/trusted-publishers", url.Values{"issuer": {githubIssuer}, "packages": {"widget"},
			"claims": {"repository=alice/widget\nrepository_id=123456"}})
		servertest.WantRedirect(t, r, "/dashboard?done=trust-added#trusted")
		page = web.Get("/dashboard")
		servertest.WantPage(t, page, http.StatusOK, "<code>repository_id=123456</code>")
		if regexp.MustCompile(`>names only</span>`).MatchString(page.Body) {
			t.Errorf("a trust bound to repository_id is marked names only")
		}
	})
}

// A registry that allows no issuer says so instead of offering a form.
func TestDashboardTrustedPublishersWithoutIssuers(t *testing.T) {
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	web := servertest.NewWebClient(t, env.URL)
	web.Login(env.CreateUser(t, "alice"))
	page := web.Get("/dashboard")
	servertest.WantPage(t, page, http.StatusOK, "This registry allows no OpenID Connect issuer")
	if regexp.MustCompile(`action="/dashboard/trusted-publishers"`).MatchString(page.Body) {
		t.Errorf("the dashboard offers the trusted publisher form with no issuer allowed")
	}
}
