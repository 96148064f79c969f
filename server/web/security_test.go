package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

const (
	firefoxUA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	iphoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)

// loginAs logs user in with the given User-Agent and returns the client.
func loginAs(t *testing.T, env *servertest.Env, user *servertest.User, userAgent string) *servertest.WebClient {
	t.Helper()
	web := servertest.NewWebClient(t, env.URL)
	r := web.Post("/login", url.Values{"login": {user.Account.Username}, "password": {user.Password}}, "User-Agent", userAgent)
	servertest.WantRedirect(t, r, "/dashboard")
	return web
}

// sessionsOf lists an account's sessions as the store has them.
func sessionsOf(t *testing.T, env *servertest.Env, u *servertest.User) []registry.Session {
	t.Helper()
	list, err := env.Store.ListSessions(context.Background(), u.Account.ID, env.Clock.Now(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func sessionWithAgent(t *testing.T, env *servertest.Env, u *servertest.User, userAgent string) registry.Session {
	t.Helper()
	for _, s := range sessionsOf(t, env, u) {
		if s.UserAgent == userAgent {
			return s
		}
	}
	t.Fatalf("no session of %s with user agent %q", u.Account.Username, userAgent)
	return registry.Session{}
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		here := loginAs(t, env, alice, firefoxUA)
		elsewhere := loginAs(t, env, alice, iphoneUA)
		bobs := loginAs(t, env, bob, firefoxUA)

		page := here.Get("/dashboard/account")
		servertest.WantPage(t, page, http.StatusOK, `<label for="current-password">`, `<label for="new-password">`,
			`<label for="confirm-password">`, `action="/dashboard/password"`, "At least 8 characters")
		assertNoInlineCode(t, page.Body)
		servertest.WantPage(t, page, http.StatusOK, `<a href="/dashboard/account" aria-current="page">Account</a>`)
		servertest.WantPage(t, here.Get("/dashboard"), http.StatusOK, `<a href="/dashboard/account">Account</a>`)

		change := func(current, password, confirm string) servertest.WebResponse {
			return here.Post("/dashboard/password", url.Values{"current_password": {current}, "new_password": {password}, "confirm_password": {confirm}})
		}
		refusals := []struct {
			name                       string
			current, password, confirm string
			status                     int
			message                    string
		}{
			{"wrong current password", "not it", "a new passphrase", "a new passphrase", http.StatusUnauthorized, "Your current password is wrong."},
			{"confirmation differs", alice.Password, "a new passphrase", "a new passphrasf", http.StatusBadRequest, "differ"},
			{"too short", alice.Password, "short", "short", http.StatusBadRequest, "Password must be at least 8 characters."},
			{"too long", alice.Password, strings.Repeat("x", 1025), strings.Repeat("x", 1025), http.StatusBadRequest, "at most 1024 characters"},
			{"nothing entered", "", "", "", http.StatusBadRequest, "Enter your current password"},
		}
		for _, c := range refusals {
			servertest.WantPage(t, change(c.current, c.password, c.confirm), c.status, c.message)
		}
		if n := len(sessionsOf(t, env, alice)); n != 2 {
			t.Fatalf("refused changes ended sessions: alice has %d, want 2", n)
		}
		// Sent from another site, the form is refused and changes nothing.
		r := here.Post("/dashboard/password", url.Values{"current_password": {alice.Password}, "new_password": {"a new passphrase"},
			"confirm_password": {"a new passphrase"}}, "Sec-Fetch-Site", "cross-site")
		servertest.WantPage(t, r, http.StatusForbidden, "another site")

		servertest.WantRedirect(t, change(alice.Password, "a new passphrase", "a new passphrase"), "/dashboard/account?done=password-changed")
		servertest.WantPage(t, here.Get("/dashboard/account?done=password-changed"), http.StatusOK,
			"Your password is changed. Every other session of your account is logged out.")
		// This session stays; the other one of alice ends; bob's stays.
		servertest.WantPage(t, here.Get("/dashboard"), http.StatusOK, "Logged in as <strong>alice</strong>")
		servertest.WantRedirect(t, elsewhere.Get("/dashboard"), "/login")
		servertest.WantPage(t, bobs.Get("/dashboard"), http.StatusOK, "Logged in as <strong>bob</strong>")
		// The old password opens nothing; the new one does.
		fresh := servertest.NewWebClient(t, env.URL)
		servertest.WantPage(t, fresh.Post("/login", url.Values{"login": {"alice"}, "password": {alice.Password}}), http.StatusUnauthorized, "Wrong username or password")
		servertest.WantRedirect(t, fresh.Post("/login", url.Values{"login": {"alice"}, "password": {"a new passphrase"}}), "/dashboard")
		// Tokens are not sessions: alice's token still works.
		wantStatus(t, env.API.Get("/api/me", alice.Bearer()).Status, http.StatusOK, nil)
	})
}

// Wrong current passwords are counted against the account like failed
// log-ins: a stolen session cannot guess the password.
func TestChangePasswordThrottle(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	web := loginAs(t, env, alice, firefoxUA)
	change := func(current string) servertest.WebResponse {
		return web.Post("/dashboard/password", url.Values{"current_password": {current}, "new_password": {"a new passphrase"}, "confirm_password": {"a new passphrase"}})
	}
	for i := 0; i < 5; i++ {
		servertest.WantPage(t, change(fmt.Sprint("guess ", i)), http.StatusUnauthorized, "Your current password is wrong.")
	}
	r := change(alice.Password)
	servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many wrong passwords. Try again in 15 minutes.")
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After")
	}
	// Another browser of the same account is held back too.
	other := loginAs(t, env, alice, iphoneUA)
	r = other.Post("/dashboard/password", url.Values{"current_password": {alice.Password}, "new_password": {"a new passphrase"}, "confirm_password": {"a new passphrase"}})
	servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many wrong passwords")
	env.Clock.Advance(15 * time.Minute)
	servertest.WantRedirect(t, change(alice.Password), "/dashboard/account?done=password-changed")
}

