package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/hooktest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

// The dashboard's webhooks page lists the account's hooks and those of the
// organisations it owns, with their state; a hook disabled after 3 days of
// failures shows the note saying why.
func TestDashboardHooksShowsADisabledHook(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, WebhookAllowPrivate: true})
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		servertest.WantPage(t, web.Get("/dashboard/hooks"), http.StatusOK, "Webhooks", "You have no webhooks.")

		_, u := hooktest.NewServer(t, "dashboard-secret-0123456789", hooktest.Behaviour{FailFirst: 1 << 30})
		resp := env.API.PostJSON("/api/hooks", map[string]any{"url": u + "/failing", "secret": "dashboard-secret-0123456789", "events": []string{"publish"}}, alice.Bearer())
		servertest.WantStatus(t, resp.Status, http.StatusCreated, resp.Body)
		id := int64(resp.JSON(t)["hook"].(map[string]any)["id"].(float64))
		resp = env.API.PostJSON("/api/orgs", map[string]any{"name": "acme"}, alice.Bearer())
		servertest.WantStatus(t, resp.Status, http.StatusCreated, resp.Body)
		resp = env.API.PostJSON("/api/hooks", map[string]any{"owner": "acme", "package": "widget", "url": "https://hooks.example.com/acme", "secret": "dashboard-secret-0123456789", "events": []string{"yank"}}, alice.Bearer())
		servertest.WantStatus(t, resp.Status, http.StatusCreated, resp.Body)

		resp = env.API.PostJSON("/api/publish", map[string]any{"content": servertest.PackDoc("widget", "1.0.0")}, alice.Bearer())
		servertest.WantStatus(t, resp.Status, http.StatusOK, resp.Body)
		deliveries := fmt.Sprintf("/api/hooks/%d/deliveries", id)
		waitHook(t, env, alice, deliveries, func(h map[string]any) bool { return h["failing_since"] != nil })
		servertest.WantPage(t, web.Get("/dashboard/hooks"), http.StatusOK, `id="hook-`, "failing</span> since", "https://hooks.example.com/acme", `href="/acme">acme</a>/widget`)

		env.Clock.Advance(73 * time.Hour)
		waitHook(t, env, alice, deliveries, func(h map[string]any) bool { return h["disabled_at"] != nil })
		servertest.WantPage(t, web.Get("/dashboard/hooks"), http.StatusOK, "<strong>Disabled</strong>", "every delivery failed since", "answered 500",
			fmt.Sprintf("pact hook remove %d", id))

		// bob manages none of them.
		other := servertest.NewWebClient(t, env.URL)
		other.Login(bob)
		servertest.WantPage(t, other.Get("/dashboard/hooks"), http.StatusOK, "You have no webhooks.")
	})
}

