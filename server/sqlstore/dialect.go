package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pact-registry/pact/pkg/packfmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/mattn/go-sqlite3"
)

// dialect is everything that differs between the engines.
type dialect interface {
	// name labels the engine (logs, the dump header, the migrations'
	// directory); nothing branches on it: each difference is a method here.
	name() string
	// search is the engine's own full-text search (search.go).
	search() searchEngine
	// rebind turns ? placeholders into the engine's.
	rebind(query string) string
	// fold is the SQL function that lower-cases text for search, Unicode
	// included.
	fold() string
	// jsonArrayLength is the SQL that counts the elements of the JSON
	// array held as text in column.
	jsonArrayLength(column string) string
	// lockMigrations runs first in every migration transaction, so that
	// replicas starting together apply each migration once.
	lockMigrations(ctx context.Context, tx *sql.Tx) error
	isUniqueViolation(err error) bool
	isForeignKeyViolation(err error) bool
	// isRetryable: the transaction lost a race (serialization failure,
	// deadlock, unique violation) and may be run again from the start.
	isRetryable(err error) bool
	isUnavailable(err error) bool
	// isUnreachable: of the unavailable faults, those that say the
	// database cannot be reached at all (not a lock held a while), which
	// start an outage (outage.go).
	isUnreachable(err error) bool
	isTimeout(err error) bool
	// isOutOfStorage: the disk (or the configured size cap) is full.
	isOutOfStorage(err error) bool

	// cachesStatements: the driver keeps each connection's prepared
	// statements itself, so the store prepares none of its own
	// (stmtcache.go).
	cachesStatements() bool
	// liftStatementTimeout lets the rest of tx run past the statement
	// timeout (a restore, a seed, a dump).
	liftStatementTimeout(ctx context.Context, tx *sql.Tx) error
	// snapshot begins a read-only transaction on db that sees one
	// snapshot of the database throughout, with no statement timeout.
	snapshot(ctx context.Context, db *sql.DB) (*sql.Tx, error)
	// bytewise is column compared byte by byte in ORDER BY, so that two
	// dumps of the same data are the same file.
	bytewise(column string) string
	// forUpdate is the clause that locks the rows a SELECT in a write
	// transaction reads ("" where the transaction holds the lock already).
	forUpdate() string
	// skipLocked is the clause that locks the rows a subquery picks and
	// passes over those another transaction has locked.
	skipLocked() string
	// listColumns are packageColumns as the package list reads them
	// (listTime).
	listColumns() string
	// appendLog appends the log entry data, made at at, and marks version
	// versionID (0: none) as logged at its index, which it answers.
	appendLog(ctx context.Context, s *Store, tx *sql.Tx, data []byte, at time.Time, versionID int64) (int64, error)
	// lockForRestore keeps writers out of tables until tx commits, and
	// lifts the statement timeout for the rest of tx.
	lockForRestore(ctx context.Context, tx *sql.Tx, tables []string) error
	// analyze refreshes the planner's statistics after a bulk load.
	analyze(ctx context.Context, tx *sql.Tx) error
	// resetSequence moves table's id sequence past its highest id.
	resetSequence(ctx context.Context, tx *sql.Tx, table string) error
	// tryTurn tries (never waits) to take the lock named key for every
	// process sharing the database, held until release; got is false when
	// another process holds it.
	tryTurn(ctx context.Context, db *sql.DB, key int64, timeout time.Duration) (release func(), got bool, err error)
	// dropIdle closes the idle connections of pools, which an outage of
	// the database has most likely broken.
	dropIdle(pools ...*sql.DB)
}

// ---- SQLite ----

// sqliteConnector opens connections to one SQLite DSN. Each connection gets
// pact's SQL functions, WAL mode, and, when maxPageCount > 0, the size cap.
type sqliteConnector struct {
	dsn    string
	driver *sqlite3.SQLiteDriver
}

func (c sqliteConnector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }
func (c sqliteConnector) Driver() driver.Driver                        { return c.driver }

