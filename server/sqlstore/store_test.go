package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// backends are the two engines; dsn makes a fresh, empty database.
var backends = []struct {
	name string
	dsn  func(t testing.TB) string
}{
	{"sqlite", storetest.SQLiteDSN},
	{"postgres", storetest.PostgresURL},
}

func open(t testing.TB, dsn string, opts sqlstore.Options) *sqlstore.Store {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// migratedSQLite and migratedPostgres make new databases that hold the
// schema, copies of one migrated once per test process: the conformance
// suite opens a store per subtest, and the migrations are tested on their
// own (TestReopenKeepsDataAndSchema and after).
func migratedSQLite(t testing.TB) string {
	path := storetest.SQLiteDSN(t)
	storetest.MigratedSQLite(t, path, migrateDB)
	return path
}

func migratedPostgres(t testing.TB) string { return storetest.MigratedPostgresURL(t, migrateDB) }

func migrateDB(dsn string) error {
	return sqlstore.Migrate(context.Background(), dsn, sqlstore.Options{})
}

func TestConformance(t *testing.T) {
	variants := []struct {
		name, dialect string
		dsn           func(t testing.TB) string
		cache         int64
	}{
		{"sqlite", "sqlite", migratedSQLite, 0},
		{"postgres", "postgres", migratedPostgres, 0},
		// A read cache too small to keep any document (one may take an
		// eighth of it, and each counts 512 bytes beyond its content)
		// but not the ids of a few: every raw read misses, and reads by
		// id what it read before by name.
		{"sqlite with a read cache of ids only", "sqlite", migratedSQLite, 4095},
	}
	for _, b := range variants {
		t.Run(b.name, func(t *testing.T) {
			if b.dialect == "postgres" {
				storetest.RequirePostgres(t)
			}
			storetest.Run(t, func(t *testing.T) registry.Store {
				// A budget for suggestions that no test here reaches: the
				// first statements of a new session on a new database pay
				// its cold caches, past 10 ms on a busy machine, and the
				// budget has a test of its own (TestSuggestionsHaveABudget).
				s, err := sqlstore.Open(context.Background(), b.dsn(t), sqlstore.Options{MaxOpenConns: 8, CacheBytes: b.cache, SuggestBudget: time.Minute})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if s.Dialect() != b.dialect {
					t.Fatalf("Dialect() = %q, want %q", s.Dialect(), b.dialect)
				}
				return s
			})
		})
	}
}

func TestReopenKeepsDataAndSchema(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			ctx := context.Background()
			first := open(t, dsn, sqlstore.Options{})
			alice := &registry.Account{Username: "alice", Email: "alice@example.com", CreatedAt: time.Now()}
			if err := first.CreateAccount(ctx, alice); err != nil {
				t.Fatalf("CreateAccount: %v", err)
			}
			first.Close()

			for i := range 2 {
				if err := sqlstore.Migrate(ctx, dsn, sqlstore.Options{}); err != nil {
					t.Fatalf("Migrate #%d on a migrated database: %v", i+1, err)
				}
			}
			again := open(t, dsn, sqlstore.Options{})
			got, err := again.AccountByUsername(ctx, "alice")
			if err != nil || got.ID != alice.ID {
				t.Fatalf("after reopening: AccountByUsername = %+v, %v", got, err)
			}
		})
	}
}

// Replicas starting together each run the migrations; each migration must
// be applied exactly once and every replica must come up.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			var wg sync.WaitGroup
			errs := make([]error, 4)
			for i := range errs {
				wg.Go(func() {
					s, err := sqlstore.Open(context.Background(), dsn, sqlstore.Options{MaxOpenConns: 2})
					if err == nil {
						err = s.Close()
					}
					errs[i] = err
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("replica %d: Open: %v", i, err)
				}
			}
			s := open(t, dsn, sqlstore.Options{})
			if n := appliedMigrations(t, s); n != migrationFiles(t, s.Dialect()) {
				t.Errorf("schema_migrations holds %d rows, want one per migration file (%d)", n, migrationFiles(t, s.Dialect()))
			}
		})
	}
}

// Two pactd processes on one database: the same new version published
// through both at once is created once; the loser gets a conflict or, for
// the same content, success without change.
func TestTwoReplicasPublishTheSameVersion(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			replicas := []*sqlstore.Store{open(t, dsn, sqlstore.Options{}), open(t, dsn, sqlstore.Options{})}
			ctx := context.Background()
			alice := &registry.Account{Username: "alice", Email: "alice@example.com", CreatedAt: time.Now()}
			if err := replicas[0].CreateAccount(ctx, alice); err != nil {
				t.Fatalf("CreateAccount: %v", err)
			}
			for round := range 5 {
				version := fmt.Sprintf("1.%d.0", round)
				var wg sync.WaitGroup
				created := make([]bool, 16)
				errs := make([]error, 16)
				for i := range errs {
					wg.Go(func() {
						content := fmt.Sprintf("# foo %s\ncontent %d\n", version, i%2)
						_, created[i], errs[i] = registry.PublishVersion(ctx, replicas[i%2], registry.PublishInput{
							OwnerID: alice.ID, OwnerSlug: "alice", PackSlug: "foo", Name: "foo", Version: version,
							Content: []byte(content), SHA256: fmt.Sprintf("sha-of-content-%d", i%2), Now: time.Now(),
						})
					})
				}
				wg.Wait()
				winners := 0
				for i := range errs {
					if created[i] {
						winners++
					} else if errs[i] != nil && !registry.IsCode(errs[i], registry.Conflict) {
						t.Errorf("round %d, publish %d: %v, want success or a conflict", round, i, errs[i])
					}
				}
				if winners != 1 {
					t.Errorf("round %d: %d publishes created version %s, want 1", round, winners, version)
				}
			}
		})
	}
}

func TestOpenRefusesBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		dsn  string
		opts sqlstore.Options
	}{
		{"in-memory SQLite", ":memory:", sqlstore.Options{}},
		{"in-memory SQLite URI", "file:pact?mode=memory&cache=shared", sqlstore.Options{}},
		{"empty path", "", sqlstore.Options{}},
		{"unknown synchronous mode", dir + "/a.db", sqlstore.Options{SQLiteSynchronous: "SOMETIMES"}},
		{"negative pool size", dir + "/b.db", sqlstore.Options{MaxOpenConns: -1}},
		{"unparsable PostgreSQL URL", "postgres://user:secret@[::1/db", sqlstore.Options{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := sqlstore.Open(context.Background(), c.dsn, c.opts)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q, %+v) succeeded", c.dsn, c.opts)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

func TestPostgresDownIsUnavailable(t *testing.T) {
	// A port that nothing listens on: bind one, then free it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()

	var logs syncbuf.Buffer
	_, err = sqlstore.Open(context.Background(), "postgres://postgres@"+addr+"/postgres?sslmode=disable&connect_timeout=5",
		sqlstore.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if code := registry.ErrorCode(err); code != registry.Unavailable || !errors.Is(err, registry.ErrStoreUnreachable) {
		t.Fatalf("Open on a closed port: code %q (error %v), want %q, unreachable", code, err, registry.Unavailable)
	}
	// The log says why, at warn.
	if lines := strings.Split(strings.TrimSpace(logs.String()), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], `"level":"WARN","msg":"the database is unreachable`) || !strings.Contains(lines[0], addr) {
		t.Errorf("the store logged %q; want one warning naming %s", logs.String(), addr)
	}
	if msg := registry.ErrorMessage(err); msg != "the database is unavailable" {
		t.Errorf("user-facing message %q", msg)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("the error for the logs does not say what failed: %v", err)
	}
}

func TestMigrateCreatesTheSchema(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			if err := sqlstore.Migrate(context.Background(), dsn, sqlstore.Options{}); err != nil {
				t.Fatalf("Migrate: %v", err)
			}
			s := open(t, dsn, sqlstore.Options{})
			if n := appliedMigrations(t, s); n != migrationFiles(t, s.Dialect()) {
				t.Errorf("schema_migrations holds %d rows, want %d", n, migrationFiles(t, s.Dialect()))
			}
		})
	}
}

func appliedMigrations(t *testing.T, s *sqlstore.Store) int {
	t.Helper()
	n, err := sqlstore.AppliedMigrations(context.Background(), s)
	if err != nil {
		t.Fatalf("count applied migrations: %v", err)
	}
	return n
}

func migrationFiles(t *testing.T, dialect string) int {
	t.Helper()
	n, err := sqlstore.MigrationFiles(dialect)
	if err != nil || n == 0 {
		t.Fatalf("MigrationFiles(%s) = %d, %v", dialect, n, err)
	}
	return n
}

func TestListPackagesRefusesBadFilters(t *testing.T) {
	cases := []struct {
		name   string
		filter registry.PackageFilter
	}{
		{"zero limit", registry.PackageFilter{}},
		{"negative limit", registry.PackageFilter{Limit: -1}},
		{"too many words", registry.PackageFilter{Limit: 10, Query: strings.Repeat("word ", 17)}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{})
			for _, c := range cases {
				_, err := s.ListPackages(context.Background(), c.filter)
				if code := registry.ErrorCode(err); code != registry.Invalid {
					t.Errorf("%s: code %q (error %v), want %q", c.name, code, err, registry.Invalid)
				}
			}
			if _, err := s.ListPackages(context.Background(), registry.PackageFilter{Limit: 10, Query: strings.Repeat("word ", 16)}); err != nil {
				t.Errorf("16 words: %v", err)
			}
		})
	}
}

// A file: URI with parameters of its own works, and the store's settings
// still apply.
func TestSQLiteFileURI(t *testing.T) {
	path := storetest.SQLiteDSN(t)
	s := open(t, "file:"+path+"?cache=private&_journal_mode=DELETE", sqlstore.Options{})
	alice := &registry.Account{Username: "alice", Email: "alice@example.com", CreatedAt: time.Now()}
	if err := s.CreateAccount(context.Background(), alice); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	if _, err := s.AccountByUsername(context.Background(), "alice"); err != nil {
		t.Fatalf("the read pool does not see the writer's database: %v", err)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Errorf("the database is not in WAL mode: %v", err)
	}
}

// A store opening a SQLite file that is not in WAL mode yet, while another
// connection writes to it, waits for that write instead of failing: its
// switch to WAL has to write the file's header, and SQLite refuses that at
// once, without waiting, while another connection is writing. Replicas
// starting together on a new file meet this.
func TestOpenWaitsForAWriterOfANewSQLiteFile(t *testing.T) {
	path := storetest.SQLiteDSN(t)
	other, err := sql.Open("sqlite3", path+"?_busy_timeout=5000&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("CREATE TABLE other_program (x)"); err != nil {
		t.Fatal(err)
	}

	opened := make(chan error, 1)
	go func() {
		s, err := sqlstore.Open(context.Background(), path, sqlstore.Options{})
		if err == nil {
			err = s.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		t.Fatalf("Open returned while another connection was writing: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("the other connection's commit: %v", err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("Open after the other connection committed: %v", err)
	}
	s := open(t, path, sqlstore.Options{})
	if n := appliedMigrations(t, s); n != migrationFiles(t, s.Dialect()) {
		t.Errorf("schema_migrations holds %d rows, want %d", n, migrationFiles(t, s.Dialect()))
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Errorf("the database is not in WAL mode: %v", err)
	}
}
