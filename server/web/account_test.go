package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/registry"
)

const sessionCookie = "pact_session"

func TestSignupLoginLogout(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		web := servertest.NewWebClient(t, env.URL)
		servertest.WantPage(t, web.Get("/signup"), http.StatusOK, `<label for="email">`, `<label for="username">`, `<label for="password">`)

		r := web.Post("/signup", url.Values{"email": {"carol@example.com"}, "username": {"Carol"}, "password": {"a long passphrase"}, "confirm_password": {"a long passphrase"}})
		servertest.WantRedirect(t, r, "/dashboard")
		ck := servertest.SetCookie(r, sessionCookie)
		if ck == nil {
			t.Fatalf("sign-up set no %s cookie; headers %v", sessionCookie, r.Header)
		}
		if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure || ck.Path != "/" {
			t.Errorf("cookie HttpOnly=%v SameSite=%v Secure=%v Path=%q, want HttpOnly, Lax, not Secure on http, /",
				ck.HttpOnly, ck.SameSite, ck.Secure, ck.Path)
		}
		if len(ck.Value) < 40 {
			t.Errorf("session id %q is too short to be unguessable", ck.Value)
		}
		sess, err := sessionOf(t, env, ck.Value)
		if err != nil {
			t.Fatalf("the session is not stored under the SHA-256 of the cookie: %v", err)
		}
		acct, err := env.Store.AccountByUsername(context.Background(), "carol")
		if err != nil {
			t.Fatalf("sign-up made no account: %v", err)
		}
		if sess.AccountID != acct.ID {
			t.Errorf("session is for account %d, want %d", sess.AccountID, acct.ID)
		}
		servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, "Logged in as <strong>carol</strong>")

		// Logging out deletes the session: the old cookie opens nothing.
		first := ck.Value
		r = web.Post("/logout", nil)
		servertest.WantRedirect(t, r, "/")
		if ck := servertest.SetCookie(r, sessionCookie); ck == nil || ck.MaxAge >= 0 {
			t.Errorf("log-out did not clear the cookie: %v", ck)
		}
		if _, err := sessionOf(t, env, first); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("session still stored after log-out (err %v)", err)
		}
		servertest.WantRedirect(t, web.Get("/dashboard"), "/login")
		replay := servertest.NewWebClient(t, env.URL)
		replay.AddCookies(&http.Cookie{Name: sessionCookie, Value: first})
		servertest.WantRedirect(t, replay.Get("/dashboard"), "/login")

		// Log in again, by email this time: a new session id.
		servertest.WantPage(t, web.Get("/login"), http.StatusOK, `<label for="login">`, `<label for="password">`)
		r = web.Post("/login", url.Values{"login": {"carol@example.com"}, "password": {"a long passphrase"}})
		servertest.WantRedirect(t, r, "/dashboard")
		second := web.Cookie(sessionCookie)
		if second == "" || second == first {
			t.Fatalf("log-in set session %q, want a new one", second)
		}

		// Logging in while logged in rotates the id and ends the old session.
		web.Post("/login", url.Values{"login": {"carol"}, "password": {"a long passphrase"}})
		if third := web.Cookie(sessionCookie); third == second {
			t.Errorf("log-in kept session id %q", third)
		}
		if _, err := sessionOf(t, env, second); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("the session before log-in survived it (err %v)", err)
		}
		servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, "carol")
	})
}

func TestSessionsExpire(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	web := servertest.NewWebClient(t, env.URL)
	web.Login(alice)
	servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, "alice")
	env.Clock.Advance(15 * 24 * time.Hour)
	servertest.WantRedirect(t, web.Get("/dashboard"), "/login")
}

func TestSignupRefusals(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	env.CreateUser(t, "taken")
	cases := []struct {
		name                      string
		email, username, password string
		status                    int
		message                   string
	}{
		{"reserved: dashboard", "a@example.com", "dashboard", "long enough", 400, "reserved"},
		{"reserved: static", "a@example.com", "static", "long enough", 400, "reserved"},
		{"reserved: docs", "a@example.com", "docs", "long enough", 400, "reserved"},
		{"reserved: login", "a@example.com", "login", "long enough", 400, "reserved"},
		{"reserved: signup", "a@example.com", "signup", "long enough", 400, "reserved"},
		{"reserved: logout", "a@example.com", "logout", "long enough", 400, "reserved"},
		{"leading dash", "a@example.com", "-dash", "long enough", 400, "not valid"},
		{"short password", "a@example.com", "newbie", "short", 400, "at least 8 characters"},
		{"bad email", "not-an-email", "newbie", "long enough", 400, "not a valid address"},
		{"username taken", "b@example.com", "Taken", "long enough", 409, "taken"},
		{"email taken", "taken@example.com", "other", "long enough", 409, "taken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			web := servertest.NewWebClient(t, env.URL)
			r := web.Post("/signup", url.Values{"email": {tc.email}, "username": {tc.username}, "password": {tc.password}, "confirm_password": {tc.password}})
			servertest.WantPage(t, r, tc.status, tc.message, `role="alert"`)
			if servertest.SetCookie(r, sessionCookie) != nil {
				t.Errorf("a refused sign-up set a session cookie")
			}
			// What was typed is kept, except the password.
			if !strings.Contains(r.Body, `value="`+tc.email+`"`) {
				t.Errorf("the form lost the email %q", tc.email)
			}
			if strings.Contains(r.Body, tc.password) {
				t.Errorf("the page echoes the password")
			}
		})
	}
}