func newSQLiteConnector(dsn string, maxPageCount int64, queryOnly bool, busyTimeout time.Duration) sqliteConnector {
	return sqliteConnector{dsn: dsn, driver: &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			if err := stablePlans(c); err != nil {
				return err
			}
			if err := requireFTS5(c); err != nil {
				return err
			}
			// The search index's fold (migration 0017): as slugs fold.
			if err := c.RegisterFunc("pact_fold", packfmt.Fold, true); err != nil {
				return err
			}
			if err := switchToWAL(c, busyTimeout); err != nil {
				return err
			}
			// After the switch, which may have to write the header.
			if queryOnly {
				if _, err := c.Exec("PRAGMA query_only = 1", nil); err != nil {
					return err
				}
			}
			if maxPageCount > 0 {
				_, err := c.Exec("PRAGMA max_page_count = "+strconv.FormatInt(maxPageCount, 10), nil)
				return err
			}
			return nil
		},
	}}
}

// switchToWAL puts the database in WAL mode, waiting up to timeout for
// other connections. Switching a database that is not in WAL mode yet (a
// new file, or one another program made) writes its header, and SQLite does
// that by upgrading a read transaction to a write one. Such an upgrade never
// waits for busy_timeout (two readers both waiting to write would
// deadlock): when several processes or pools open a new file at once, all
// but one get SQLITE_BUSY at once. Trying again is safe: once the winner has
// switched, the header says WAL and the switch writes nothing.
func switchToWAL(c *sqlite3.SQLiteConn, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		_, err := c.Exec("PRAGMA journal_mode = WAL", nil)
		if e, ok := sqliteCode(err); !ok || e.Code != sqlite3.ErrBusy || time.Now().Add(pause).After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

type sqliteDialect struct{}

func (sqliteDialect) name() string           { return "sqlite" }
func (sqliteDialect) search() searchEngine   { return sqliteSearch{} }
func (sqliteDialect) rebind(q string) string { return q }
func (sqliteDialect) fold() string           { return "pact_fold" }
func (sqliteDialect) jsonArrayLength(column string) string {
	return "json_array_length(" + column + ")"
}

// BEGIN IMMEDIATE (the writer's _txlock) already serialises migrations, in
// this process and across processes sharing the file.
func (sqliteDialect) lockMigrations(context.Context, *sql.Tx) error { return nil }

func sqliteCode(err error) (sqlite3.Error, bool) {
	var e sqlite3.Error
	if errors.As(err, &e) {
		return e, true
	}
	return e, false
}

func (sqliteDialect) isUniqueViolation(err error) bool {
	e, ok := sqliteCode(err)
	return ok && (e.ExtendedCode == sqlite3.ErrConstraintUnique || e.ExtendedCode == sqlite3.ErrConstraintPrimaryKey)
}

func (sqliteDialect) isForeignKeyViolation(err error) bool {
	e, ok := sqliteCode(err)
	return ok && e.ExtendedCode == sqlite3.ErrConstraintForeignKey
}

// One writer connection leaves nothing to retry.
func (sqliteDialect) isRetryable(error) bool { return false }

func (sqliteDialect) isUnavailable(err error) bool {
	e, ok := sqliteCode(err)
	if !ok {
		return false
	}
	switch e.Code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrCantOpen, sqlite3.ErrIoErr, sqlite3.ErrFull:
		return true
	}
	return false
}

// A SQLite file that cannot be opened or read is unreachable; a lock held
// by another connection is not.
func (sqliteDialect) isUnreachable(err error) bool {
	e, ok := sqliteCode(err)
	return ok && (e.Code == sqlite3.ErrCantOpen || e.Code == sqlite3.ErrIoErr)
}

// SQLite answers SQLITE_FULL when the database or its WAL cannot grow (no
// space left, or max_page_count reached); a failed write or fsync that the
// OS blamed on a full disk comes back as an I/O error carrying ENOSPC.
func (sqliteDialect) isOutOfStorage(err error) bool {
	e, ok := sqliteCode(err)
	return ok && (e.Code == sqlite3.ErrFull || e.SystemErrno == syscall.ENOSPC || e.SystemErrno == syscall.EDQUOT)
}

