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
	"sync"
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
// databases) or of the throwaway cluster, returns its URL and drops it once
// the test has ended (see drops). It skips or fails like RequirePostgres.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return newPostgresDB(t, "")
}

// MigratedPostgresURL is PostgresURL for a database that already holds the
// schema migrate makes (sqlstore.Migrate): migrate runs once per test
// process, on a template database, and each test gets a copy of it
// (CREATE DATABASE ... TEMPLATE), which takes a fraction of the time that
// migrating every database anew does. WithPostgres drops the template
// when the process's tests end.
func MigratedPostgresURL(t testing.TB, migrate func(url string) error) string {
	t.Helper()
	templates.mu.Lock()
	if templates.postgres == "" && templates.postgresErr == nil {
		templates.postgres, templates.postgresErr = newPostgresTemplate(t, migrate)
	}
	name, err := templates.postgres, templates.postgresErr
	templates.mu.Unlock()
	if err != nil {
		t.Fatalf("making the migrated template database: %v", err)
	}
	return newPostgresDB(t, name)
}

// templates are the migrated databases this process copies for its tests
// (MigratedPostgresURL, MigratedSQLite), removed by removeTemplates.
var templates struct {
	mu          sync.Mutex
	base        string // the server's URL, for dropping the template
	postgres    string // the template database's name
	postgresErr error
	sqlite      string // the template file
	sqliteErr   error
}

// adminExec runs one statement on the server of base, outside any database
// a test uses, on a connection of the process's pool for that server
// (admins): a new connection costs the server a process of its own, and
// each test database would otherwise cost two, one to create it and one to
// drop it.
func adminExec(base, statement string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := admins.pool(base)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, statement)
	return err
}

// admins are the process's connections to the servers it makes test
// databases on, by URL, closed by WithPostgres when its tests end.
var admins adminPools

type adminPools struct {
	mu sync.Mutex
	db map[string]*sql.DB
}

func (a *adminPools) pool(base string) (*sql.DB, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if db, ok := a.db[base]; ok {
		return db, nil
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		return nil, err
	}
	// As many as the drops at once (dropper) and a test's creation.
	db.SetMaxIdleConns(3)
	if a.db == nil {
		a.db = map[string]*sql.DB{}
	}
	a.db[base] = db
	return db, nil
}

// close closes the pools, whose servers may be stopped next (a throwaway
// cluster's).
func (a *adminPools) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for base, db := range a.db {
		errs = append(errs, db.Close())
		delete(a.db, base)
	}
	return errors.Join(errs...)
}

func randomDBName() string {
	var random [8]byte
	rand.Read(random[:])
	return "pact_test_" + hex.EncodeToString(random[:])
}

// newPostgresTemplate makes a database and lets migrate fill it, for
// MigratedPostgresURL to copy. Called with templates.mu held.
func newPostgresTemplate(t testing.TB, migrate func(url string) error) (string, error) {
	base := RequirePostgres(t)
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	name := randomDBName() + "_template"
	if err := adminExec(base, `CREATE DATABASE "`+name+`"`); err != nil {
		return "", err
	}
	templates.base = base
	u.Path = "/" + name
	if err := migrate(u.String()); err != nil {
		adminExec(base, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
		return "", err
	}
	return name, nil
}

// newPostgresDB creates a database for t, empty or a copy of the database
// template, and drops it once the test has ended.
func newPostgresDB(t testing.TB, template string) string {
	t.Helper()
	base := RequirePostgres(t)
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL, got %q", PostgresEnv, base)
	}
	name := randomDBName()
	// The names are ours (hex), so they need no quoting beyond this.
	create := `CREATE DATABASE "` + name + `"`
	if template != "" {
		create += ` TEMPLATE "` + template + `"`
	}
	if err := adminExec(base, create); err != nil {
		t.Fatalf("create test database on %s: %v", u.Redacted(), err)
	}
	t.Cleanup(func() { drops.start(base, name) })
	u.Path = "/" + name
	return u.String()
}

