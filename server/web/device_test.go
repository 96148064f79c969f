package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

// beginDeviceLogin begins a login of the command line asking for scopes,
// as POST /api/login/device does, and answers its user code.
func beginDeviceLogin(t *testing.T, env *servertest.Env, name string, scopes ...string) string {
	t.Helper()
	start, err := env.Service.StartDeviceLogin(context.Background(), name, scopes, registry.SessionClient{UserAgent: "pact/1.2.3", IP: "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	return start.UserCode
}

// stillWaiting reports whether the login of userCode still waits for its
// decision.
func stillWaiting(env *servertest.Env, userCode string) bool {
	_, err := env.Service.PendingDeviceLogin(context.Background(), userCode)
	return err == nil
}

// Following the address pact login prints without a session leads through
// the log-in page and back to the code, filled in; the log-in page goes on
// to no other site.
func TestDeviceLoginPageLogsInAndComesBack(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		code := beginDeviceLogin(t, env, "laptop")
		browser := servertest.NewWebClient(t, env.URL)

		back := "/login/device?code=" + url.QueryEscape(code)
		login := "/login?next=" + url.QueryEscape(back)
		servertest.WantRedirect(t, browser.Get(back), login)
		servertest.WantPage(t, browser.Get(login), http.StatusOK, "Log in to approve the login of the pact command line",
			`name="next" value="`+back+`"`)
		r := browser.Post("/login", url.Values{"login": {"alice"}, "password": {alice.Password}, "next": {back}})
		servertest.WantRedirect(t, r, back)
		servertest.WantPage(t, browser.Get(back), http.StatusOK, `value="`+code+`"`, "Continue")
		// Logged in, the log-in page goes on at once.
		servertest.WantRedirect(t, browser.Get(login), back)

		// A form sent after the session ended comes back to the code too.
		other := servertest.NewWebClient(t, env.URL)
		servertest.WantRedirect(t, other.Post("/login/device", url.Values{"code": {code}}), login)
		if !stillWaiting(env, code) {
			t.Error("the login was decided without a session")
		}

		// next leads only to a page of this site; another address leads
		// to the dashboard.
		for _, next := range []string{"https://evil.example/", "//evil.example/login/device", "/\\evil.example", "javascript:alert(1)", "login/device"} {
			browser := servertest.NewWebClient(t, env.URL)
			if page := browser.Get("/login?next=" + url.QueryEscape(next)); page.Status != http.StatusOK || strings.Contains(page.Body, `name="next"`) {
				t.Errorf("next=%q: the log-in page (%d) carries it on", next, page.Status)
			}
			r := browser.Post("/login", url.Values{"login": {"alice"}, "password": {alice.Password}, "next": {next}})
			servertest.WantRedirect(t, r, "/dashboard")
		}
	})
}

// The approval grants through the dashboard's rules: fields those refuse
// are said on the page, which keeps what was typed, and nothing is
// decided; another site cannot send the decision.
func TestDeviceLoginApprovalFollowsTheTokenRules(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		code := beginDeviceLogin(t, env, "laptop")
		browser := servertest.NewWebClient(t, env.URL)
		browser.Login(alice)
		servertest.WantPage(t, browser.Post("/login/device", url.Values{"code": {code}}), http.StatusOK,
			"laptop", "pact/1.2.3", "192.0.2.7", code, `name="scope" value="publish"`, `<option value="90" selected>`)

		// packages limit publish and yank: without either, the rule of
		// every token refuses them.
		r := browser.Post("/login/device/decide", url.Values{"code": {code}, "decision": {"approve"}, "name": {"work laptop"},
			"scope": {"keys"}, "packages": {"widget-*"}})
		servertest.WantPage(t, r, http.StatusBadRequest, "packages limits the publish and yank scopes", `value="work laptop"`, `value="widget-*"`)
		r = browser.Post("/login/device/decide", url.Values{"code": {code}, "decision": {"approve"}, "expires_in_days": {"9999"}})
		servertest.WantPage(t, r, http.StatusBadRequest, "Choose when the token expires from the list.")
		for _, headers := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Site", "", "Origin", "http://evil.example"}} {
			r = browser.Post("/login/device/decide", url.Values{"code": {code}, "decision": {"approve"}}, headers...)
			if r.Status != http.StatusForbidden {
				t.Errorf("a decision sent with %v: status %d, want 403", headers, r.Status)
			}
		}
		if !stillWaiting(env, code) {
			t.Fatal("a refused approval decided the login")
		}
		browser.ApproveDevice(code, url.Values{"scope": {"publish"}, "packages": {"widget-*"}})
		if stillWaiting(env, code) {
			t.Error("the approval did not decide the login")
		}
	})
}