func (sqliteDialect) isTimeout(err error) bool {
	e, ok := sqliteCode(err)
	return ok && e.Code == sqlite3.ErrInterrupt
}

// mattn/go-sqlite3 keeps no statement cache of its own.
func (sqliteDialect) cachesStatements() bool { return false }

// SQLite has no server-side statement timeout.
func (sqliteDialect) liftStatementTimeout(context.Context, *sql.Tx) error { return nil }

// A SQLite read transaction sees one snapshot from its first SELECT on
// (WAL), whatever the writer does meanwhile.
func (sqliteDialect) snapshot(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.BeginTx(ctx, nil)
}

// SQLite's BINARY collation compares bytes.
func (sqliteDialect) bytewise(column string) string { return column }

// A write transaction (BEGIN IMMEDIATE) holds the one writer's lock.
func (sqliteDialect) forUpdate() string  { return `` }
func (sqliteDialect) skipLocked() string { return `` }

// On SQLite the list reads its two times as their stored text, which
// listTime parses in a fraction of what go-sqlite3's general time parsing
// costs (42 times per page).
func (sqliteDialect) listColumns() string { return sqliteListColumns }

var sqliteListColumns = strings.Replace(packageColumns, `p.created_at, p.updated_at`,
	`CAST(p.created_at AS TEXT), CAST(p.updated_at AS TEXT)`, 1)

// SQLite has no data-modifying WITH: three statements, each prepared once
// (stmtcache.go).
func (sqliteDialect) appendLog(ctx context.Context, s *Store, tx *sql.Tx, data []byte, at time.Time, versionID int64) (int64, error) {
	var index int64
	if err := s.txQueryRow(ctx, tx, sqlAppendLogHead).Scan(&index); err != nil {
		return 0, err
	}
	if _, err := s.txExec(ctx, tx, sqlAppendLogEntry, index, data, dbTime(at)); err != nil {
		return 0, err
	}
	var err error
	if versionID != 0 {
		_, err = s.txExec(ctx, tx, sqlVersionLogged, index, versionID)
	}
	return index, err
}

// The restore's transaction is BEGIN IMMEDIATE: it holds the write lock
// already, and SQLite has no server-side timeout.
func (sqliteDialect) lockForRestore(context.Context, *sql.Tx, []string) error { return nil }

// SQLite's planner reads no statistics the store relies on.
func (sqliteDialect) analyze(context.Context, *sql.Tx) error { return nil }

// AUTOINCREMENT keeps track of explicit ids by itself.
func (sqliteDialect) resetSequence(context.Context, *sql.Tx, string) error { return nil }

// A SQLite file has one process writing it: the turn is always free
// (the Store's own mutex keeps its goroutines apart).
func (sqliteDialect) tryTurn(context.Context, *sql.DB, int64, time.Duration) (func(), bool, error) {
	return func() {}, true, nil
}

// SQLite's connections are files, which an outage does not break.
func (sqliteDialect) dropIdle(...*sql.DB) {}

// sqliteStatementCache is how many prepared statements each SQLite
// connection keeps: every query the store runs, with room for the list's
// filter combinations.
const sqliteStatementCache = "64"

