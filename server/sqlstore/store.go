// Package sqlstore implements registry.Store on SQLite (github.com/mattn/go-sqlite3)
// and PostgreSQL (github.com/jackc/pgx/v5 through database/sql). Both engines
// run the same SQL; the per-engine code is limited to opening connections,
// placeholders, migrations and error classification (see dialect.go).
package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// MaxOpenConns caps the PostgreSQL pool, or the SQLite read pool (SQLite
	// always writes through exactly one connection). 0 picks a default:
	// DefaultPostgresConns, or max(4, CPUs) SQLite readers.
	MaxOpenConns int
	// StatementTimeout bounds every query and every transaction; on
	// PostgreSQL it is also the server-side statement_timeout. 0 picks
	// DefaultStatementTimeout.
	StatementTimeout time.Duration
	// BusyTimeout is how long a SQLite connection waits for another
	// connection's (or process's) lock before the statement fails as
	// unavailable. 0 picks DefaultBusyTimeout. PostgreSQL waits for locks
	// up to StatementTimeout instead.
	BusyTimeout time.Duration
	// SQLiteSynchronous is SQLite's synchronous pragma: OFF, NORMAL, FULL
	// or EXTRA. Default FULL, so a committed publish survives a power cut.
	SQLiteSynchronous string
	// CacheBytes bounds the in-memory cache of raw documents (see
	// readCache). 0 picks DefaultCacheBytes; negative turns the cache off.
	CacheBytes int64
	// CacheTTL is, on PostgreSQL, how long a cached document is served
	// before it is read again: the bound on how stale a replica's answer
	// may be after another replica's write (docs/design.md, The read
	// cache). 0 picks DefaultCacheTTL; negative turns the cache off on
	// PostgreSQL. SQLite's cache never expires: every write passes
	// through this process.
	CacheTTL time.Duration
	// SuggestBudget is how long PostgreSQL may look for a search's
	// suggestions before the answer goes without them (search.go,
	// suggestWithinBudget); 0 picks 10 ms. SQLite's have no budget.
	SuggestBudget time.Duration
	// SearchWindow is how many matches of each rank a search scores, the
	// newest of its index (search.go); 0 picks 250 (docs/design.md,
	// "Search").
	SearchWindow int
	// ScoreBound is how many packages a word may be in and still be scored
	// on SQLite, and the last word in and still match as a prefix on both
	// engines (search.go); 0 picks 2,000.
	ScoreBound int
	// TileCatchUp bounds the entries whose full tiles one sequencing round
	// stores when it catches up with what an older pactd sequenced
	// (translog.go); 0 picks 64 tiles' worth.
	TileCatchUp int64
	// Logger receives the store's own lines: when the database becomes
	// unreachable, and why, and when it answers again (outage.go). nil is
	// slog.Default().
	Logger *slog.Logger
	// LogBackfill builds the log entries of a database made before the
	// transparency log (registry.Backfill, which pactd passes): the
	// migration that makes the log, and a restore of a dump from before
	// it, append one for each version and SSH key. Without it such a
	// database or dump is refused; the store builds no entry itself.
	LogBackfill registry.LogBackfill
}

const (
	DefaultStatementTimeout = 5 * time.Second
	DefaultBusyTimeout      = 5 * time.Second
	DefaultPostgresConns    = 10
	// DefaultCacheBytes holds about 5,000 documents of 3 KB. Reading
	// 20,000 documents in turn from 1,000,000 packages (the cache churning)
	// pactd peaked at 100 MB resident with 16 MiB, 135 MB with 32 MiB;
	// the bench's target is 150 MB (docs/operations.md, The bench).
	DefaultCacheBytes = 16 << 20
	// DefaultCacheTTL bounds, on PostgreSQL, how long a yank or a new
	// latest version made through one replica may take to show on
	// another's raw path.
	DefaultCacheTTL = time.Second
)

func (o Options) withDefaults() (Options, error) {
	if o.StatementTimeout <= 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = DefaultBusyTimeout
	}
	if o.CacheBytes == 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.SearchWindow <= 0 {
		o.SearchWindow = defaultSearchWindow
	}
	if o.ScoreBound <= 0 {
		o.ScoreBound = defaultScoreBound
	}
	if o.TileCatchUp <= 0 {
		o.TileCatchUp = defaultTileCatchUp
	}
	if o.MaxOpenConns < 0 {
		return o, fmt.Errorf("sqlstore: MaxOpenConns must not be negative, got %d", o.MaxOpenConns)
	}
	switch strings.ToUpper(o.SQLiteSynchronous) {
	case "":
		o.SQLiteSynchronous = "FULL"
	case "OFF", "NORMAL", "FULL", "EXTRA":
		o.SQLiteSynchronous = strings.ToUpper(o.SQLiteSynchronous)
	default:
		return o, fmt.Errorf("sqlstore: SQLiteSynchronous must be OFF, NORMAL, FULL or EXTRA, got %q", o.SQLiteSynchronous)
	}
	return o, nil
}

