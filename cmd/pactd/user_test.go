package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// browser logs in to the dashboard through the log-in form, as a person
// would: cookies kept, redirects not followed, forms same-origin.
type browser struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, client: &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// login posts the log-in form and returns the status and the page.
func (b *browser) login(username, password string) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.base+"/login", strings.NewReader(url.Values{"login": {username}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return b.do(req)
}

// dashboard reports whether the browser's session opens the dashboard.
func (b *browser) dashboard() bool {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.base+"/dashboard", nil)
	status, _ := b.do(req)
	return status == http.StatusOK
}

func (b *browser) do(req *http.Request) (int, string) {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func tokenStatus(t *testing.T, base, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/api/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestUserListPasswdDisableEnable runs pactd user list, passwd, disable and
// enable against the database of a running pactd, on SQLite and
// PostgreSQL, and checks what the server then does with the account.
func TestUserListPasswdDisableEnable(t *testing.T) {
	backends := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "pact.db") },
		"postgres": func(t *testing.T) string { return storetest.PostgresURL(t) },
	}
	for name, dsn := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startPactd(t, dsn(t))
			db := srv.DB
			const password = "correct horse battery staple"
			aliceToken, err := srv.CreateUserWithToken("alice")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := srv.CreateUserWithToken("bob"); err != nil {
				t.Fatal(err)
			}
			wantAnswer(t, "publish", publish(t, srv.URL, aliceToken, packDocument("widget", "1.0.0", "A widget.")), http.StatusOK)
			alice := newBrowser(t, srv.URL)
			if status, page := alice.login("alice", password); status != http.StatusSeeOther {
				t.Fatalf("log-in as alice: %d %s", status, page)
			}

			wantAnswer(t, "create the organisation acme", call(t, httpClient, http.MethodPost, srv.URL+"/api/orgs", aliceToken,
				map[string]string{"name": "acme"}), http.StatusCreated)

			// list, as a table and as JSON; an organisation is an account
			// of its own kind, without email.
			r := pactd(t, nil, "", "user", "list", "--db", db)
			if r.code != 0 || !regexp.MustCompile(`(?m)^USERNAME +KIND +EMAIL +CREATED +DISABLED +TOKENS +KEYS +PACKAGES +SESSIONS\n`+
				`alice +user +alice@example\.com +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +- +1 +0 +1 +1\n`+
				`bob +user +bob@example\.com +\S+ +- +1 +0 +0 +0\n`+
				`acme +organisation +- +\S+ +- +0 +0 +0 +0\n$`).MatchString(r.stdout) {
				t.Errorf("pactd user list: code %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			type listed struct {
				Username   string     `json:"username"`
				Kind       string     `json:"kind"`
				Email      string     `json:"email"`
				CreatedAt  time.Time  `json:"created_at"`
				DisabledAt *time.Time `json:"disabled_at"`
				Tokens     int        `json:"tokens"`
				SSHKeys    int        `json:"ssh_keys"`
				Packages   int        `json:"packages"`
				Sessions   int        `json:"sessions"`
			}
			listJSON := func() []listed {
				t.Helper()
				r := pactd(t, nil, "", "user", "list", "--db", db, "--json")
				var users []listed
				if err := json.Unmarshal([]byte(r.stdout), &users); r.code != 0 || err != nil {
					t.Fatalf("pactd user list --json: code %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
				}
				return users
			}
			users := listJSON()
			if len(users) != 3 || users[0].Username != "alice" || users[0].Kind != "user" || users[0].Tokens != 1 || users[0].Packages != 1 ||
				users[0].Sessions != 1 || users[0].DisabledAt != nil || users[0].CreatedAt.IsZero() || users[1].Username != "bob" ||
				users[2].Username != "acme" || users[2].Kind != "organisation" || users[2].Email != "" {
				t.Errorf("pactd user list --json = %+v", users)
			}

			// disable: the session ends, log-in and the token are refused,
			// and list says so.
			r = pactd(t, nil, "", "user", "disable", "alice", "--db", db)
			if r.code != 0 || !regexp.MustCompile(`^disabled alice \(since \S+Z\); 1 session ended\n$`).MatchString(r.stdout) {
				t.Errorf("pactd user disable alice: code %d, %q %q", r.code, r.stdout, r.stderr)
			}
			if alice.dashboard() {
				t.Errorf("the disabled alice's session still opens the dashboard")
			}
			if status, page := alice.login("alice", password); status != http.StatusForbidden || !strings.Contains(page, "This account is disabled") {
				t.Errorf("log-in of the disabled alice: %d, want 403 saying the account is disabled", status)
			}
			if status, body := tokenStatus(t, srv.URL, aliceToken); status != http.StatusForbidden || !strings.Contains(body, "the account alice is disabled") {
				t.Errorf("the disabled alice's token: %d %s, want 403 saying the account is disabled", status, body)
			}
			if users := listJSON(); users[0].DisabledAt == nil || users[0].Sessions != 0 || users[1].DisabledAt != nil {
				t.Errorf("after disabling alice, list says %+v", users)
			}

			// enable: token and log-in work again.
			r = pactd(t, nil, "", "user", "enable", "alice", "--db", db)
			if r.code != 0 || r.stdout != "enabled alice\n" {
				t.Errorf("pactd user enable alice: code %d, %q %q", r.code, r.stdout, r.stderr)
			}
			if status, body := tokenStatus(t, srv.URL, aliceToken); status != http.StatusOK {
				t.Errorf("the enabled alice's token: %d %s", status, body)
			}
			if status, _ := alice.login("alice", password); status != http.StatusSeeOther || !alice.dashboard() {
				t.Errorf("log-in of the enabled alice: %d", status)
			}

			// passwd: the session ends, the old password is refused, the
			// new one logs in; the token keeps working.
			r = pactd(t, nil, "a brand new password\n", "user", "passwd", "alice", "--password-stdin", "--db", db)
			if r.code != 0 || r.stdout != "changed the password of alice; 1 session ended\n" {
				t.Errorf("pactd user passwd alice: code %d, %q %q", r.code, r.stdout, r.stderr)
			}
			if alice.dashboard() {
				t.Errorf("alice's session survived pactd user passwd")
			}
			if status, _ := alice.login("alice", password); status != http.StatusUnauthorized {
				t.Errorf("log-in with the old password: %d, want 401", status)
			}
			if status, _ := alice.login("alice", "a brand new password"); status != http.StatusSeeOther || !alice.dashboard() {
				t.Errorf("log-in with the new password: %d", status)
			}
			if status, _ := tokenStatus(t, srv.URL, aliceToken); status != http.StatusOK {
				t.Errorf("alice's token after passwd: %d", status)
			}
		})
	}
}