func openSQLite(dsn string, opts Options) (*Store, error) {
	if dsn == "" {
		return nil, fmt.Errorf("sqlstore: empty SQLite database path")
	}
	if strings.Contains(dsn, ":memory:") || strings.Contains(dsn, "mode=memory") {
		// The read pool would see a different, empty database.
		return nil, fmt.Errorf("sqlstore: in-memory SQLite is not supported, give a file path")
	}
	dsn, maxPageCount, err := takeMaxPageCount(dsn)
	if err != nil {
		return nil, err
	}
	if err := checkSQLiteDir(dsn); err != nil {
		return nil, err
	}
	busy := strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10)
	writeDSN, err := sqliteDSN(dsn, map[string]string{
		"_foreign_keys": "1",
		"_busy_timeout": busy,
		"_synchronous":  opts.SQLiteSynchronous,
		"_txlock":       "immediate",
		// Each connection keeps its recent statements prepared: parsing
		// and planning cost as much as running a point query.
		"_stmt_cache_size": sqliteStatementCache,
		// One goroutine at a time uses a connection (database/sql), so
		// SQLite's own lock around every call is not needed
		// (docs/design.md, "Plans that do not depend on bound values").
		"_mutex": "no",
	})
	if err != nil {
		return nil, err
	}
	// Readers switch to WAL too (the connector does, for every
	// connection), and become query-only after that.
	readDSN, err := sqliteDSN(dsn, sqliteReadParams(busy))
	if err != nil {
		return nil, err
	}
	write := sql.OpenDB(newSQLiteConnector(writeDSN, maxPageCount, false, opts.BusyTimeout))
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)

	readers := opts.MaxOpenConns
	if readers == 0 {
		readers = max(4, runtime.NumCPU())
	}
	read := sqliteReaders(readDSN, opts.BusyTimeout, readers)
	s := &Store{dialect: sqliteDialect{}, write: write, read: read, timeout: opts.StatementTimeout,
		point: newPointReads(sql.OpenDB(newSQLiteConnector(readDSN, 0, true, opts.BusyTimeout)), opts.StatementTimeout)}
	s.group = newGroupCommitter(write, opts.StatementTimeout)
	if opts.CacheBytes > 0 {
		s.cache = newReadCache(opts.CacheBytes, 0) // this process sees every write
	}
	return s, nil
}

// sqliteReadParams are the DSN parameters of the store's reading
// connections.
func sqliteReadParams(busyMillis string) map[string]string {
	return map[string]string{
		"_foreign_keys":    "1",
		"_busy_timeout":    busyMillis,
		"_txlock":          "deferred",
		"_stmt_cache_size": sqliteStatementCache,
		"_mutex":           "no",
	}
}

// OpenSQLiteReaders opens a pool of conns query-only connections to the
// SQLite database at path, each set up as the store's own readers are (the
// planner's stability guarantee, no per-connection mutex, the statement
// cache, WAL). It is for programs that read a store's database beside the
// store: the bench's bare servers use it to measure what pactd's reads
// cost with nothing of pactd around them.
func OpenSQLiteReaders(path string, conns int) (*sql.DB, error) {
	busy := DefaultBusyTimeout
	dsn, err := sqliteDSN(path, sqliteReadParams(strconv.FormatInt(busy.Milliseconds(), 10)))
	if err != nil {
		return nil, err
	}
	return sqliteReaders(dsn, busy, conns), nil
}

// sqliteReaders is a pool of conns query-only connections to dsn, kept
// open for the pool's life.
func sqliteReaders(dsn string, busy time.Duration, conns int) *sql.DB {
	db := sql.OpenDB(newSQLiteConnector(dsn, 0, true, busy))
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db
}

// takeMaxPageCount removes pact's own DSN parameter _max_page_count (a cap
// on the database's size in pages, past which writes fail as on a full disk)
// and returns its value, 0 when absent. It lets tests and operators bound
// the file without a dedicated filesystem.
func takeMaxPageCount(dsn string) (string, int64, error) {
	base, query, ok := strings.Cut(dsn, "?")
	if !ok {
		return dsn, 0, nil
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return "", 0, fmt.Errorf("sqlstore: SQLite database %q: bad parameters: %w", dsn, err)
	}
	raw, ok := values["_max_page_count"]
	if !ok {
		return dsn, 0, nil
	}
	n, err := strconv.ParseInt(raw[len(raw)-1], 10, 64)
	if err != nil || n <= 0 {
		return "", 0, fmt.Errorf("sqlstore: SQLite database %q: _max_page_count must be a positive number of pages", dsn)
	}
	values.Del("_max_page_count")
	return base + "?" + values.Encode(), n, nil
}