func TestClosedSignup(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{Signup: "closed"})
	web := servertest.NewWebClient(t, env.URL)
	servertest.WantPage(t, web.Get("/signup"), http.StatusForbidden, "Sign-up is closed")
	r := web.Post("/signup", url.Values{"email": {"eve@example.com"}, "username": {"eve"}, "password": {"long enough"}, "confirm_password": {"long enough"}})
	servertest.WantPage(t, r, http.StatusForbidden, "Sign-up is closed")
	if _, err := env.Store.AccountByUsername(context.Background(), "eve"); !registry.IsCode(err, registry.NotFound) {
		t.Errorf("closed sign-up made an account (err %v)", err)
	}
	if home := web.Get("/"); strings.Contains(home.Body, `href="/signup"`) {
		t.Errorf("the site links to sign-up although it is closed")
	}
	// Accounts made by the administrator still log in.
	web.Login(env.CreateUser(t, "admin-made"))
}

func TestLoginThrottle(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	bob := env.CreateUser(t, "bob")
	web := servertest.NewWebClient(t, env.URL)
	wrong := url.Values{"login": {"alice"}, "password": {"not the password"}}
	right := url.Values{"login": {"alice"}, "password": {alice.Password}}

	for i := 0; i < 5; i++ {
		servertest.WantPage(t, web.Post("/login", wrong), http.StatusUnauthorized, "Wrong username or password")
	}
	// Locked: even the right password is refused, without a session.
	r := web.Post("/login", right)
	servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many failed log-ins")
	if r.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After")
	}
	if servertest.SetCookie(r, sessionCookie) != nil {
		t.Errorf("a throttled log-in set a session cookie")
	}
	// The lock is per username: bob, from the same address, logs in.
	web.Login(bob)

	env.Clock.Advance(15 * time.Minute)
	web.Login(alice)

	// A success clears the count: four more failures do not lock.
	for i := 0; i < 4; i++ {
		servertest.WantPage(t, web.Post("/login", wrong), http.StatusUnauthorized)
	}
	web.Login(alice)
}

func TestCrossSiteFormsAreRefused(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		tokensBefore := countTokens(t, env, alice)

		crossSite := [][]string{
			{"Sec-Fetch-Site", "cross-site"},
			{"Sec-Fetch-Site", "same-site"},
			{"Sec-Fetch-Site", "", "Origin", "http://evil.example"},
		}
		forms := []struct {
			path string
			form url.Values
		}{
			{"/dashboard/tokens", url.Values{"name": {"stolen"}}},
			{"/dashboard/keys", url.Values{"public_key": {"ssh-ed25519 AAAA"}}},
			{"/dashboard/tokens/1/revoke", nil},
			{"/logout", nil},
			{"/login", url.Values{"login": {"alice"}, "password": {alice.Password}}},
			{"/signup", url.Values{"email": {"m@example.com"}, "username": {"mallory"}, "password": {"long enough"}, "confirm_password": {"long enough"}}},
		}
		for _, headers := range crossSite {
			for _, f := range forms {
				r := web.Post(f.path, f.form, headers...)
				if r.Status != http.StatusForbidden {
					t.Errorf("POST %s with %v: status %d, want 403", f.path, headers, r.Status)
				}
				if servertest.SetCookie(r, sessionCookie) != nil {
					t.Errorf("POST %s with %v changed the session cookie", f.path, headers)
				}
			}
		}
		if got := countTokens(t, env, alice); got != tokensBefore {
			t.Errorf("cross-site posts changed the tokens: %d, want %d", got, tokensBefore)
		}
		if _, err := env.Store.AccountByUsername(context.Background(), "mallory"); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("a cross-site sign-up made an account")
		}
		servertest.WantPage(t, web.Get("/dashboard"), http.StatusOK, "alice") // still logged in
		// The same form from the site itself works.
		servertest.WantPage(t, web.Post("/dashboard/tokens", url.Values{"name": {"mine"}}), http.StatusOK, "Your new token")
		// So does one whose Origin is the configured base URL.
		servertest.WantPage(t, web.Post("/dashboard/tokens", url.Values{"name": {"mine too"}}, "Sec-Fetch-Site", "", "Origin", env.URL),
			http.StatusOK, "Your new token")
	})
}

