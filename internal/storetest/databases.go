package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
)

// PostgresEnv names the variable that points the tests at a PostgreSQL
// server, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
const PostgresEnv = "PACT_TEST_POSTGRES_URL"

// RequirePostgres returns the URL of a PostgreSQL server the test may create
// databases on: the one in PACT_TEST_POSTGRES_URL or, when it is not set,
// this test process's throwaway cluster, started on first use (see
// WithPostgres). Without either the test is skipped, and counted for the
// line WithPostgres prints at the end; in CI (CI=true) it fails instead:
// there the PostgreSQL tests must run.
func RequirePostgres(t testing.TB) string {
	t.Helper()
	requireWrapped(t)
	if base := os.Getenv(PostgresEnv); base != "" {
		return base
	}
	url, err := throwaway.get()
	if errors.Is(err, errNoPostgresBinaries) {
		noPostgres(t, fmt.Errorf("%s is not set and %w", PostgresEnv, err))
	}
	if err != nil {
		t.Fatalf("starting the throwaway PostgreSQL (%s is not set): %v", PostgresEnv, err)
	}
	return url
}

// StartPostgres starts a throwaway cluster of the test's own, for a test
// that stops and starts its server, and removes it when the test ends. It
// skips or fails like RequirePostgres when the binaries are missing.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	requireWrapped(t)
	pg, err := NewPostgres()
	if errors.Is(err, errNoPostgresBinaries) {
		noPostgres(t, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.Remove(); err != nil {
			t.Errorf("removing the throwaway PostgreSQL: %v", err)
		}
	})
	return pg
}

// noPostgres skips the test for want of a PostgreSQL, counting it for the
// line WithPostgres prints, except in CI (CI=true), where it fails: there
// the PostgreSQL tests must run.
func noPostgres(t testing.TB, why error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("PostgreSQL tests must run in CI: %v", why)
	}
	skipped.Add(1)
	t.Skipf("PostgreSQL test skipped: %v", why)
}

// SkipMissing skips a test for want of a program other than PostgreSQL's
// (litewitness, tessera's fsck, Chromium), counting it for a line at the
// end of the run, as PostgreSQL's skips are: "N tests skipped for want of
// PROGRAM, in PACKAGE (n): INSTALL". In CI (CI=true) it fails instead:
// there every test must run.
func SkipMissing(t testing.TB, program, install, why string) {
	t.Helper()
	requireWrapped(t)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required in CI: %s (%s)", program, install, why)
	}
	missing.add(program, install)
	t.Skipf("%s: %s", why, install)
}

// requireWrapped fails a test whose package's TestMain does not run the
// tests through WithPostgres: its throwaway cluster would outlive them and
// its skips would go unreported.
func requireWrapped(t testing.TB) {
	t.Helper()
	if !wrapped.Load() {
		t.Fatal("a test that uses PostgreSQL needs its package's TestMain to run the tests through storetest.WithPostgres(m)")
	}
}

// PostgresURL creates a fresh, uniquely named database on the server of
// PACT_TEST_POSTGRES_URL (a postgres:// URL whose user may create
// databases) or of the throwaway cluster, returns its URL and drops it when
// the test ends. It skips or fails like RequirePostgres.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := RequirePostgres(t)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL, got %q", PostgresEnv, base)
	}
	var random [8]byte
	rand.Read(random[:])
	name := "pact_test_" + hex.EncodeToString(random[:])

	admin := func(statement string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db, err := sql.Open("pgx", base)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.ExecContext(ctx, statement)
		return err
	}
	// The name is ours (hex), so it needs no quoting beyond this.
	if err := admin(`CREATE DATABASE "` + name + `"`); err != nil {
		t.Fatalf("create test database on %s: %v", u.Redacted(), err)
	}
	t.Cleanup(func() {
		// FORCE: a test that failed half-way may leave connections open.
		if err := admin(`DROP DATABASE IF EXISTS "` + name + `" WITH (FORCE)`); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// SQLiteDSN returns the path of a new SQLite database file in a temporary
// directory removed when the test ends.
func SQLiteDSN(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "pact.db")
}