// sqliteDSN adds go-sqlite3 parameters to a path or file: URI. Ours win over
// the caller's, since the store relies on them (foreign keys, and WAL,
// which the connector sets: a journal mode or query_only in the caller's
// URI is dropped, or go-sqlite3 would apply it before the connector runs).
// checkSQLiteDir refuses a database whose directory does not exist, naming
// it: SQLite makes the file but not its directory, and its own error
// ("unable to open database file") does not say which part is missing.
func checkSQLiteDir(dsn string) error {
	path, _, _ := strings.Cut(dsn, "?")
	if rest, ok := strings.CutPrefix(path, "file:"); ok {
		// A URI: file:/abs, file:rel or file://[localhost]/abs, %-escaped.
		if after, ok := strings.CutPrefix(rest, "//"); ok {
			if i := strings.IndexByte(after, '/'); i >= 0 {
				rest = after[i:]
			}
		}
		if unescaped, err := url.PathUnescape(rest); err == nil {
			rest = unescaped
		}
		path = rest
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("SQLite database %s: the directory %s does not exist; create it first (pactd makes the file, not its directory)", path, dir)
	case err == nil && !info.IsDir():
		return fmt.Errorf("SQLite database %s: %s is not a directory", path, dir)
	}
	return nil // other faults (permissions) are SQLite's to report
}

func sqliteDSN(dsn string, params map[string]string) (string, error) {
	base, query, _ := strings.Cut(dsn, "?")
	values, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("sqlstore: SQLite database %q: bad parameters: %w", dsn, err)
	}
	for _, k := range []string{"_journal_mode", "_journal", "_query_only"} {
		values.Del(k)
	}
	for k, v := range params {
		values.Set(k, v)
	}
	return base + "?" + values.Encode(), nil
}

// ---- PostgreSQL ----

type postgresDialect struct {
	rebound *sync.Map // query text with ? → with $n
}

func (postgresDialect) name() string         { return "postgres" }
func (postgresDialect) search() searchEngine { return postgresSearch{} }
func (postgresDialect) fold() string         { return "lower" }
func (postgresDialect) jsonArrayLength(column string) string {
	return "json_array_length(" + column + "::json)"
}

func (d postgresDialect) rebind(q string) string {
	if v, ok := d.rebound.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	d.rebound.Store(q, b.String())
	return b.String()
}

// migrationLockKey is an arbitrary constant naming pact's migration lock.
const migrationLockKey = 7_346_572_001

func (d postgresDialect) lockMigrations(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLockKey)); err != nil {
		return err
	}
	// A migration may take longer than a request's statement timeout.
	return d.liftStatementTimeout(ctx, tx)
}

func pgCode(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func (postgresDialect) isUniqueViolation(err error) bool     { return pgCode(err) == "23505" }
func (postgresDialect) isForeignKeyViolation(err error) bool { return pgCode(err) == "23503" }

func (postgresDialect) isRetryable(err error) bool {
	switch pgCode(err) {
	case "40001", "40P01", "23505": // serialization_failure, deadlock_detected, unique_violation
		return true
	}
	return false
}

func (postgresDialect) isUnavailable(err error) bool {
	code := pgCode(err)
	switch {
	// Classes 08 (connection exception) and 53 (insufficient resources:
	// too many connections, disk full); server shutting down or starting up.
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"),
		code == "57P01", code == "57P02", code == "57P03":
		return true
	case code != "":
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) ||
		errors.As(err, &netErr) ||
		errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) ||
		errors.Is(err, sql.ErrConnDone) ||
		// pgx closes a connection whose server went away; the next use
		// of it (often a Rollback or the next statement of the same
		// transaction) reports only that.
		errors.Is(err, pgconn.ErrConnClosed) ||
		pgconn.SafeToRetry(err)
}

