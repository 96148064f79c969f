package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
)

const githubIssuer = "https://token.actions.githubusercontent.com"

// The dashboard adds, lists and removes trusted publishers; what it adds is
// what the API lists, and a bad form changes nothing.
func TestDashboardTrustedPublishers(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{githubIssuer}})
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		servertest.WantPage(t, web.Get("/dashboard/trusted-publishers"), http.StatusOK, "Trusted publishers", `<option value="`+githubIssuer+`"`, "No trusted publishers yet.")

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
		servertest.WantRedirect(t, r, "/dashboard/trusted-publishers?done=trust-added")
		page := web.Get("/dashboard/trusted-publishers?done=trust-added")
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
		servertest.WantRedirect(t, web.Post("/dashboard/trusted-publishers/"+id[1]+"/remove", confirmed), "/dashboard/trusted-publishers?done=trust-removed")
		if n := len(listAPI(alice)); n != 0 {
			t.Errorf("%d trusted publishers after removing the only one", n)
		}

		// A trust bound to the repository's id is not marked.
		r = web.Post("/dashboard/trusted-publishers", url.Values{"issuer": {githubIssuer}, "packages": {"widget"},
			"claims": {"repository=alice/widget\nrepository_id=123456"}})
		servertest.WantRedirect(t, r, "/dashboard/trusted-publishers?done=trust-added")
		page = web.Get("/dashboard/trusted-publishers")
		servertest.WantPage(t, page, http.StatusOK, "<code>repository_id=123456</code>")
		if regexp.MustCompile(`>names only</span>`).MatchString(page.Body) {
			t.Errorf("a trust bound to repository_id is marked names only")
		}
	})
}

// A registry that allows no issuer says so instead of offering a form.
func TestDashboardTrustedPublishersWithoutIssuers(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	web := servertest.NewWebClient(t, env.URL)
	web.Login(env.CreateUser(t, "alice"))
	page := web.Get("/dashboard/trusted-publishers")
	servertest.WantPage(t, page, http.StatusOK, "This registry allows no OpenID Connect issuer")
	if regexp.MustCompile(`action="/dashboard/trusted-publishers"`).MatchString(page.Body) {
		t.Errorf("the trusted publishers page offers the form with no issuer allowed")
	}
}

// The dashboard shows who added each trusted publisher and until when it
// lasts: one added there lasts until removed, one added with an expiring
// token expires with it and says so once it has.
func TestDashboardTrustedPublishersShowTheirMakerAndExpiry(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{githubIssuer}})
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		servertest.WantRedirect(t, web.Post("/dashboard/trusted-publishers", url.Values{"issuer": {githubIssuer}, "packages": {"widget"},
			"claims": {"repository=alice/widget"}}), "/dashboard/trusted-publishers?done=trust-added")
		r := env.API.PostJSON("/api/tokens", map[string]any{"name": "narrow", "scopes": []string{"tokens", "publish"}, "packages": []string{"gadget"}, "expires_in_days": 1}, alice.Bearer())
		wantStatus(t, r.Status, http.StatusCreated, r.Body)
		narrow := r.JSON(t)
		r = env.API.PostJSON("/api/trusted-publishers", map[string]any{"issuer": githubIssuer, "packages": []string{"gadget"},
			"claims": map[string]string{"repository": "alice/gadget"}}, "Authorization: Bearer "+narrow["token"].(string))
		wantStatus(t, r.Status, http.StatusCreated, r.Body)
		expires := r.JSON(t)["expires_at"].(string)

		page := web.Get("/dashboard/trusted-publishers")
		servertest.WantPage(t, page, http.StatusOK, "Added by", "alice <span class=\"muted\">on the dashboard</span>",
			"<span class=\"muted\">when removed</span>", fmt.Sprintf("alice <span class=\"muted\">with token %v</span>", narrow["id"]),
			`<time datetime="`+expires+`">`)
		if strings.Contains(page.Body, `<span class="tag">expired</span>`) {
			t.Error("a trusted publisher shows as expired before its token expires")
		}
		env.Clock.Advance(25 * time.Hour)
		servertest.WantPage(t, web.Get("/dashboard/trusted-publishers"), http.StatusOK, `</time> <span class="tag">expired</span>`)
	})
}

// Removing an owner from the dashboard says that its trusted publishers of
// the organisation went with it.
func TestDashboardRemovingAnOwnerSaysItsTrustedPublishersWent(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{OIDCIssuers: []string{githubIssuer}})
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		servertest.WantRedirect(t, web.Post("/dashboard/orgs", url.Values{"name": {"acme"}}), "/dashboard/orgs?done=org-created")
		servertest.WantRedirect(t, web.Post("/dashboard/orgs/acme/members", url.Values{"username": {"bob"}, "role": {"owner"}}), "/dashboard/orgs?done=member-set#org-acme")
		r := env.API.PostJSON("/api/trusted-publishers", map[string]any{"owner": "acme", "issuer": githubIssuer, "packages": []string{"*"},
			"claims": map[string]string{"repository": "bob/ci"}}, bob.Bearer())
		wantStatus(t, r.Status, http.StatusCreated, r.Body)
		servertest.WantRedirect(t, web.Post("/dashboard/orgs/acme/members", url.Values{"username": {"bob"}, "role": {"maintainer"}}),
			"/dashboard/orgs?done=member-set-grants#org-acme")
		servertest.WantPage(t, web.Get("/dashboard/orgs?done=member-set-grants"), http.StatusOK, "The trusted publishers it added for the organisation are removed")
		r = env.API.Get("/api/trusted-publishers?owner=acme", alice.Bearer())
		if list := r.JSON(t)["trusted_publishers"].([]any); len(list) != 0 {
			t.Errorf("acme keeps %v after bob's demotion", list)
		}
		servertest.WantRedirect(t, web.Post("/dashboard/orgs/acme/members/bob/remove", nil), "/dashboard/orgs?done=member-removed#org-acme")
	})
}