// Codes that name no login are counted per address and per account, as
// failed log-ins are: past the limit the page refuses every code, even
// a right one, until the window ends.
func TestDeviceLoginCodeGuessesAreThrottled(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	code := beginDeviceLogin(t, env, "laptop")
	browser := servertest.NewWebClient(t, env.URL)
	browser.Login(alice)
	// A right code costs nothing.
	for range 12 {
		servertest.WantPage(t, browser.Post("/login/device", url.Values{"code": {code}}), http.StatusOK, "Approve")
	}
	for i, guess := range []string{"BBBB-BBBB", "bbbbcccc", "not a code at all", "", "BCDF-GHJK", "CCCC-CCCC", "DDDD-DDDD", "FFFF-FFFF", "GGGG-GGGG", "HHHH-HHHH"} {
		r := browser.Post("/login/device", url.Values{"code": {guess}})
		if r.Status != http.StatusNotFound {
			t.Fatalf("guess %d (%q): status %d, want 404", i+1, guess, r.Status)
		}
	}
	r := browser.Post("/login/device", url.Values{"code": {code}})
	servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many codes that name no login")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	r = browser.Post("/login/device/decide", url.Values{"code": {code}, "decision": {"approve"}})
	servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many codes that name no login")
	if !stillWaiting(env, code) {
		t.Error("a throttled approval decided the login")
	}
}

// guessCodes types n codes that name no login, each answered 404.
func guessCodes(t *testing.T, browser *servertest.WebClient, n int) {
	t.Helper()
	for i := range n {
		if r := browser.Post("/login/device", url.Values{"code": {"BBBB-BBBB"}}); r.Status != http.StatusNotFound {
			t.Fatalf("guess %d: status %d, want 404", i+1, r.Status)
		}
	}
}

// The address's limit on codes that name no login holds alone: guesses
// spread over accounts, none of which reaches its own limit, are refused
// past ten from one address, while the same account goes on from
// another address. The client's address is the connection's (each
// browser binds its own loopback address).
func TestDeviceLoginCodeGuessesAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	var browsers []*servertest.WebClient
	for _, name := range []string{"alice", "bob", "carol"} {
		b := servertest.NewWebClient(t, env.URL)
		b.Login(env.CreateUser(t, name))
		browsers = append(browsers, b.From("127.0.1.1"))
	}
	guessCodes(t, browsers[0], 4)
	guessCodes(t, browsers[1], 4)
	guessCodes(t, browsers[2], 2)
	// The address's eleventh, carol's third.
	r := browsers[2].Post("/login/device", url.Values{"code": {"BBBB-BBBB"}})
	servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many codes that name no login")
	// carol from another address: her account is not limited.
	guessCodes(t, browsers[2].From("127.0.1.2"), 1)
}

// The account's limit holds alone: one account's guesses, each from a new
// address, are refused past ten, while another account goes on from the
// address that was refused.
func TestDeviceLoginCodeGuessesAreLimitedPerAccount(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := servertest.NewWebClient(t, env.URL)
	alice.Login(env.CreateUser(t, "alice"))
	for i := range 10 {
		guessCodes(t, alice.From(fmt.Sprintf("127.0.2.%d", i+1)), 1)
	}
	r := alice.From("127.0.2.11").Post("/login/device", url.Values{"code": {"BBBB-BBBB"}})
	servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many codes that name no login")
	bob := servertest.NewWebClient(t, env.URL)
	bob.Login(env.CreateUser(t, "bob"))
	guessCodes(t, bob.From("127.0.2.11"), 1)
}

// What a user reads about logging in from the command line: the home page
// says pact login goes through the browser (no token to paste), and the
// page that approves it is titled in plain English.
func TestLoginTextsSayTheBrowserFlow(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	browser := servertest.NewWebClient(t, env.URL)
	home := browser.Get("/")
	servertest.WantPage(t, home, http.StatusOK, "pact shows a code that you approve in your browser on this site: no token to copy")
	if strings.Contains(home.Body, "paste an API token") {
		t.Error("the home page still says to paste an API token for pact login")
	}
	browser.Login(alice)
	code := beginDeviceLogin(t, env, "laptop")
	for _, page := range []servertest.WebResponse{browser.Get("/login/device"), browser.Post("/login/device", url.Values{"code": {code}})} {
		servertest.WantPage(t, page, http.StatusOK, "<title>Log in from the command line · pact</title>",
			`<h1 id="device-heading">Log in from the command line</h1>`)
		if strings.Contains(page.Body, "Log in the command line") {
			t.Error("the device page still reads \"Log in the command line\"")
		}
	}
}
