package web_test

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver, to raise the stored count

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/storetest"
)

// addAuthenticator gives the tab a virtual platform authenticator (the
// DevTools WebAuthn domain), as a laptop's fingerprint reader: CTAP2,
// internal, discoverable credentials, user verification that succeeds.
func addAuthenticator(t *testing.T, ctx context.Context) webauthn.AuthenticatorID {
	t.Helper()
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("enabling the WebAuthn domain: %v", err)
	}
	res, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true, IsUserVerified: true,
			AutomaticPresenceSimulation: true}})
	if err != nil {
		t.Fatalf("adding a virtual authenticator: %v", err)
	}
	return res.AuthenticatorID
}

// waitLocation waits until the tab is at url (a passkey step ends in a
// navigation made by script, not by a form), or shows an alert, polling.
func (b tab) waitLocation(url string) {
	b.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		// At url, and loaded: the location changes as soon as the
		// navigation commits, while the old document may still be
		// answering queries for nodes the new one replaces ("No node
		// with given id found").
		loc, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`location.href + " " + document.readyState`))
		if err == nil && loc == url+" complete" {
			return
		}
		loc, _, _ = strings.Cut(loc, " ")
		alert, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("[role=alert]:not([hidden])")).map(e => e.textContent).join(" | ")`))
		if err == nil && alert != "" {
			b.t.Fatalf("waiting for %s: at %s, the page says %q", url, loc, alert)
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("waiting for %s: at %s", url, b.location())
}

func (b tab) logInWithPassword(base, username, password string) {
	b.t.Helper()
	b.open(base + "/login")
	b.do("filling the log-in form",
		chromedp.SendKeys(chromedp.CSS("#login"), username),
		chromedp.SendKeys(chromedp.CSS("#password"), password),
	)
	b.submit("form[action='/login'] button[type=submit]")
}

func (b tab) logOut(base string) {
	b.t.Helper()
	b.open(base + "/dashboard")
	b.submit("form[action='/logout'] button")
	if loc := b.location(); loc != base+"/" {
		b.t.Fatalf("after logging out the browser is at %s", loc)
	}
}

// In Chromium with a virtual authenticator, on SQLite and PostgreSQL: register a passkey on the
// account page, log in with it and no password, require it after the
// password, log in with a recovery code (once), and the organisation's
// requirement of a second factor.
func TestBrowserPasskeys(t *testing.T) {
	t.Parallel()
	for _, backend := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return t.TempDir() + "/pact.db" }},
		{"postgres", func(t *testing.T) string { return storetest.PostgresURL(t) }},
	} {
		t.Run(backend.name, func(t *testing.T) { browserPasskeys(t, backend.dsn(t)) })
	}
}

func browserPasskeys(t *testing.T, dsn string) {
	ctx := newBrowser(t, 120*time.Second)
	env := servertest.Start(t, dsn, servertest.Options{Localhost: true})
	alice := env.CreateUser(t, "alice")
	b := tab{t: t, ctx: ctx}
	auth := addAuthenticator(t, ctx)

	// Register.
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.open(env.URL + "/dashboard/account")
	b.do("naming the passkey", chromedp.SendKeys(chromedp.CSS("#passkey-name"), "Laptop"))
	b.do("adding a passkey", chromedp.Click(chromedp.CSS("#add-passkey")))
	b.waitLocation(env.URL + "/dashboard/account?done=passkey-added#passkeys")
	if got := b.text("table.passkeys"); !strings.Contains(got, "Laptop") || !strings.Contains(got, "never") {
		t.Fatalf("the passkeys table shows %q", got)
	}
	creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: auth})
	if err != nil || len(creds.Credentials) != 1 || creds.Credentials[0].RpID != "localhost" || !creds.Credentials[0].IsResidentCredential {
		t.Fatalf("the authenticator holds %+v (%v), want one discoverable credential for localhost", creds, err)
	}

	// Log in with the passkey, no password.
	b.logOut(env.URL)
	b.open(env.URL + "/login")
	b.do("logging in with a passkey", chromedp.Click(chromedp.CSS("#passkey-login")))
	b.waitLocation(env.URL + "/dashboard")
	if got := b.text("main .meta"); !strings.Contains(got, "Logged in as alice") {
		t.Fatalf("after a passkey log-in the header shows %q", got)
	}
	b.open(env.URL + "/dashboard/account")
	if got := b.text("table.passkeys"); strings.Contains(got, "never") {
		t.Errorf("the passkey's last use is not recorded: %q", got)
	}

	// Require it after the password; the recovery codes are shown once.
	b.submit("#require-passkey")
	codes := evaluate[[]string](b, `Array.from(document.querySelectorAll(".recovery-codes code")).map(e => e.textContent)`)
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes shown, want 10", len(codes))
	}
	b.logOut(env.URL)
	b.logInWithPassword(env.URL, "alice", alice.Password)
	if loc := b.location(); loc != env.URL+"/login/second-factor" {
		t.Fatalf("after the password of an account with a second factor the browser is at %s", loc)
	}
	b.open(env.URL + "/dashboard")
	if loc := b.location(); loc != env.URL+"/login" {
		t.Fatalf("the password alone opened the dashboard (at %s)", loc)
	}
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.do("using the passkey", chromedp.Click(chromedp.CSS("#second-factor-passkey")))
	b.waitLocation(env.URL + "/dashboard")

	// A recovery code gets past the second factor, once.
	b.logOut(env.URL)
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.do("typing a recovery code", chromedp.SendKeys(chromedp.CSS("#recovery-code"), strings.ToUpper(codes[3])))
	b.submit("form[action='/login/second-factor/recovery'] button")
	if loc := b.location(); loc != env.URL+"/dashboard" {
		t.Fatalf("after a recovery code the browser is at %s", loc)
	}
	b.logOut(env.URL)
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.do("typing the used recovery code", chromedp.SendKeys(chromedp.CSS("#recovery-code"), codes[3]))
	if resp := b.submit("form[action='/login/second-factor/recovery'] button"); resp.Status != http.StatusUnauthorized {
		t.Errorf("a used recovery code: status %d, want 401", resp.Status)
	}
	if got := b.text(".error"); !strings.Contains(got, "Wrong recovery code") {
		t.Errorf("a used recovery code says %q", got)
	}
	b.open(env.URL + "/dashboard")
	if loc := b.location(); loc != env.URL+"/login" {
		t.Fatalf("a used recovery code logged in (at %s)", loc)
	}

	// The organisation's requirement: bob, an owner of acme without a
	// second factor, sees a refusal once alice requires one.
	bob := env.CreateUser(t, "bob")
	if _, err := env.Service.CreateOrg(context.Background(), alice.Account, nil, "acme", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.SetMember(context.Background(), alice.Account, nil, "acme", "bob", "owner"); err != nil {
		t.Fatal(err)
	}
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.do("typing a recovery code", chromedp.SendKeys(chromedp.CSS("#recovery-code"), codes[0]))
	b.submit("form[action='/login/second-factor/recovery'] button")
	b.open(env.URL + "/dashboard/orgs")
	b.submit("form[action='/dashboard/orgs/acme/second-factor'] button")
	if got := b.text("#org-acme h3"); !strings.Contains(got, "second factor required") {
		t.Fatalf("after requiring a second factor acme shows %q", got)
	}
	b.logOut(env.URL)
	b.logInWithPassword(env.URL, "bob", bob.Password)
	b.open(env.URL + "/dashboard/orgs")
	if got := b.text("#org-acme .second-factor-refused"); !strings.Contains(got, "requires a second factor") {
		t.Errorf("bob sees %q on acme", got)
	}
	if n := evaluate[int](b, `document.querySelectorAll("#org-acme form").length`); n != 0 {
		t.Errorf("bob, without a second factor, is offered %d forms to manage acme", n)
	}
}

// The server refuses a passkey's answer made on another origin, though the
// authenticator signed it for the same RP ID (localhost): a page of
// http://localhost:OTHERPORT relays pact's options to the authenticator and
// the answer back, as a phishing site would. The same relay from pact's own
// origin logs in, so the refusal is the origin's.
func TestBrowserPasskeyFromAnotherOrigin(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{Localhost: true})
	alice := env.CreateUser(t, "alice")
	b := tab{t: t, ctx: ctx}
	addAuthenticator(t, ctx)
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.open(env.URL + "/dashboard/account")
	b.do("adding a passkey", chromedp.Click(chromedp.CSS("#add-passkey")))
	b.waitLocation(env.URL + "/dashboard/account?done=passkey-added#passkeys")

	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>Not pact</title><p>Log in to pact here")
	}))
	t.Cleanup(other.Close)
	otherURL := strings.Replace(other.URL, "//127.0.0.1:", "//localhost:", 1)

	relay := func(pageURL string) (int, string) {
		t.Helper()
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar}
		resp, err := client.Post(env.URL+"/login/passkey/begin", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		options, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("begin: %d %s", resp.StatusCode, options)
		}
		b.open(pageURL)
		credential := assertPasskey(b, options)
		resp, err = client.Post(env.URL+"/login/passkey/finish", "application/json", bytes.NewReader([]byte(credential)))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(body)
	}

	status, body := relay(otherURL + "/")
	if status != http.StatusUnauthorized || !strings.Contains(body, "rigin") {
		t.Errorf("an answer made on %s: %d %s, want 401 naming the origin", otherURL, status, body)
	}
	if status, body := relay(env.URL + "/login"); status != http.StatusOK || !strings.Contains(body, `"redirect":"/dashboard"`) {
		t.Errorf("the same relay from pact's own origin: %d %s, want 200", status, body)
	}
}

// A passkey whose signature counter is lower than the one stored is
// refused, as a copy of it would be: the stored count is raised in the
// database, as if the original had been used since, and Chromium's
// virtual authenticator then signs with a lower one. The log-in fails
// with the reason and nothing is recorded of it.
func TestBrowserPasskeyCounterGoingBackIsRefused(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	dbPath := t.TempDir() + "/pact.db"
	env := servertest.Start(t, dbPath, servertest.Options{Localhost: true})
	alice := env.CreateUser(t, "alice")
	b := tab{t: t, ctx: ctx}
	auth := addAuthenticator(t, ctx)
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.open(env.URL + "/dashboard/account")
	b.do("adding a passkey", chromedp.Click(chromedp.CSS("#add-passkey")))
	b.waitLocation(env.URL + "/dashboard/account?done=passkey-added#passkeys")

	db, err := sql.Open("sqlite3", dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	stored := func() (count int64, lastUsed sql.NullString) {
		t.Helper()
		if err := db.QueryRow("SELECT sign_count, last_used_at FROM passkeys").Scan(&count, &lastUsed); err != nil {
			t.Fatal(err)
		}
		return count, lastUsed
	}

	// A log-in with it works, and stores the authenticator's counter.
	b.logOut(env.URL)
	b.open(env.URL + "/login")
	b.do("logging in with a passkey", chromedp.Click(chromedp.CSS("#passkey-login")))
	b.waitLocation(env.URL + "/dashboard")
	creds, err := chromedp.Call(ctx, webauthn.GetCredentials, webauthn.GetCredentialsParams{AuthenticatorID: auth})
	if err != nil || len(creds.Credentials) != 1 {
		t.Fatalf("the authenticator holds %+v (%v)", creds, err)
	}
	count, _ := stored()
	if float64(count) != creds.Credentials[0].SignCount || count == 0 {
		t.Fatalf("stored sign count %d, the authenticator's %v", count, creds.Credentials[0].SignCount)
	}

	// The stored count raised: the authenticator's next is lower.
	b.logOut(env.URL)
	if _, err := db.Exec("UPDATE passkeys SET sign_count = sign_count + 1000"); err != nil {
		t.Fatal(err)
	}
	raised, lastUsed := stored()
	b.open(env.URL + "/login")
	b.do("logging in with the passkey again", chromedp.Click(chromedp.CSS("#passkey-login")))
	deadline := time.Now().Add(15 * time.Second)
	alert := ""
	for alert == "" && time.Now().Before(deadline) {
		if loc := b.location(); loc != env.URL+"/login" {
			t.Fatalf("a passkey whose counter went back logged in (at %s)", loc)
		}
		alert = evaluate[string](b, `Array.from(document.querySelectorAll("[role=alert]:not([hidden])")).map(e => e.textContent).join(" | ")`)
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(alert, "its signature counter went backwards, so it may have been copied") {
		t.Errorf("the log-in page says %q", alert)
	}
	b.open(env.URL + "/dashboard")
	if loc := b.location(); loc != env.URL+"/login" {
		t.Fatalf("the refused passkey opened the dashboard (at %s)", loc)
	}
	if count, used := stored(); count != raised || used != lastUsed {
		t.Errorf("the refused log-in changed the stored passkey: count %d, last used %v; was %d, %v", count, used, raised, lastUsed)
	}
}

// assertPasskey has the page's virtual authenticator answer the log-in
// options a begin gave (navigator.credentials.get), and answers the
// credential as the page's script sends it to finish.
func assertPasskey(b tab, options []byte) string {
	return evaluate[string](b, `(async () => {
  const b64u = buf => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const unb64u = s => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), c => c.charCodeAt(0)).buffer;
  const pk = (`+string(options)+`).publicKey;
  pk.challenge = unb64u(pk.challenge);
  const c = await navigator.credentials.get({publicKey: pk});
  return JSON.stringify({credential: {id: c.id, rawId: b64u(c.rawId), type: c.type, clientExtensionResults: {},
    response: {clientDataJSON: b64u(c.response.clientDataJSON), authenticatorData: b64u(c.response.authenticatorData),
      signature: b64u(c.response.signature), userHandle: b64u(c.response.userHandle)}}});
})()`, chromedp.EvalAwaitPromise)
}
