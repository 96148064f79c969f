package main_test

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the test's own connection to pactd's PostgreSQL database

	"github.com/pact-registry/pact/internal/storetest"
)

// --db-max-conns caps the connections one replica opens to PostgreSQL, and
// --db-statement-timeout bounds how long a request waits for the database:
// with the packages table locked, six list requests hold exactly two
// connections (the others wait in pactd, not on the server) and all answer
// 503 after about the timeout (3s here) instead of the default five.
func TestDBMaxConnsAndStatementTimeoutOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	srv := startPactd(t, dsn, "--db-max-conns", "2", "--db-statement-timeout", lockTimeout.String())
	mostOpen, mostWaiting := behindALock(t, dsn, srv.URL+"/api/packages", 6)
	if mostOpen > 2 || mostWaiting != 2 {
		t.Errorf("pactd held up to %d connections, %d of them waiting for the lock; want at most 2, both waiting", mostOpen, mostWaiting)
	}
	wantAnswer(t, "GET /api/packages once the lock is gone", get(t, srv.URL+"/api/packages", ""), http.StatusOK)
}

// Searches have a pool of their own on PostgreSQL, half of --db-max-conns
// (docs/operations.md): with the packages table locked, eight searches
// hold three connections waiting for the lock, not eight, and all answer
// 503 after about the timeout.
func TestSearchPoolOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	srv := startPactd(t, dsn, "--db-max-conns", "6", "--db-statement-timeout", lockTimeout.String())
	search := srv.URL + "/api/packages?q=widget"
	_, mostWaiting := behindALock(t, dsn, search, 8)
	if mostWaiting != 3 {
		t.Errorf("%d searches waited for the lock at once; want 3, the search pool's size", mostWaiting)
	}
	wantAnswer(t, "a search once the lock is gone", get(t, search, ""), http.StatusOK)
}

// lockTimeout is the --db-statement-timeout of the tests behind a lock. It
// is long enough for every request to reach the lock on a loaded machine
// (with 1s, a CI run under -race saw searches time out while still opening
// their pool's connections, so only one was ever seen waiting at once).
const lockTimeout = 3 * time.Second

// behindALock sends n concurrent GETs of url while the packages table of
// the database at dsn is locked, checks that each answers 503 after about
// lockTimeout (pactd's --db-statement-timeout), and returns the most
// connections pactd held to the database at once and the most of them
// waiting for the lock, sampled until 80% of lockTimeout: at the timeout
// the requests are cancelled, pgx closes the connections they were
// cancelled on, and for a moment PostgreSQL still shows a closing backend
// beside the new connection a request still waiting may open. The lock is
// gone when it returns.
func behindALock(t *testing.T, dsn, url string, n int) (mostOpen, mostWaiting int) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lock, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(ctx, "LOCK TABLE packages IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}

	type outcome struct {
		status int
		took   time.Duration
	}
	outcomes := make(chan outcome, n)
	sent := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			resp, err := httpClient.Get(url)
			if err != nil {
				t.Errorf("GET %s: %v", url, err)
				return
			}
			resp.Body.Close()
			outcomes <- outcome{resp.StatusCode, time.Since(start)}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	for sampling := true; sampling; {
		select {
		case <-done:
			sampling = false
		case <-time.After(10 * time.Millisecond):
		}
		var open, waiting int
		err := db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock')
FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'pactd'`).Scan(&open, &waiting)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(sent) < lockTimeout*8/10 {
			mostOpen, mostWaiting = max(mostOpen, open), max(mostWaiting, waiting)
		}
	}
	close(outcomes)
	for o := range outcomes {
		if o.status != http.StatusServiceUnavailable || o.took < lockTimeout*9/10 || o.took > lockTimeout+5*time.Second {
			t.Errorf("GET %s behind a lock: %d after %v, want 503 after about %v", url, o.status, o.took, lockTimeout)
		}
	}
	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	return mostOpen, mostWaiting
}

// --db-read-cache-bytes 0 turns SQLite's cache of hot documents off: a
// document changed in the file behind pactd's back is served as the file
// now holds it, where the default cache keeps serving what it read first.
func TestDBReadCacheBytesZeroReadsTheFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		cached bool
	}{
		{"default cache", nil, true},
		{"cache off", []string{"--db-read-cache-bytes", "0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "pact.db")
			srv, token := startWithToken(t, "alice", file, tc.args...)
			original := packDocument("cached", "1.0.0", "As published.")
			wantAnswer(t, "publish", publish(t, srv.URL, token, original), http.StatusOK)
			raw := srv.URL + "/raw/alice/cached.pact.md"
			wantAnswer(t, "GET the document", get(t, raw, ""), http.StatusOK)

			db, err := sql.Open("sqlite3", file+"?_busy_timeout=5000")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			changed := packDocument("cached", "1.0.0", "Changed in the file.")
			if _, err := db.Exec("UPDATE versions SET content = ?", []byte(changed)); err != nil {
				t.Fatal(err)
			}

			want := changed
			if tc.cached {
				want = original
			}
			if got := get(t, raw, ""); got.status != http.StatusOK || string(got.body) != want {
				t.Errorf("GET the document after the file changed: %s\nwant %q", got, want)
			}
		})
	}
}

// --db-busy-timeout bounds how long SQLite waits for a lock another process
// holds: a publish while another connection writes answers 503 after about
// 200ms instead of the default five seconds, with Retry-After, and
// succeeds once the lock is released.
func TestDBBusyTimeoutOnSQLite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pact.db")
	srv, token := startWithToken(t, "alice", file, "--db-busy-timeout", "200ms")

	db, err := sql.Open("sqlite3", file+"?_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	writer, err := db.Begin() // BEGIN IMMEDIATE: the database's write lock
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback()

	start := time.Now()
	got := publish(t, srv.URL, token, packDocument("busy", "1.0.0", "Waits for the lock."))
	if took := time.Since(start); got.status != http.StatusServiceUnavailable || took > 3*time.Second {
		t.Errorf("publish while another process writes: %s after %v, want 503 within about 200ms", got, took)
	}
	if got.header.Get("Retry-After") != "5" {
		t.Errorf("the 503 of a busy database has Retry-After %q, want 5", got.header.Get("Retry-After"))
	}
	if err := writer.Rollback(); err != nil {
		t.Fatal(err)
	}
	wantAnswer(t, "publish once the lock is released", publish(t, srv.URL, token, packDocument("busy", "1.0.0", "Waits for the lock.")), http.StatusOK)
}
