package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/server/registry"
)

var newTokenPattern = regexp.MustCompile(`id="new-token" readonly value="(pact_[0-9A-Za-z]+)"`)

// confirmed is the form of a confirmation page's button: the dashboard's
// own remove buttons only ask.
var confirmed = url.Values{"confirm": {"yes"}}

func TestDashboardNeedsALogin(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	web := servertest.NewWebClient(t, env.URL)
	for _, page := range []string{"/dashboard", "/dashboard/tokens", "/dashboard/keys", "/dashboard/orgs", "/dashboard/trusted-publishers", "/dashboard/account"} {
		servertest.WantRedirect(t, web.Get(page), "/login")
	}
	servertest.WantRedirect(t, web.Post("/dashboard/tokens", url.Values{"name": {"x"}}), "/login")
	servertest.WantRedirect(t, web.Post("/dashboard/keys", url.Values{"public_key": {"x"}}), "/login")
}

// The dashboard is a page for each thing an account manages. The overview
// keeps the anchors of the one long page it was (/dashboard#tokens), each
// leading to its page, and that page's links lead to the new pages: its
// notices to the page they belong to, its pages of tokens to the tokens page.
func TestDashboardOldLinksLeadToTheirPages(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	web := servertest.NewWebClient(t, env.URL)
	web.Login(env.CreateUser(t, "alice"))
	servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, `<a href="/dashboard" aria-current="page">Overview</a>`,
		`<div id="tokens"><dt><a href="/dashboard/tokens">`, `<div id="keys"><dt><a href="/dashboard/keys">`,
		`<div id="orgs"><dt><a href="/dashboard/orgs">`, `<div id="trusted"><dt><a href="/dashboard/trusted-publishers">`,
		`id="packages"`)
	for old, now := range map[string]string{
		"/dashboard?done=token-revoked":    "/dashboard/tokens?done=token-revoked",
		"/dashboard?done=key-added":        "/dashboard/keys?done=key-added",
		"/dashboard?done=trust-removed":    "/dashboard/trusted-publishers?done=trust-removed",
		"/dashboard?done=member-set":       "/dashboard/orgs?done=member-set",
		"/dashboard?done=password-changed": "/dashboard/account?done=password-changed",
		"/dashboard?tokens=MjAyNg%3D%3D":   "/dashboard/tokens?cursor=MjAyNg%3D%3D",
	} {
		servertest.WantRedirect(t, web.Get(old), now)
	}
	servertest.WantPage(t, web.Get("/dashboard?done=made-up"), http.StatusOK, "Your packages")
	// A notice shows on its own page only.
	if page := web.Get("/dashboard/keys?done=token-revoked"); page.Status != http.StatusOK || strings.Contains(page.Body, "The token is revoked") {
		t.Errorf("the SSH keys page (%d) says the token is revoked", page.Status)
	}
}

func TestDashboardTokens(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)

		r := web.Post("/dashboard/tokens", url.Values{"name": {"ci"}, "expires_in_days": {"30"}})
		servertest.WantPage(t, r, http.StatusOK, "Your new token", "cannot show it again", `data-copy="new-token"`)
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("the page with the secret has Cache-Control %q, want no-store", cc)
		}
		m := newTokenPattern.FindStringSubmatch(r.Body)
		if m == nil {
			t.Fatalf("no token on the page:\n%s", r.Body)
		}
		secret := m[1]
		if len(secret) < len("pact_")+40 {
			t.Errorf("token %q is shorter than pact_ and 40 characters", secret)
		}
		expires := env.Clock.Now().Add(30 * 24 * time.Hour).UTC().Format("2006-01-02 15:04 UTC")
		servertest.WantPage(t, r, http.StatusOK, `<td data-label="Name">ci</td>`, expires)

		// The token works, and the dashboard shows when it was used.
		me := env.API.Get("/api/me", "Authorization: Bearer "+secret)
		wantStatus(t, me.Status, http.StatusOK, me.Body)
		page := web.Get("/dashboard/tokens")
		if strings.Contains(page.Body, secret) {
			t.Errorf("the dashboard shows the token again")
		}
		used := env.Clock.Now().UTC().Format("2006-01-02 15:04 UTC")
		row := tokenRow(t, page.Body, "ci")
		if strings.Count(row, used) < 2 || !strings.Contains(row, expires) || !strings.Contains(row, "active") {
			t.Errorf("token row %q, want created and last used %s, expires %s, active", row, used, expires)
		}

		// Revoke it: the API refuses it at once.
		id := regexp.MustCompile(`action="/dashboard/tokens/(\d+)/revoke"`).FindStringSubmatch(row)
		if id == nil {
			t.Fatalf("no revoke button in %q", row)
		}
		// The button only asks; the token works until the answer is yes.
		ask := web.Post("/dashboard/tokens/"+id[1]+"/revoke", nil)
		servertest.WantPage(t, ask, http.StatusOK, "Revoke the token “ci”?",
			`action="/dashboard/tokens/`+id[1]+`/revoke"`, `name="confirm" value="yes"`, `href="/dashboard/tokens"`)
		assertNoInlineCode(t, ask.Body)
		me = env.API.Get("/api/me", "Authorization: Bearer "+secret)
		wantStatus(t, me.Status, http.StatusOK, me.Body)
		servertest.WantRedirect(t, web.Post("/dashboard/tokens/"+id[1]+"/revoke", confirmed), "/dashboard/tokens?done=token-revoked")
		me = env.API.Get("/api/me", "Authorization: Bearer "+secret)
		wantStatus(t, me.Status, http.StatusUnauthorized, me.Body)
		page = web.Get("/dashboard/tokens?done=token-revoked")
		servertest.WantPage(t, page, http.StatusOK, "The token is revoked")
		// The dashboard lists active tokens: the revoked one is gone.
		if strings.Contains(page.Body, "<td data-label=\"Name\">ci</td>") {
			t.Errorf("the dashboard still lists the revoked token")
		}

		// Another account's token cannot be revoked from here.
		bobs, err := env.Store.ListTokens(context.Background(), bob.Account.ID, registry.TokenFilter{})
		if err != nil {
			t.Fatal(err)
		}
		servertest.WantPage(t, web.Post("/dashboard/tokens/"+strconv.FormatInt(bobs[0].ID, 10)+"/revoke", nil), http.StatusNotFound)
		servertest.WantPage(t, web.Post("/dashboard/tokens/"+strconv.FormatInt(bobs[0].ID, 10)+"/revoke", confirmed), http.StatusNotFound)
		me = env.API.Get("/api/me", bob.Bearer())
		wantStatus(t, me.Status, http.StatusOK, me.Body)

		// A token without expiry; a made-up expiry is refused.
		never := web.Post("/dashboard/tokens", url.Values{"name": {"forever"}, "expires_in_days": {""}})
		servertest.WantPage(t, never, http.StatusOK, "Your new token")
		if row := tokenRow(t, never.Body, "forever"); strings.Count(row, "never") != 2 {
			t.Errorf("token without expiry: row %q, want last used and expires never", row)
		}
		servertest.WantPage(t, web.Post("/dashboard/tokens", url.Values{"name": {"x"}, "expires_in_days": {"-3"}}),
			http.StatusBadRequest, "Choose when the token expires")
		servertest.WantPage(t, web.Post("/dashboard/tokens", url.Values{"name": {strings.Repeat("n", 101)}}),
			http.StatusBadRequest, "at most 100 characters")
	})
}