// Store is a registry.Store on SQLite or PostgreSQL.
type Store struct {
	dialect dialect
	// write takes every write and every transaction; read serves plain
	// reads. On SQLite they are separate pools (one writer connection, so
	// writers queue in Go instead of failing with SQLITE_BUSY, and many
	// readers, which WAL lets run beside the writer). On PostgreSQL both are
	// the same pool.
	write *sql.DB
	read  *sql.DB
	// search runs a search's statements (search.go): on PostgreSQL a pool
	// of its own whose sessions plan each statement for its words
	// (docs/design.md, "Search"); nil elsewhere, where searches use read.
	search *sql.DB
	// searchWindow, scoreBound, tileCatchUp: Options.SearchWindow,
	// ScoreBound and TileCatchUp.
	searchWindow int
	scoreBound   int
	tileCatchUp  int64
	// suggest runs search suggestions on PostgreSQL: a pool of its own
	// whose sessions' statement_timeout is Options.SuggestBudget
	// (search_postgres.go, suggestWithinBudget); nil elsewhere.
	suggest *sql.DB
	timeout time.Duration
	// group runs concurrent publishes in shared transactions on SQLite
	// (groupcommit.go; nil on PostgreSQL); cache serves hot reads
	// (readcache.go; nil when Options.CacheBytes or, on PostgreSQL,
	// CacheTTL is negative).
	group *groupCommitter
	cache *readCache
	// stmts are the publish path's statements, prepared once on SQLite
	// (stmtcache.go); nil on PostgreSQL. Read-only after Open.
	stmts map[string]*sql.Stmt
	// readStmts are the read paths' statements that a request makes
	// again and again (the package page's document), prepared once on
	// SQLite's reader pool.
	readStmts map[string]*sql.Stmt
	// point runs the reads of one row by key that the hottest paths make
	// on a cache miss (pointread.go); nil on PostgreSQL.
	point *pointReads
	// logAppended wakes this process's log sequencer (translog.go).
	logAppended chan struct{}
	// backfill builds the entries backfillLog appends (Options.LogBackfill).
	backfill registry.LogBackfill
	// outage logs when the database stops and starts answering (outage.go).
	outage *outage
	// witnessTurn is held by a round of pushes to the log's witnesses
	// (witness.go).
	witnessTurn sync.Mutex
}

var _ registry.Store = (*Store)(nil)

// Open connects to dsn and brings its schema up to date. A dsn starting with
// postgres:// or postgresql:// is PostgreSQL; anything else is a SQLite file
// path or a file: URI.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	var s *Store
	if IsPostgres(dsn) {
		s, err = openPostgres(dsn, opts)
	} else {
		s, err = openSQLite(dsn, opts)
	}
	if err != nil {
		return nil, err
	}
	s.logAppended = make(chan struct{}, 1)
	s.outage = newOutage(opts.Logger)
	s.backfill = opts.LogBackfill
	s.searchWindow, s.scoreBound, s.tileCatchUp = opts.SearchWindow, opts.ScoreBound, opts.TileCatchUp
	// Connect under the statement timeout first: an unreachable server
	// should fail Open quickly, not hang it.
	if err := s.ping(ctx, s.write); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.prepareHot(ctx)
	return s, nil
}

// Migrate brings the schema of dsn up to date and closes the connection
// (for `pactd migrate`). Open migrates too, so running it is optional.
func Migrate(ctx context.Context, dsn string, opts Options) error {
	s, err := Open(ctx, dsn, opts)
	if err != nil {
		return err
	}
	return s.Close()
}

// IsPostgres reports whether dsn names a PostgreSQL database rather than a
// SQLite one.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Dialect names the engine: "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.dialect.name() }

// Ping checks that the database answers, for readiness probes.
func (s *Store) Ping(ctx context.Context) error { return s.ping(ctx, s.read) }

func (s *Store) ping(ctx context.Context, db *sql.DB) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var one int
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return s.fault("ping", err)
	}
	return nil
}

// Close closes every connection.
func (s *Store) Close() error {
	if s.outage != nil {
		s.outage.close()
	}
	if s.group != nil {
		s.group.close()
	}
	s.closeHot()
	err := s.write.Close()
	if s.point != nil {
		if cerr := s.point.close(); err == nil {
			err = cerr
		}
	}
	for _, db := range []*sql.DB{s.read, s.search, s.suggest} {
		if db != nil && db != s.write {
			if cerr := db.Close(); err == nil {
				err = cerr
			}
		}
	}
	return err
}

// deadline bounds one query or transaction, so a stuck database turns into
// a 503 instead of a hung request.
func (s *Store) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// q adapts a query written with ? placeholders to the engine.
func (s *Store) q(query string) string { return s.dialect.rebind(query) }

// scanner is the part of *sql.Row and *sql.Rows that scanning needs.
type scanner interface {
	Scan(dest ...any) error
}

// queryList runs a query on the read pool under the store's deadline and
// scans every row with scan. The list is empty, never nil, when no row
// matches; op names the operation in errors.
func queryList[T any](ctx context.Context, s *Store, op string, capacity int, scan func(scanner) (*T, error), query string, args ...any) ([]T, error) {
	return queryListOn(ctx, s, s.read, op, capacity, scan, query, args...)
}

// queryListOn is queryList on the pool db.
func queryListOn[T any](ctx context.Context, s *Store, db *sql.DB, op string, capacity int, scan func(scanner) (*T, error), query string, args ...any) ([]T, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	rows, err := db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.fault(op, err)
	}
	defer rows.Close()
	list := make([]T, 0, capacity)
	for rows.Next() {
		item, err := scan(rows)
		if err != nil {
			return nil, s.fault(op, err)
		}
		list = append(list, *item)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fault(op, err)
	}
	return list, nil
}

// dbTime is how times are stored: UTC, microseconds (PostgreSQL's precision,
// so both engines hand back the same value).
func dbTime(t time.Time) time.Time {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Truncate(time.Microsecond)
}

// nullTime stores an optional time.
func nullTime(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return dbTime(*t)
}

// timePtr reads an optional time back in UTC.
func timePtr(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}