// 53100 disk_full; 53200 out_of_memory and 53300 too_many_connections stay
// Unavailable.
// Every unavailable PostgreSQL fault is about the connection or the
// server's state.
func (d postgresDialect) isUnreachable(err error) bool { return d.isUnavailable(err) }

func (postgresDialect) isOutOfStorage(err error) bool { return pgCode(err) == "53100" }

func (postgresDialect) isTimeout(err error) bool {
	return pgCode(err) == "57014" || pgconn.Timeout(err) // query_canceled: statement_timeout
}

// pgx caches prepared statements per connection itself.
func (postgresDialect) cachesStatements() bool { return true }

func (postgresDialect) liftStatementTimeout(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = 0")
	return err
}

func (d postgresDialect) snapshot(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	if err := d.liftStatementTimeout(ctx, tx); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// PostgreSQL's default collation follows the locale; "C" compares bytes.
func (postgresDialect) bytewise(column string) string { return column + ` COLLATE "C"` }

func (postgresDialect) forUpdate() string  { return ` FOR UPDATE` }
func (postgresDialect) skipLocked() string { return ` FOR UPDATE SKIP LOCKED` }

func (postgresDialect) listColumns() string { return packageColumns }

// One statement (sqlAppendLogPostgres) instead of three round trips.
func (postgresDialect) appendLog(ctx context.Context, s *Store, tx *sql.Tx, data []byte, at time.Time, versionID int64) (int64, error) {
	var index int64
	err := s.txQueryRow(ctx, tx, sqlAppendLogPostgres, data, dbTime(at), versionID).Scan(&index)
	return index, err
}

// EXCLUSIVE lets replicas read but not write while the restore runs.
func (d postgresDialect) lockForRestore(ctx context.Context, tx *sql.Tx, tables []string) error {
	if err := d.liftStatementTimeout(ctx, tx); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "LOCK TABLE "+strings.Join(tables, ", ")+" IN EXCLUSIVE MODE")
	return err
}

// Fresh statistics, or the planner guesses about tables it has never seen
// filled (the search's batches by id among them).
func (postgresDialect) analyze(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "ANALYZE packages, package_search, accounts")
	return err
}

func (postgresDialect) resetSequence(ctx context.Context, tx *sql.Tx, table string) error {
	_, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+table+`', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM `+table)
	return err
}

