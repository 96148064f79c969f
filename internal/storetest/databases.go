package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
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

// RequirePostgres returns the URL in PACT_TEST_POSTGRES_URL. When it is not
// set the test is skipped, except in CI (CI=true), where it fails: there
// the PostgreSQL tests must run.
func RequirePostgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base != "" {
		return base
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("PACT_TEST_POSTGRES_URL is not set: PostgreSQL tests must run in CI")
	}
	t.Skip("PostgreSQL tests skipped: set PACT_TEST_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	return ""
}

// PostgresURL creates a fresh, uniquely named database on the server of
// PACT_TEST_POSTGRES_URL (a postgres:// URL whose user may create
// databases), returns its URL and drops it when the test ends. It skips or
// fails like RequirePostgres when the variable is not set.
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