func TestSessionsPage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		here := loginAs(t, env, alice, firefoxUA)
		phone := loginAs(t, env, alice, iphoneUA)
		// A User-Agent far over the bound, with a tab.
		hugeUA := "Pathological/1.0 \t" + strings.Repeat("é", 3000)
		third := loginAs(t, env, alice, hugeUA)
		bobs := loginAs(t, env, bob, firefoxUA)

		page := here.Get("/dashboard/account")
		servertest.WantPage(t, page, http.StatusOK, "Firefox 128 on Linux", "Safari 17 on iOS", "Pathological/1.0",
			"<code>127.0.0.1</code>", "this session", `action="/dashboard/logout-everywhere"`)
		if n := strings.Count(page.Body, "this session</span>"); n != 1 {
			t.Errorf("%d sessions are marked as this one, want 1", n)
		}
		if n := strings.Count(page.Body, `action="/dashboard/sessions/`); n != 3 {
			t.Errorf("the page lists %d sessions, want alice's 3", n)
		}
		assertNoInlineCode(t, page.Body)
		huge := sessionWithAgent(t, env, alice, "Pathological/1.0  "+strings.Repeat("é", (registry.MaxUserAgentBytes-18)/2))
		if len(huge.UserAgent) > registry.MaxUserAgentBytes || huge.IP != "127.0.0.1" {
			t.Errorf("stored user agent of %d bytes from %q", len(huge.UserAgent), huge.IP)
		}

		// Last seen is written at most once a minute.
		mine := sessionWithAgent(t, env, alice, firefoxUA)
		env.Clock.Advance(30 * time.Second)
		here.Get("/dashboard")
		if got := sessionWithAgent(t, env, alice, firefoxUA).LastSeenAt; !got.Equal(mine.CreatedAt) {
			t.Errorf("last seen moved to %v within a minute", got)
		}
		env.Clock.Advance(31 * time.Second)
		here.Get("/dashboard")
		if got := sessionWithAgent(t, env, alice, firefoxUA).LastSeenAt; !got.Equal(env.Clock.Now()) {
			t.Errorf("last seen %v after a minute, want %v", got, env.Clock.Now())
		}
		servertest.WantPage(t, here.Get("/dashboard/account"), http.StatusOK,
			fmt.Sprintf(`<time datetime="%s">`, env.Clock.Now().Format(time.RFC3339)))

		// End the phone's session: it is logged out, the others stay.
		phoneSession := sessionWithAgent(t, env, alice, iphoneUA)
		servertest.WantRedirect(t, here.Post(fmt.Sprintf("/dashboard/sessions/%d/end", phoneSession.ID), nil), "/dashboard/account?done=session-ended#sessions")
		servertest.WantRedirect(t, phone.Get("/dashboard"), "/login")
		servertest.WantPage(t, third.Get("/dashboard"), http.StatusOK, "alice")
		// Another account's session, or one already ended, is not found.
		bobSession := sessionWithAgent(t, env, bob, firefoxUA)
		servertest.WantPage(t, here.Post(fmt.Sprintf("/dashboard/sessions/%d/end", bobSession.ID), nil), http.StatusNotFound)
		servertest.WantPage(t, here.Post(fmt.Sprintf("/dashboard/sessions/%d/end", phoneSession.ID), nil), http.StatusNotFound)
		servertest.WantPage(t, here.Post("/dashboard/sessions/x/end", nil), http.StatusNotFound)
		servertest.WantPage(t, bobs.Get("/dashboard"), http.StatusOK, "bob")
		// From another site nothing ends.
		r := here.Post(fmt.Sprintf("/dashboard/sessions/%d/end", sessionWithAgent(t, env, alice, firefoxUA).ID), nil, "Sec-Fetch-Site", "cross-site")
		servertest.WantPage(t, r, http.StatusForbidden)
		r = here.Post("/dashboard/logout-everywhere", nil, "Sec-Fetch-Site", "cross-site")
		servertest.WantPage(t, r, http.StatusForbidden)
		if n := len(sessionsOf(t, env, alice)); n != 2 {
			t.Fatalf("alice has %d sessions, want 2", n)
		}

		// Ending this session is logging out.
		r = third.Post(fmt.Sprintf("/dashboard/sessions/%d/end", huge.ID), nil)
		servertest.WantRedirect(t, r, "/")
		if ck := servertest.SetCookie(r, sessionCookie); ck == nil || ck.MaxAge >= 0 {
			t.Errorf("ending this session did not clear the cookie: %v", ck)
		}
		servertest.WantRedirect(t, third.Get("/dashboard"), "/login")

		// Log out everywhere: every session ends, this one too, and the
		// log-in page says so. Bob and alice's token are not affected.
		again := loginAs(t, env, alice, iphoneUA)
		r = here.Post("/dashboard/logout-everywhere", nil)
		servertest.WantRedirect(t, r, "/login?done=logged-out-everywhere")
		if ck := servertest.SetCookie(r, sessionCookie); ck == nil || ck.MaxAge >= 0 {
			t.Errorf("logging out everywhere did not clear the cookie: %v", ck)
		}
		servertest.WantPage(t, here.Get("/login?done=logged-out-everywhere"), http.StatusOK, "You are logged out everywhere")
		servertest.WantRedirect(t, here.Get("/dashboard"), "/login")
		servertest.WantRedirect(t, again.Get("/dashboard"), "/login")
		if n := len(sessionsOf(t, env, alice)); n != 0 {
			t.Errorf("alice has %d sessions after logging out everywhere", n)
		}
		servertest.WantPage(t, bobs.Get("/dashboard"), http.StatusOK, "bob")
		wantStatus(t, env.API.Get("/api/me", alice.Bearer()).Status, http.StatusOK, nil)
		// The account pages need a session.
		servertest.WantRedirect(t, here.Get("/dashboard/account"), "/login")
		servertest.WantRedirect(t, here.Post("/dashboard/password", url.Values{"current_password": {"x"}}), "/login")
		servertest.WantRedirect(t, here.Post("/dashboard/logout-everywhere", nil), "/login")
	})
}

