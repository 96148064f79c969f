package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
)

func openForTest(t *testing.T, dsn string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pragma(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var value string
	if err := db.QueryRow("PRAGMA " + name).Scan(&value); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return value
}

// Every connection of SQLite's pools runs in WAL mode with foreign keys
// enforced; the writer syncs as configured.
func TestSQLiteConnectionSettings(t *testing.T) {
	cases := []struct {
		name            string
		opts            Options
		wantSynchronous string // PRAGMA synchronous answers a number
	}{
		{"defaults", Options{}, "2"},
		{"synchronous NORMAL", Options{SQLiteSynchronous: "normal"}, "1"},
		{"synchronous EXTRA", Options{SQLiteSynchronous: "EXTRA"}, "3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openForTest(t, storetest.SQLiteDSN(t), c.opts)
			pools := []struct {
				name string
				db   *sql.DB
			}{{"writer", s.write}, {"reader", s.read}, {"point reads", s.point.db}}
			for _, p := range pools {
				if got := pragma(t, p.db, "journal_mode"); got != "wal" {
					t.Errorf("%s: journal_mode = %s, want wal", p.name, got)
				}
				if got := pragma(t, p.db, "foreign_keys"); got != "1" {
					t.Errorf("%s: foreign_keys = %s, want 1", p.name, got)
				}
				if got := pragma(t, p.db, "busy_timeout"); got != "5000" {
					t.Errorf("%s: busy_timeout = %s, want 5000", p.name, got)
				}
			}
			if got := pragma(t, s.write, "synchronous"); got != c.wantSynchronous {
				t.Errorf("writer: synchronous = %s, want %s", got, c.wantSynchronous)
			}
			if _, err := s.read.Exec("DELETE FROM accounts"); err == nil {
				t.Error("the read pool accepts writes")
			}
			if _, err := s.point.db.Exec("DELETE FROM accounts"); err == nil {
				t.Error("the point reads' pool accepts writes")
			}
		})
	}
}

// A query slower than the statement timeout is cut off by PostgreSQL and
// reported as Unavailable, so the server answers 503 instead of hanging.
func TestPostgresStatementTimeout(t *testing.T) {
	// 1 s: well below the 3 s sleep below, and above what opening the
	// store (its own queries run under the same timeout) takes on a loaded
	// machine; 300 ms failed there now and then.
	s := openForTest(t, storetest.PostgresURL(t), Options{StatementTimeout: time.Second})
	var setting string
	if err := s.read.QueryRow("SHOW statement_timeout").Scan(&setting); err != nil {
		t.Fatal(err)
	}
	if setting != "1s" {
		t.Errorf("statement_timeout = %s, want 1s", setting)
	}

	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
	}{
		// The server's statement_timeout fires (the caller has no deadline).
		{"server-side timeout", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }},
		// The caller's deadline fires first.
		{"caller's deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := c.ctx()
			defer cancel()
			_, err := s.read.ExecContext(ctx, "SELECT pg_sleep(3)")
			err = s.fault("sleep", err)
			if code := registry.ErrorCode(err); code != registry.Unavailable {
				t.Fatalf("code %q (error %v), want %q", code, err, registry.Unavailable)
			}
		})
	}
	if err := s.Ping(context.Background()); err != nil {
		t.Errorf("Ping after timeouts: %v", err)
	}
}

// pactd's PostgreSQL sessions run without the JIT compiler and parallel
// workers (docs/design.md, "Search"), unless the database URL sets them.
func TestPostgresSessionsRunWithoutJITOrParallelWorkers(t *testing.T) {
	base := storetest.PostgresURL(t)
	for _, c := range []struct {
		query         string
		jit, parallel string
	}{
		{"", "off", "0"},
		{"jit=on&max_parallel_workers_per_gather=2", "on", "2"},
	} {
		// A budget a cold session's first SHOW cannot pass.
		s := openForTest(t, withQuery(base, c.query), Options{StatementTimeout: 5 * time.Second, SuggestBudget: time.Minute})
		if got := pragmaPG(t, s.read, "jit"); got != c.jit {
			t.Errorf("URL %q: jit = %s, want %s", c.query, got, c.jit)
		}
		if got := pragmaPG(t, s.read, "max_parallel_workers_per_gather"); got != c.parallel {
			t.Errorf("URL %q: max_parallel_workers_per_gather = %s, want %s", c.query, got, c.parallel)
		}
	}
}

