package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server"
)

// startBehindProxy serves pact (one account, dana, password "long enough")
// as if behind a reverse proxy on loopback, so each request may say which
// client address it comes from in X-Forwarded-For.
func startBehindProxy(t *testing.T, attempts int) *servertest.WebClient {
	t.Helper()
	return startBehindProxyWithTables(t, attempts, 0)
}

// startBehindProxyWithTables is startBehindProxy with each throttle's table
// bounded to keys keys (0: the default).
func startBehindProxyWithTables(t *testing.T, attempts, keys int) *servertest.WebClient {
	t.Helper()
	return servertest.NewWebClient(t, servertest.StartWithConfig(t, server.Config{BaseURL: "http://pact.test",
		LoginAttempts: attempts, LoginWindow: time.Hour, TrustedProxies: []string{"127.0.0.1", "::1"}, LoginTableKeys: keys}))
}

func loginFrom(browser *servertest.WebClient, addr, login, password string) servertest.WebResponse {
	browser.T().Helper()
	return browser.Post("/login", url.Values{"login": {login}, "password": {password}}, "X-Forwarded-For", addr)
}

// A guesser who takes a new address for every guess is still locked out of
// the account after four times --login-attempts failures, whatever address
// or spelling of the account (username or email) comes next; the lock is
// the account's, so another account still logs in.
func TestLoginLockOutFollowsTheAccountAcrossAddresses(t *testing.T) {
	t.Parallel()
	browser := startBehindProxy(t, 2) // the account's budget: 8
	for i := range 8 {
		r := loginFrom(browser, fmt.Sprintf("198.51.100.%d", i+1), "dana", "guess")
		servertest.WantPage(t, r, http.StatusUnauthorized, "Wrong username or password")
	}
	for i, login := range []string{"dana", "DANA", "dana@example.com"} {
		addr := fmt.Sprintf("203.0.113.%d", i+1)
		r := loginFrom(browser, addr, login, "long enough")
		servertest.WantPage(t, r, http.StatusTooManyRequests, "Too many failed log-ins")
		if servertest.SetCookie(r, "pact_session") != nil {
			t.Errorf("%s from %s: a locked-out log-in set a session cookie", login, addr)
		}
		if r.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	}
	// Another account is not locked: a wrong password is checked (401).
	servertest.WantPage(t, loginFrom(browser, "203.0.113.9", "erin", "guess"), http.StatusUnauthorized, "Wrong username or password")
	servertest.WantPage(t, loginFrom(browser, "2001:db8:1::1", "erin", "guess"), http.StatusUnauthorized, "Wrong username or password")
}

// The same guesses spread over email and username spellings count as one
// account from the start.
func TestLoginSpellingsShareTheAccountsBudget(t *testing.T) {
	t.Parallel()
	browser := startBehindProxy(t, 1) // the account's budget: 4
	for i := range 4 {
		login := "dana"
		if i%2 == 1 {
			login = "Dana@example.com"
		}
		servertest.WantPage(t, loginFrom(browser, fmt.Sprintf("198.51.100.%d", i+1), login, "guess"), http.StatusUnauthorized)
	}
	servertest.WantPage(t, loginFrom(browser, "198.51.100.99", "dana", "long enough"), http.StatusTooManyRequests)
}

// 2^16 addresses inside one IPv6 /64 count as one address: after its
// budget (20 × --login-attempts, over as many usernames) every other
// address of the /64 is refused, while the next /64 and IPv4 are not.
func TestLoginIPv6AddressesCountBy64(t *testing.T) {
	t.Parallel()
	browser := startBehindProxy(t, 1) // the address's budget: 20
	addr := func(i int) string { return fmt.Sprintf("2001:db8:aa:bb:%x:%x::%x", i>>12, i&0xfff, i) }
	for i := range 20 {
		servertest.WantPage(t, loginFrom(browser, addr(i), fmt.Sprintf("user%d", i), "guess"), http.StatusUnauthorized)
	}
	const workers = 8
	const step = 16 // 4,096 requests spread over the whole range
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	var refused atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := 20 + w*step; i < 1<<16 && !t.Failed(); i += workers * step {
				form := url.Values{"login": {fmt.Sprintf("user%d", i)}, "password": {"guess"}}
				req, _ := http.NewRequest(http.MethodPost, browser.URL("/login"), strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Sec-Fetch-Site", "same-origin")
				req.Header.Set("X-Forwarded-For", addr(i))
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("%s: %v", addr(i), err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusTooManyRequests {
					// Stop at once: counted per address, 2^16 passwords
					// would be checked.
					t.Errorf("%s: status %d, want 429: the /64 is over its budget", addr(i), resp.StatusCode)
					return
				}
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if want := int64((1<<16 - 20 + step - 1) / step); refused.Load() != want {
		t.Errorf("%d addresses of the /64 refused, want %d", refused.Load(), want)
	}
	servertest.WantPage(t, loginFrom(browser, "2001:db8:aa:bc::1", "dana", "long enough"), http.StatusSeeOther)
	servertest.WantPage(t, loginFrom(browser, "::ffff:198.51.100.7", "erin", "guess"), http.StatusUnauthorized)
}

// Filling the tables with new usernames and addresses does not wipe a
// lock-out: before, a full table was cleared at once.
func TestFullLoginTablesKeepLockOuts(t *testing.T) {
	t.Parallel()
	browser := startBehindProxyWithTables(t, 2, 20) // per address and account: 2; per account: 8
	// Locked: dana from 192.0.2.1 (2 failures there), and the account
	// (8 failures over 4 addresses).
	for i := range 8 {
		servertest.WantPage(t, loginFrom(browser, fmt.Sprintf("192.0.2.%d", i/2+1), "dana", "guess"), http.StatusUnauthorized)
	}
	servertest.WantPage(t, loginFrom(browser, "192.0.2.200", "dana", "long enough"), http.StatusTooManyRequests)
	// 60 new keys in each table, three times its size.
	for i := range 60 {
		r := loginFrom(browser, fmt.Sprintf("10.0.%d.%d", i/200, i%200+1), fmt.Sprintf("flood%d", i), "guess")
		if r.Status != http.StatusUnauthorized && r.Status != http.StatusTooManyRequests {
			t.Fatalf("flood %d: status %d", i, r.Status)
		}
	}
	for _, addr := range []string{"192.0.2.1", "192.0.2.201"} {
		r := loginFrom(browser, addr, "dana", "long enough")
		if r.Status != http.StatusTooManyRequests || !strings.Contains(r.Body, "Too many failed log-ins") {
			t.Errorf("dana from %s after the flood: status %d, want 429: the lock-out was forgotten", addr, r.Status)
		}
	}
}