// The turn is a session advisory lock, tried on a connection of its own
// and held until release: a process that dies holding it releases it with
// its session.
func (postgresDialect) tryTurn(ctx context.Context, db *sql.DB, key int64, timeout time.Duration) (func(), bool, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, false, err
	}
	lockCtx, cancel := context.WithTimeout(ctx, timeout)
	var got bool
	err = conn.QueryRowContext(lockCtx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got)
	cancel()
	if err != nil || !got {
		conn.Close()
		return nil, false, err
	}
	release := func() {
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		if _, err := conn.ExecContext(unlockCtx, `SELECT pg_advisory_unlock($1)`, key); err != nil {
			// The session goes, and the lock with it.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}
	return release, true, nil
}

// Those opened before an outage would each fail one request after the
// database answers again.
func (postgresDialect) dropIdle(pools ...*sql.DB) {
	for _, db := range pools {
		if db != nil {
			n := db.Stats().MaxOpenConnections
			db.SetMaxIdleConns(0)
			db.SetMaxIdleConns(n)
		}
	}
}

// searchConns is the size of the searches' own pool on PostgreSQL beside a
// pool of conns connections: half as many, at least 2.
func searchConns(conns int) int { return max(2, (conns+1)/2) }

// sizePool holds db to n connections, kept idle for up to 5 minutes.
func sizePool(db *sql.DB, n int) {
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(30 * time.Minute)
}

// defaultConnectTimeout bounds connecting to PostgreSQL when the URL has no
// connect_timeout.
const defaultConnectTimeout = 2 * time.Second

func openPostgres(dsn string, opts Options) (*Store, error) {
	config, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx redacts the password from its message.
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	config.RuntimeParams["statement_timeout"] = strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	if config.RuntimeParams["application_name"] == "" {
		config.RuntimeParams["application_name"] = "pactd"
	}
	// pactd's statements are short and many; PostgreSQL's JIT compiler
	// and parallel workers are for long analytical queries, and once the
	// planner's estimate of a search's walk passed their thresholds they
	// cost more than the query (30 ms of compiling, two workers started,
	// for a 10 ms statement). Off unless the URL sets them (docs/design.md,
	// "Search").
	for name, value := range map[string]string{"jit": "off", "max_parallel_workers_per_gather": "0"} {
		if _, set := config.RuntimeParams[name]; !set {
			config.RuntimeParams[name] = value
		}
	}
	// A server that accepts connections but does not answer (overloaded,
	// half-dead host) must not hold a request for the whole statement
	// timeout: give up connecting sooner, unless the URL says otherwise.
	if config.ConnectTimeout == 0 {
		config.ConnectTimeout = min(defaultConnectTimeout, opts.StatementTimeout)
	}
	db := stdlib.OpenDB(*config)
	conns := opts.MaxOpenConns
	if conns == 0 {
		conns = DefaultPostgresConns
	}
	sizePool(db, conns)
	// The searches' own pool, half as large (at least 2), whose sessions
	// plan every statement for the words it is given: whether the newest
	// matches of a word are best found by walking the packages newest
	// first (a word in most of them) or through the GIN index (a rare one)
	// depends on the word, which a generic plan cannot know
	// (docs/design.md, "Search").
	searchConfig := config.Copy()
	if _, set := searchConfig.RuntimeParams["plan_cache_mode"]; !set {
		searchConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	search := stdlib.OpenDB(*searchConfig)
	sizePool(search, searchConns(conns))
	// The suggestions' own pool, as large as the searches', whose sessions
	// give every statement the suggestions' budget (search_postgres.go,
	// suggestWithinBudget) and set their similarity floor (`<<%`,
	// SuggestSlugs), which lets their index skip what is too far; a URL
	// may set its own floor.
	budget := opts.SuggestBudget
	if budget <= 0 {
		budget = defaultSuggestBudget
	}
	suggestConfig := searchConfig.Copy()
	suggestConfig.RuntimeParams["statement_timeout"] = strconv.FormatInt(max(1, budget.Milliseconds()), 10)
	if _, set := suggestConfig.RuntimeParams["pg_trgm.strict_word_similarity_threshold"]; !set {
		suggestConfig.RuntimeParams["pg_trgm.strict_word_similarity_threshold"] = strconv.FormatFloat(suggestFloor, 'g', -1, 64)
	}
	suggest := stdlib.OpenDB(*suggestConfig)
	sizePool(suggest, searchConns(conns))
	s := &Store{dialect: postgresDialect{rebound: new(sync.Map)}, write: db, read: db, search: search, suggest: suggest,
		timeout: opts.StatementTimeout}
	if opts.CacheBytes > 0 && opts.CacheTTL > 0 {
		// Other replicas write unseen: entries expire (readcache.go).
		s.cache = newReadCache(opts.CacheBytes, opts.CacheTTL)
	}
	return s, nil
}

// errNoFTS5 is what a SQLite built without its full-text engine, which
// search runs on (migration 0017), gets at its first connection.
var errNoFTS5 = errors.New("sqlstore: this program's SQLite has no full-text engine (FTS5), which search needs: build it with -tags nomsgpack,sqlite_fts5")

// requireFTS5 refuses a connection to a SQLite built without FTS5 (a build
// without the sqlite_fts5 tag), before any migration fails on it.
func requireFTS5(c *sqlite3.SQLiteConn) error {
	rows, err := c.Query("SELECT sqlite_compileoption_used('ENABLE_FTS5')", nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		return err
	}
	if n, ok := dest[0].(int64); !ok || n != 1 {
		return errNoFTS5
	}
	return nil
}
