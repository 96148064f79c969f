package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// The dashboard creates an organisation and manages its members, as the
// API then shows; /{org} lists its members and packages, and a version's
// page says who published it.
func TestDashboardOrgsAndOrgPage(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{})
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		servertest.WantPage(t, web.Get("/dashboard/orgs"), http.StatusOK, "Organisations", "You are a member of no organisation.")

		servertest.WantPage(t, web.Post("/dashboard/orgs", url.Values{"name": {"bob"}}), http.StatusConflict, "taken")
		servertest.WantRedirect(t, web.Post("/dashboard/orgs", url.Values{"name": {"acme"}, "display_name": {"Acme Corp"}}), "/dashboard/orgs?done=org-created")
		servertest.WantPage(t, web.Post("/dashboard/orgs/acme/members", url.Values{"username": {"nobody"}, "role": {"maintainer"}}), http.StatusBadRequest, "no user nobody")
		servertest.WantRedirect(t, web.Post("/dashboard/orgs/acme/members", url.Values{"username": {"bob"}, "role": {"maintainer"}}), "/dashboard/orgs?done=member-set#org-acme")
		page := web.Get("/dashboard/orgs?done=member-set")
		servertest.WantPage(t, page, http.StatusOK, "The member&#39;s role is set.", `action="/dashboard/orgs/acme/members/bob/remove"`)
		r := env.API.Get("/api/orgs/acme/members")
		if m := r.JSON(t)["members"].([]any); len(m) != 2 || m[1].(map[string]any)["username"] != "bob" {
			t.Fatalf("the API lists %v", m)
		}

		// bob, a maintainer, sees acme but no member buttons, and cannot
		// remove anyone through the form.
		other := servertest.NewWebClient(t, env.URL)
		other.Login(bob)
		bobsPage := other.Get("/dashboard/orgs")
		servertest.WantPage(t, bobsPage, http.StatusOK, `href="/acme"`)
		if bobsPage.Status == http.StatusOK && contains(bobsPage.Body, `/members/alice/remove`) {
			t.Error("a maintainer is offered to remove members")
		}
		servertest.WantPage(t, other.Post("/dashboard/orgs/acme/members/alice/remove", nil), http.StatusForbidden, "only owners of the organisation acme")

		resp := env.API.PostJSON("/api/publish", map[string]any{"content": servertest.PackDoc("widget", "1.0.0"), "owner": "acme"}, bob.Bearer())
		servertest.WantStatus(t, resp.Status, http.StatusOK, resp.Body)
		servertest.WantPage(t, web.Get("/acme"), http.StatusOK, "Acme Corp", "Members", `href="/bob"`, "maintainer", `href="/acme/widget"`)
		servertest.WantPage(t, web.Get("/bob"), http.StatusOK, "Member of", `href="/acme"`)
		servertest.WantPage(t, web.Get("/acme/widget"), http.StatusOK, "Published by", `href="/bob"`, "API token")

		servertest.WantRedirect(t, web.Post("/dashboard/orgs/acme/members/bob/remove", nil), "/dashboard/orgs?done=member-removed#org-acme")
		resp = env.API.PostJSON("/api/publish", map[string]any{"content": servertest.PackDoc("widget", "1.0.1"), "owner": "acme"}, bob.Bearer())
		servertest.WantStatus(t, resp.Status, http.StatusForbidden, resp.Body)
	})
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
