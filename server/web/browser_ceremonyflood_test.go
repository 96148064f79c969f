package web_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to count the stored ceremonies

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/soak"
	"github.com/pact-registry/pact/internal/storetest"
)

// The review's flood: 100 POST /login/passkey/begin from each of 101
// addresses, which filled the 10,000 ceremonies the registry kept, so that
// for five minutes nobody with a second factor could log in. The
// ceremonies of anonymous visitors now stay with them (a sealed cookie):
// the flood stores nothing, and bob, in Chromium with a virtual
// authenticator, logs in with his password and passkey, and with his
// passkey alone, right after it. An answer that logged in does not log in
// again. On PostgreSQL two replicas share the database: the flood goes to
// both, and a ceremony begun on one finishes on the other. Unless the tests
// soak (internal/soak), each address begins 10, not 100.
func TestPasskeyCeremonyFlood(t *testing.T) {
	t.Parallel()
	for _, backend := range []struct {
		name, driver string
		dsn          func(t *testing.T) string
	}{
		{"sqlite", "sqlite3", func(t *testing.T) string { return t.TempDir() + "/pact.db" }},
		{"postgres", "pgx", func(t *testing.T) string { return storetest.PostgresURL(t) }},
	} {
		t.Run(backend.name, func(t *testing.T) {
			dsn := backend.dsn(t)
			db, err := sql.Open(backend.driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			passkeysDuringACeremonyFlood(t, dsn, db, backend.name == "postgres")
		})
	}
}

func passkeysDuringACeremonyFlood(t *testing.T, dsn string, db *sql.DB, replicated bool) {
	// 10,100 begins when the tests soak (internal/soak, as CI does),
	// 1,010 otherwise: a flood that stored anything would show it.
	const addresses = 101
	perAddress := soak.Size(100, 10)
	ctx := newBrowser(t, 180*time.Second)
	one := servertest.Start(t, dsn, servertest.Options{Localhost: true})
	other := one
	if replicated {
		other = servertest.Start(t, dsn, servertest.Options{Localhost: true})
	}
	bob := one.CreateUser(t, "bob")
	b := tab{t: t, ctx: ctx}
	addAuthenticator(t, ctx)

	// bob has a passkey and requires it after his password.
	b.logInWithPassword(one.URL, "bob", bob.Password)
	b.open(one.URL + "/dashboard/account")
	b.do("adding a passkey", chromedp.Click(chromedp.CSS("#add-passkey")))
	b.waitLocation(one.URL + "/dashboard/account?done=passkey-added#passkeys")
	b.submit("#require-passkey")
	b.logOut(one.URL)

	// The flood, from 127.3.0.1 to 127.3.0.101, to both replicas.
	var wg sync.WaitGroup
	var mu sync.Mutex
	answered := map[int]int{}
	for a := range addresses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := []*servertest.Env{one, other}[a%2]
			flooder := servertest.NewWebClient(t, strings.Replace(env.URL, "//localhost:", "//127.0.0.1:", 1)).From(fmt.Sprintf("127.3.0.%d", a+1))
			for range perAddress {
				r := postJSON(flooder, "/login/passkey/begin", "{}")
				mu.Lock()
				answered[r.Status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("the flood's %d begins answered (by status): %v", addresses*perAddress, answered)
	var stored int
	if err := db.QueryRow("SELECT count(*) FROM webauthn_ceremonies").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Errorf("the flood of anonymous begins stored %d ceremonies on the server, want none", stored)
	}

	// bob: password, then passkey.
	b.logInWithPassword(one.URL, "bob", bob.Password)
	if loc := b.location(); loc != one.URL+"/login/second-factor" {
		t.Fatalf("during the flood bob's password led to %s, not the second factor (the page says %q)", loc, b.text("main"))
	}
	b.do("using the passkey", chromedp.Click(chromedp.CSS("#second-factor-passkey")))
	b.waitLocation(one.URL + "/dashboard")
	b.logOut(one.URL)

	// bob: passkey alone, on the other replica.
	b.open(other.URL + "/login")
	b.do("logging in with a passkey", chromedp.Click(chromedp.CSS("#passkey-login")))
	b.waitLocation(other.URL + "/dashboard")
	if got := b.text("main .meta"); !strings.Contains(got, "Logged in as bob") {
		t.Fatalf("after a passkey log-in the header shows %q", got)
	}

	// A ceremony begun on one replica, answered in the browser, finished
	// on the other; the same cookie and answer again are refused.
	begin, err := http.Post(one.URL+"/login/passkey/begin", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	options, _ := io.ReadAll(begin.Body)
	begin.Body.Close()
	var ceremony *http.Cookie
	for _, c := range begin.Cookies() {
		if c.Name == "pact_webauthn" {
			ceremony = c
		}
	}
	if begin.StatusCode != http.StatusOK || ceremony == nil {
		t.Fatalf("begin: %d %s, cookie %v", begin.StatusCode, options, ceremony)
	}
	b.open(other.URL + "/login")
	credential := assertPasskey(b, options)
	finish := func() (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, other.URL+"/login/passkey/finish", bytes.NewReader([]byte(credential)))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(&http.Cookie{Name: ceremony.Name, Value: ceremony.Value})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, body := finish(); status != http.StatusOK || !strings.Contains(body, `"redirect":"/dashboard"`) {
		t.Fatalf("a ceremony begun on one replica, finished on the other: %d %s", status, body)
	}
	if status, body := finish(); status != http.StatusUnauthorized || !strings.Contains(body, "expired or was used") {
		t.Errorf("the same ceremony cookie and answer a second time: %d %s, want 401", status, body)
	}
}