func countTokens(t *testing.T, env *servertest.Env, u *servertest.User) int {
	t.Helper()
	tokens, err := env.Store.ListTokens(context.Background(), u.Account.ID, registry.TokenFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(tokens)
}

// Guesses sent in parallel are counted as they are let through, so a
// burst cannot get more tries than the limit.
func TestLoginThrottleHoldsUnderParallelGuesses(t *testing.T) {
	t.Parallel()
	base := servertest.StartWithConfig(t, server.Config{BaseURL: "http://pact.test", LoginAttempts: 3, LoginWindow: time.Hour})
	const guesses = 12
	statuses := make(chan int, guesses)
	var wg sync.WaitGroup
	for i := 0; i < guesses; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.PostForm(base+"/login", url.Values{"login": {"dana"}, "password": {"guess"}})
			if err != nil {
				t.Errorf("posting a guess: %v", err)
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for st := range statuses {
		counts[st]++
	}
	if counts[http.StatusUnauthorized] != 3 || counts[http.StatusTooManyRequests] != guesses-3 {
		t.Errorf("statuses %v, want 3 checked guesses (401) and the rest refused (429)", counts)
	}
}

// One address may not spray guesses over many usernames either.
func TestLoginThrottlePerAddress(t *testing.T) {
	t.Parallel()
	base := servertest.StartWithConfig(t, server.Config{BaseURL: "http://pact.test", LoginAttempts: 1, LoginWindow: time.Hour})
	web := servertest.NewWebClient(t, base)
	for i := 0; i < 20; i++ { // 20 × LoginAttempts per address
		r := web.Post("/login", url.Values{"login": {fmt.Sprintf("user%d", i)}, "password": {"guess"}})
		servertest.WantPage(t, r, http.StatusUnauthorized)
	}
	servertest.WantPage(t, web.Post("/login", url.Values{"login": {"dana"}, "password": {"long enough"}}),
		http.StatusTooManyRequests, "Too many failed log-ins")
}

// On an https base URL the cookie is Secure and __Host- prefixed. The test
// server speaks plain http; only the cookie's attributes matter here.
func TestSecureCookieWhenBaseURLIsHTTPS(t *testing.T) {
	t.Parallel()
	web := servertest.NewWebClient(t, servertest.StartWithConfig(t, server.Config{BaseURL: "https://pact.example.com"}))
	r := web.Post("/login", url.Values{"login": {"dana"}, "password": {"long enough"}}, "Sec-Fetch-Site", "")
	servertest.WantRedirect(t, r, "/dashboard")
	ck := servertest.SetCookie(r, "__Host-pact_session")
	if ck == nil {
		t.Fatalf("no __Host-pact_session cookie; headers %v", r.Header)
	}
	if !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Domain != "" {
		t.Errorf("cookie %+v, want Secure, HttpOnly, SameSite=Lax, Path=/, no Domain", ck)
	}
	// A form posted from the public address passes, whatever Host says.
	r = web.Post("/logout", nil, "Sec-Fetch-Site", "", "Origin", "https://pact.example.com")
	servertest.WantRedirect(t, r, "/")
}

// A sign-up with several problems lists every one of them in one answer,
// and makes nothing.
func TestSignupSaysEveryProblemAtOnce(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	web := servertest.NewWebClient(t, env.URL)
	r := web.Post("/signup", url.Values{"email": {"not-an-email"}, "username": {"-bad-"}, "password": {"short"}, "confirm_password": {"shorter"}})
	servertest.WantPage(t, r, http.StatusBadRequest, `role="alert"`, "Fix these 3 things",
		"not a valid address", "Username &#34;-bad-&#34; is not valid", "at least 8 characters",
		`id="email" name="email" type="email" autocomplete="email" required value="not-an-email" aria-invalid="true"`)
	// A long enough password typed twice differently is the only problem.
	r = web.Post("/signup", url.Values{"email": {"carol@example.com"}, "username": {"dashboard"}, "password": {"a long passphrase"}, "confirm_password": {"a long passfrase"}})
	servertest.WantPage(t, r, http.StatusBadRequest, "Fix these 2 things", "reserved", "The two passwords differ")
	if strings.Contains(r.Body, "a long pass") {
		t.Errorf("the page echoes a password")
	}
	// Taken is said only of a form without other problems.
	env.CreateUser(t, "taken")
	r = web.Post("/signup", url.Values{"email": {"x@example.com"}, "username": {"taken"}, "password": {"a long passphrase"}, "confirm_password": {"a long passphrase"}})
	servertest.WantPage(t, r, http.StatusConflict, "That username or email address is taken.")
	for _, name := range []string{"-bad-", "dashboard", "carol"} {
		if _, err := env.Store.AccountByUsername(context.Background(), strings.Trim(name, "-")); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("a refused sign-up made account %q (err %v)", name, err)
		}
	}
}