// A search's statements run on PostgreSQL sessions that plan every
// statement for its words, the rest on sessions that leave the choice to
// PostgreSQL (docs/design.md, "Search"); a plan_cache_mode in the URL
// applies to both.
// The search sessions carry the other settings too. Suggestions have
// sessions of their own, the only ones whose statement_timeout is the
// suggestions' budget (search_postgres.go, suggestWithinBudget) and that
// set their similarity floor.
func TestPostgresSearchSessionsPlanEachSearch(t *testing.T) {
	base := storetest.PostgresURL(t)
	for _, c := range []struct {
		query        string
		read, search string
	}{
		{"", "auto", "force_custom_plan"},
		{"plan_cache_mode=force_generic_plan", "force_generic_plan", "force_generic_plan"},
	} {
		// A budget a cold session's first SHOW cannot pass.
		s := openForTest(t, withQuery(base, c.query), Options{StatementTimeout: 5 * time.Second, SuggestBudget: time.Minute})
		if got := pragmaPG(t, s.read, "plan_cache_mode"); got != c.read {
			t.Errorf("URL %q: plan_cache_mode = %s on the main pool, want %s", c.query, got, c.read)
		}
		if got := pragmaPG(t, s.searchPool(), "plan_cache_mode"); got != c.search {
			t.Errorf("URL %q: plan_cache_mode = %s on the search pool, want %s", c.query, got, c.search)
		}
		if got := pragmaPG(t, s.searchPool(), "jit"); got != "off" {
			t.Errorf("URL %q: jit = %s on the search pool, want off", c.query, got)
		}
		if got := pragmaPG(t, s.suggest, "pg_trgm.strict_word_similarity_threshold"); got != "0.25" {
			t.Errorf("URL %q: the suggestions' similarity floor is %s on their pool, want 0.25", c.query, got)
		}
		if got := pragmaPG(t, s.suggest, "plan_cache_mode"); got != c.search {
			t.Errorf("URL %q: plan_cache_mode = %s on the suggestions' pool, want %s", c.query, got, c.search)
		}
		for _, p := range []struct {
			name string
			db   *sql.DB
			want string
		}{{"search", s.searchPool(), "5s"}, {"suggestions'", s.suggest, "1min"}} {
			if got := pragmaPG(t, p.db, "statement_timeout"); got != p.want {
				t.Errorf("URL %q: statement_timeout = %s on the %s pool, want %s", c.query, got, p.name, p.want)
			}
		}
	}
}

// withQuery is the database URL base with query ("a=b&c=d") added.
func withQuery(base, query string) string {
	switch {
	case query == "":
		return base
	case strings.Contains(base, "?"):
		return base + "&" + query
	}
	return base + "?" + query
}

func pragmaPG(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var value string
	if err := db.QueryRow("SHOW " + name).Scan(&value); err != nil {
		t.Fatalf("SHOW %s: %v", name, err)
	}
	return value
}

// Every change of a package reads its yanked versions (its pack-state
// entry lists them) through versions_yanked, not by walking every version
// of the package: a package's thousandth publish costs what its first did.
func TestYankedVersionsAreReadThroughTheirIndex(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		s := openForTest(t, storetest.SQLiteDSN(t), Options{})
		var plan []string
		rows, err := s.read.QueryContext(ctx, `EXPLAIN QUERY PLAN `+sqlYankedVersions, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if got := strings.Join(plan, "; "); !strings.Contains(got, "USING INDEX versions_yanked") {
			t.Errorf("the plan of a package's yanked versions: %s", got)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		s := openForTest(t, storetest.PostgresURL(t), Options{})
		tx, err := s.read.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		// An empty table is read whole by any plan: the question is
		// whether the index serves the query at all.
		if _, err := tx.ExecContext(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			t.Fatal(err)
		}
		var plan []string
		rows, err := tx.QueryContext(ctx, `EXPLAIN `+s.q(sqlYankedVersions), 1)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if got := strings.Join(plan, "; "); !strings.Contains(got, "versions_yanked") {
			t.Errorf("the plan of a package's yanked versions: %s", got)
		}
	})
}