func TestUserCommandRefusals(t *testing.T) {
	t.Parallel()
	db := migrated(t, filepath.Join(t.TempDir(), "pact.db"))
	if r := pactd(t, nil, "long enough\n", "user", "create", "--db", db, "--email", "a@example.com", "--username", "alice", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: %+v", r)
	}
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"passwd needs --password-stdin", "", []string{"user", "passwd", "alice", "--db", db}, 2, "--password-stdin"},
		{"passwd needs a username", "x\n", []string{"user", "passwd", "--password-stdin", "--db", db}, 2, "accepts 1 arg"},
		{"passwd of an unknown user", "long enough\n", []string{"user", "passwd", "bob", "--password-stdin", "--db", db}, 1, "no such user bob"},
		{"passwd with a short password", "short\n", []string{"user", "passwd", "alice", "--password-stdin", "--db", db}, 1, "at least 8"},
		{"passwd with empty stdin", "", []string{"user", "passwd", "alice", "--password-stdin", "--db", db}, 1, "empty"},
		{"disable an unknown user", "", []string{"user", "disable", "bob", "--db", db}, 1, "no such user bob"},
		{"disable needs a username", "", []string{"user", "disable", "--db", db}, 2, "accepts 1 arg"},
		{"enable an unknown user", "", []string{"user", "enable", "bob", "--db", db}, 1, "no such user bob"},
		{"list takes no arguments", "", []string{"user", "list", "alice", "--db", db}, 2, "unknown command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := pactd(t, nil, tc.stdin, tc.args...)
			if r.code != tc.code || r.stdout != "" || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("code %d (want %d), stdout %q, stderr %q (want it to hold %q)", r.code, tc.code, r.stdout, r.stderr, tc.stderr)
			}
		})
	}
	// Disabling twice keeps the first time; the password was not changed
	// by the refused attempts.
	first := pactd(t, nil, "", "user", "disable", "alice", "--db", db)
	second := pactd(t, nil, "", "user", "disable", "alice", "--db", db)
	if first.code != 0 || second.stdout != first.stdout {
		t.Errorf("disabling twice: %q then %q", first.stdout, second.stdout)
	}
}
