package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// The dashboard's token form chooses scopes, packages and expiry, and the
// table shows them with the last use.
func TestDashboardTokenScopes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)

		page := web.Get("/dashboard/tokens")
		servertest.WantPage(t, page, http.StatusOK, `<option value="90" selected>`, `name="scope" value="publish"`,
			`name="scope" value="tokens"`, `id="token-packages"`)
		if row := tokenRow(t, page.Body, "test"); !strings.Contains(row, `<td data-label="Scopes">all</td>`) || !strings.Contains(row, "<code>all</code>") {
			t.Errorf("the full-power token's row %q, want scopes all and packages all", row)
		}

		r := web.Post("/dashboard/tokens", url.Values{"name": {"widgets"}, "scope": {"publish", "yank"},
			"packages": {"widget-*, gadget"}, "expires_in_days": {"7"}})
		servertest.WantPage(t, r, http.StatusOK, "Your new token")
		m := newTokenPattern.FindStringSubmatch(r.Body)
		if m == nil {
			t.Fatalf("no token on the page:\n%s", r.Body)
		}
		// The box of the new token also shows how to log pact in with it.
		servertest.WantPage(t, r, http.StatusOK, `<input id="login-command" readonly value="pact login --host `+env.URL+` --token `+m[1]+`"`,
			`data-copy="login-command"`)
		row := tokenRow(t, r.Body, "widgets")
		if !strings.Contains(row, `<td data-label="Scopes">publish, yank</td>`) || !strings.Contains(row, "<code>widget-*, gadget</code>") ||
			!strings.Contains(row, env.Clock.Now().AddDate(0, 0, 7).Format("2006-01-02 15:04 UTC")) {
			t.Errorf("token row %q, want its scopes, packages and expiry", row)
		}
		bearer := "Authorization: Bearer " + m[1]
		keys := env.API.PostJSON("/api/ssh-keys", map[string]any{"public_key": "ssh-ed25519 AAAA"}, bearer)
		wantStatus(t, keys.Status, http.StatusForbidden, keys.Body)
		other := env.API.PostJSON("/api/publish", map[string]any{"content": servertest.PackDoc("other", "1.0.0")}, bearer)
		wantStatus(t, other.Status, http.StatusForbidden, other.Body)
		gadget := env.API.PostJSON("/api/publish", map[string]any{"content": servertest.PackDoc("gadget", "1.0.0")}, bearer)
		wantStatus(t, gadget.Status, http.StatusOK, gadget.Body)

		// Refused choices keep the form as it was filled.
		bad := web.Post("/dashboard/tokens", url.Values{"name": {"bad"}, "scope": {"keys"}, "packages": {"Widget/*"}, "expires_in_days": {"30"}})
		servertest.WantPage(t, bad, http.StatusBadRequest, "may hold only", `value="Widget/*"`, `value="keys" checked`, `<option value="30" selected>`)
		unknown := web.Post("/dashboard/tokens", url.Values{"name": {"bad"}, "scope": {"admin"}})
		servertest.WantPage(t, unknown, http.StatusBadRequest, "is not known")
		if strings.Contains(web.Get("/dashboard/tokens").Body, `<td data-label="Name">bad</td>`) {
			t.Error("a refused token was made")
		}
	})
}