// The page lists the most recently seen sessions only, and says so.
func TestSessionsPageIsBounded(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	ctx := context.Background()
	for i := 0; i < registry.MaxSessionsPerAccount+20; i++ {
		if _, err := env.Service.StartSession(ctx, alice.Account.ID, registry.SessionClient{UserAgent: fmt.Sprintf("robot/%d", i), IP: "192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
	}
	web := loginAs(t, env, alice, firefoxUA)
	if n := len(sessionsOf(t, env, alice)); n != registry.MaxSessionsPerAccount {
		t.Errorf("alice keeps %d sessions, want at most %d", n, registry.MaxSessionsPerAccount)
	}
	page := web.Get("/dashboard/account")
	servertest.WantPage(t, page, http.StatusOK, fmt.Sprintf("Only the %d most recently seen sessions are listed.", registry.MaxListedSessions), "this session")
	if n := strings.Count(page.Body, `action="/dashboard/sessions/`); n != registry.MaxListedSessions {
		t.Errorf("the page lists %d sessions, want %d", n, registry.MaxListedSessions)
	}
}

// A disabled account cannot log in (the page says why), and its open
// sessions end; enabled again, it logs in.
func TestDisabledAccountCannotLogIn(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := loginAs(t, env, alice, firefoxUA)
		if _, ended, err := env.Service.DisableAccount(context.Background(), "alice"); err != nil || ended != 1 {
			t.Fatalf("DisableAccount = %d sessions ended, %v; want 1", ended, err)
		}
		servertest.WantRedirect(t, web.Get("/dashboard"), "/login")
		r := web.Post("/login", url.Values{"login": {"alice"}, "password": {alice.Password}})
		servertest.WantPage(t, r, http.StatusForbidden, "This account is disabled")
		if servertest.SetCookie(r, sessionCookie) != nil && servertest.SetCookie(r, sessionCookie).MaxAge >= 0 {
			t.Errorf("a disabled account got a session cookie")
		}
		// A wrong password says only that: the page is no oracle of
		// which accounts are disabled.
		servertest.WantPage(t, web.Post("/login", url.Values{"login": {"alice"}, "password": {"a wrong guess"}}), http.StatusUnauthorized, "Wrong username or password")
		if n := len(sessionsOf(t, env, alice)); n != 0 {
			t.Errorf("the disabled alice has %d sessions", n)
		}
		if _, err := env.Service.EnableAccount(context.Background(), "alice"); err != nil {
			t.Fatal(err)
		}
		web.Login(alice)
		servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, "alice")
	})
}
