package web_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/hooktest"
	"github.com/pact-registry/pact/internal/servertest"
)

// The dashboard's webhooks page lists the account's hooks and those of the
// organisations it owns, with their state; a hook disabled after 3 days of
// failures shows the note saying why.
func TestDashboardHooksShowsADisabledHook(t *testing.T) {
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