// drops are the test databases being dropped. Dropping one takes a second
// or more on a busy machine, so the test that used it does not wait: the
// next tests run meanwhile, and WithPostgres waits for every drop
// (dropsDone) when the process's tests end.
var drops dropper

type dropper struct {
	wg   sync.WaitGroup
	turn chan struct{} // bounds the drops at once, and so their connections
	mu   sync.Mutex
	errs []error
}

func (d *dropper) start(base, name string) {
	d.mu.Lock()
	if d.turn == nil {
		d.turn = make(chan struct{}, 2)
	}
	d.mu.Unlock()
	d.wg.Go(func() {
		d.turn <- struct{}{}
		defer func() { <-d.turn }()
		// FORCE: a test that failed half-way may leave connections open.
		if err := adminExec(base, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			d.mu.Lock()
			d.errs = append(d.errs, fmt.Errorf("drop test database %s: %w", name, err))
			d.mu.Unlock()
		}
	})
}

// dropsDone waits for every drop started and answers why any failed.
func dropsDone() error {
	drops.wg.Wait()
	drops.mu.Lock()
	defer drops.mu.Unlock()
	err := errors.Join(drops.errs...)
	drops.errs = nil
	return err
}

// MigratedSQLite makes path (which must not exist yet) a SQLite database
// that holds the schema migrate makes (sqlstore.Migrate): a copy of a
// template file migrate made once per test process, which takes a
// fraction of the time that migrating every database anew does.
// WithPostgres removes the template when the process's tests end.
func MigratedSQLite(t testing.TB, path string, migrate func(path string) error) {
	t.Helper()
	requireWrapped(t)
	templates.mu.Lock()
	if templates.sqlite == "" && templates.sqliteErr == nil {
		templates.sqlite, templates.sqliteErr = newSQLiteTemplate(migrate)
	}
	template, err := templates.sqlite, templates.sqliteErr
	templates.mu.Unlock()
	if err != nil {
		t.Fatalf("making the migrated template database: %v", err)
	}
	if err := copyNewFile(template, path); err != nil {
		t.Fatal(err)
	}
}

// newSQLiteTemplate makes a SQLite file in a directory of its own and lets
// migrate fill it, for MigratedSQLite to copy. Called with templates.mu
// held.
func newSQLiteTemplate(migrate func(path string) error) (string, error) {
	// Under the go command, in the run's directory (see runDir), which is
	// removed when the run ends even if this process is killed.
	parent := ""
	if gopid := goCommandPID(); gopid != 0 {
		run, unlock, err := lockRun(gopid)
		if err != nil {
			return "", err
		}
		unlock()
		parent = run
	}
	dir, err := os.MkdirTemp(parent, "pact-test-template-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "pact.db")
	if err := migrate(path); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	// migrate closed the database: its write-ahead log is folded in and
	// gone, so the file alone is the whole database.
	if _, err := os.Stat(path + "-wal"); err == nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("the template %s still has a write-ahead log after migrate closed it", path)
	}
	return path, nil
}

// copyNewFile copies the file from to a new file to, with from's mode.
func copyNewFile(from, to string) error {
	info, err := os.Stat(from)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// removeTemplates drops and removes this process's template databases.
func removeTemplates() error {
	templates.mu.Lock()
	defer templates.mu.Unlock()
	var errs []error
	if templates.postgres != "" {
		errs = append(errs, adminExec(templates.base, `DROP DATABASE IF EXISTS "`+templates.postgres+`" WITH (FORCE)`))
		templates.postgres = ""
	}
	if templates.sqlite != "" {
		errs = append(errs, os.RemoveAll(filepath.Dir(templates.sqlite)))
		templates.sqlite = ""
	}
	return errors.Join(errs...)
}

// SQLiteDSN returns the path of a new SQLite database file in a temporary
// directory removed when the test ends.
func SQLiteDSN(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "pact.db")
}