func waitHook(t *testing.T, env *servertest.Env, u *servertest.User, path string, cond func(map[string]any) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp := env.API.Get(path, u.Bearer())
		servertest.WantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if cond(resp.JSON(t)["hook"].(map[string]any)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook never came to the state waited for: %s", resp.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The dashboard adds a hook (making its secret when none is typed, and
// showing it once), lists it, shows its deliveries and removes it after
// asking; a bad form says why and adds nothing. Another account can see,
// remove and read the deliveries of none of them, and an organisation's
// hooks are its owners' only, as with the API.
func TestDashboardAddsAndRemovesHooks(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{WebhookAllowPrivate: true})
		ctx := context.Background()
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		if _, err := env.Service.CreateOrg(ctx, alice.Account, nil, "acme", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Service.SetMember(ctx, alice.Account, nil, "acme", "bob", registry.RoleMaintainer); err != nil {
			t.Fatal(err)
		}
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		other := servertest.NewWebClient(t, env.URL)
		other.Login(bob)
		count := func(who *servertest.User, owner string) int {
			t.Helper()
			hooks, err := env.Service.ListHooks(ctx, who.Account, nil, owner)
			if err != nil {
				t.Fatal(err)
			}
			return len(hooks)
		}
		servertest.WantPage(t, web.Get("/dashboard/hooks"), http.StatusOK, `<form class="stack" action="/dashboard/hooks" method="post">`,
			`<option value="alice" selected>alice</option><option value="acme">acme</option>`)

		for _, c := range []struct {
			name   string
			who    *servertest.WebClient
			form   url.Values
			status int
			want   string
		}{
			{"no URL", web, url.Values{"url": {""}}, 400, "url must be an http:// or https:// URL"},
			{"a URL with a password", web, url.Values{"url": {"https://u:p@example.com/x"}}, 400, "must not hold a user name or password"},
			{"an unknown event", web, url.Values{"url": {"https://example.com/x"}, "event": {"publish", "nosuch"}}, 400, `event "nosuch" is not known`},
			{"an owner's event on one package", web, url.Values{"url": {"https://example.com/x"}, "package": {"widget"}, "event": {"key"}}, 400, "a hook of one package receives only"},
			{"a short secret", web, url.Values{"url": {"https://example.com/x"}, "secret": {"short"}}, 400, "secret must be 16 to 256 bytes"},
			{"no such owner", web, url.Values{"url": {"https://example.com/x"}, "owner": {"nosuch"}}, 404, "no user or organisation nosuch"},
			{"another user's namespace", web, url.Values{"url": {"https://example.com/x"}, "owner": {"bob"}}, 403, "only bob may manage webhooks"},
			{"a maintainer's organisation", other, url.Values{"url": {"https://example.com/x"}, "owner": {"acme"}}, 403, "only owners of the organisation acme may manage webhooks"},
			{"from another site", web, url.Values{"url": {"https://example.com/x"}}, 403, "from another site"},
		} {
			t.Run(c.name, func(t *testing.T) {
				var headers []string
				if c.name == "from another site" {
					headers = []string{"Sec-Fetch-Site", "cross-site"}
				}
				page := c.who.Post("/dashboard/hooks", c.form, headers...)
				servertest.WantPage(t, page, c.status, c.want)
				if c.status == 400 && !strings.Contains(page.Body, `value="`+c.form.Get("url")+`"`) {
					t.Errorf("the refused form does not show the URL sent again")
				}
			})
		}
		if n := count(alice, "") + count(alice, "acme") + count(bob, ""); n != 0 {
			t.Fatalf("refused forms added %d hooks", n)
		}
		// The API refuses the maintainer alike.
		resp := env.API.PostJSON("/api/hooks", map[string]any{"owner": "acme", "url": "https://example.com/x", "secret": "api-secret-0123456789", "events": []string{"publish"}}, bob.Bearer())
		wantStatus(t, resp.Status, http.StatusForbidden, resp.Body)

		// No secret typed: one is made and shown once; it signs.
		page := web.Post("/dashboard/hooks", url.Values{"url": {"https://example.com/all"}})
		servertest.WantPage(t, page, http.StatusOK, "The webhook is added", "The secret of webhook")
		secret := regexp.MustCompile(`id="new-hook-secret" readonly value="([0-9a-f]{48})"`).FindStringSubmatch(page.Body)
		if secret == nil {
			t.Fatalf("the page does not show the new secret:\n%s", page.Body)
		}
		hooks, err := env.Service.ListHooks(ctx, alice.Account, nil, "")
		if err != nil || len(hooks) != 1 {
			t.Fatalf("alice has %d hooks (%v), want 1", len(hooks), err)
		}
		if hooks[0].Secret != secret[1] || strings.Join(hooks[0].Events, ",") != strings.Join(registry.HookEvents, ",") {
			t.Errorf("the hook made has secret %q and events %v; the page showed %q", hooks[0].Secret, hooks[0].Events, secret[1])
		}
		if again := web.Get("/dashboard/hooks"); strings.Contains(again.Body, secret[1]) {
			t.Errorf("the hooks page shows the secret again")
		}

		// A secret typed, one package, no event ticked: the package's events.
		r := web.Post("/dashboard/hooks", url.Values{"url": {"https://example.com/acme"}, "owner": {"acme"}, "package": {"Widget"},
			"secret": {"typed-secret-0123456789"}})
		if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/dashboard/hooks?done=hook-added#hook-") {
			t.Fatalf("adding with a secret answers %d to %q", r.Status, r.Header.Get("Location"))
		}
		acme, err := env.Service.ListHooks(ctx, alice.Account, nil, "acme")
		if err != nil || len(acme) != 1 {
			t.Fatalf("acme has %d hooks (%v)", len(acme), err)
		}
		if h := acme[0]; h.Package != "widget" || h.Secret != "typed-secret-0123456789" || strings.Join(h.Events, ",") != "publish,yank,unyank,deprecate,release" {
			t.Errorf("acme's hook: %+v", h)
		}
		id := fmt.Sprint(acme[0].ID)
		servertest.WantPage(t, web.Get("/dashboard/hooks?done=hook-added"), http.StatusOK, "The webhook is added", `href="/dashboard/hooks/`+id+`"`,
			`action="/dashboard/hooks/`+id+`/remove"`)
		servertest.WantPage(t, web.Get("/dashboard/hooks/"+id), http.StatusOK, "Webhook "+id, "https://example.com/acme", "No deliveries yet")

		// bob, a maintainer of acme, manages none of its hooks: not found.
		servertest.WantPage(t, other.Get("/dashboard/hooks/"+id), http.StatusNotFound)
		servertest.WantPage(t, other.Post("/dashboard/hooks/"+id+"/remove", nil), http.StatusNotFound)
		servertest.WantPage(t, other.Post("/dashboard/hooks/"+id+"/remove", url.Values{"confirm": {"yes"}}), http.StatusNotFound)
		for _, bad := range []string{"/dashboard/hooks/0", "/dashboard/hooks/x", "/dashboard/hooks/99999"} {
			servertest.WantPage(t, web.Get(bad), http.StatusNotFound)
		}
		if n := count(alice, "acme"); n != 1 {
			t.Fatalf("bob's posts removed acme's hook")
		}

		// Remove asks first, then removes.
		servertest.WantPage(t, web.Post("/dashboard/hooks/"+id+"/remove", nil), http.StatusOK, "Remove webhook "+id+" of acme/widget?", "https://example.com/acme")
		if n := count(alice, "acme"); n != 1 {
			t.Fatalf("asking removed the hook")
		}
		servertest.WantRedirect(t, web.Post("/dashboard/hooks/"+id+"/remove", url.Values{"confirm": {"yes"}}), "/dashboard/hooks?done=hook-removed")
		if n := count(alice, "acme"); n != 0 {
			t.Fatalf("acme has %d hooks after the removal", n)
		}
		servertest.WantPage(t, web.Get("/dashboard/hooks/"+id), http.StatusNotFound)

		// acme requires a second factor of those who manage it here:
		// alice has none, so the dashboard refuses her its hooks.
		org, err := env.Service.AccountByUsername(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if err := registry.SetRequireSecondFactor(ctx, env.Store, org.ID, true); err != nil {
			t.Fatal(err)
		}
		servertest.WantPage(t, web.Post("/dashboard/hooks", url.Values{"url": {"https://example.com/acme"}, "owner": {"acme"}}), http.StatusForbidden,
			"requires a second factor")
		if n := count(alice, "acme"); n != 0 {
			t.Fatalf("the refused form added a hook to acme")
		}
	})
}