// tokenRow is the table row of the token named name.
func tokenRow(t *testing.T, page, name string) string {
	t.Helper()
	for _, row := range strings.Split(page, "<tr") {
		if strings.Contains(row, `<td data-label="Name">`+name+"</td>") {
			return row
		}
	}
	t.Fatalf("no row for token %q", name)
	return ""
}

func TestDashboardSSHKeysAndPackages(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	bob := env.CreateUser(t, "bob")
	publishDoc(t, env, alice, packDoc("alpha", "1.0.0"))
	publishDoc(t, env, bob, packDoc("bravo", "1.0.0"))
	web := servertest.NewWebClient(t, env.URL)
	web.Login(alice)

	page := web.Get("/dashboard")
	servertest.WantPage(t, page, http.StatusOK, `href="/alice/alpha"`)
	if strings.Contains(page.Body, "bravo") {
		t.Errorf("alice's dashboard lists bob's package")
	}
	servertest.WantPage(t, web.Get("/dashboard/keys"), http.StatusOK, "No SSH keys yet.")

	dir := t.TempDir()
	_, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	line := sshtest.PublicKeyLine(t, pub)
	fingerprint := sshtest.KeygenFingerprint(t, pub)
	servertest.WantRedirect(t, web.Post("/dashboard/keys", url.Values{"public_key": {line}, "name": {"laptop"}}), "/dashboard/keys?done=key-added")
	page = web.Get("/dashboard/keys?done=key-added")
	servertest.WantPage(t, page, http.StatusOK, "The SSH key is added", `<td data-label="Name">laptop</td>`, fingerprint, "ssh-ed25519")
	if keys := web.Get("/alice.keys"); !strings.Contains(keys.Body, strings.Fields(line)[1]) {
		t.Errorf("/alice.keys lacks the added key: %q", keys.Body)
	}

	servertest.WantPage(t, web.Post("/dashboard/keys", url.Values{"public_key": {line}}), http.StatusConflict, `role="alert"`)
	bad := web.Post("/dashboard/keys", url.Values{"public_key": {"ssh-dss AAAAB3NzaC1kc3M nope"}, "name": {"old"}})
	servertest.WantPage(t, bad, http.StatusBadRequest, `role="alert"`, "ssh-dss AAAAB3NzaC1kc3M nope", `value="old"`)

	id := regexp.MustCompile(`action="/dashboard/keys/(\d+)/delete"`).FindStringSubmatch(page.Body)
	if id == nil {
		t.Fatalf("no delete button:\n%s", page.Body)
	}
	servertest.WantPage(t, web.Post("/dashboard/keys/"+id[1]+"/delete", nil), http.StatusOK, "Delete the SSH key", `name="confirm" value="yes"`)
	if keys := web.Get("/alice.keys"); keys.Body == "" {
		t.Errorf("asking to delete the key deleted it")
	}
	servertest.WantRedirect(t, web.Post("/dashboard/keys/"+id[1]+"/delete", confirmed), "/dashboard/keys?done=key-deleted")
	servertest.WantPage(t, web.Get("/dashboard/keys"), http.StatusOK, "No SSH keys yet.")
	servertest.WantPage(t, web.Post("/dashboard/keys/"+id[1]+"/delete", nil), http.StatusNotFound)
	servertest.WantPage(t, web.Post("/dashboard/keys/"+id[1]+"/delete", confirmed), http.StatusNotFound)
	if keys := web.Get("/alice.keys"); keys.Body != "" {
		t.Errorf("/alice.keys after delete = %q", keys.Body)
	}
}
