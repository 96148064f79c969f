package sqlstore

import (
	"context"
	"database/sql"
	"time"
)

// pointReads runs, on SQLite, the reads the hottest paths make when their
// caches miss: one row by key (a raw document, a full log tile). Their
// work is bounded by the row (a few index lookups and at most one
// document), so the statement runs without a deadline of its own: a
// cancellable context costs database/sql a goroutine per query and
// go-sqlite3 a callback registration, about a tenth of a miss's CPU, and
// SQLite could only be interrupted between steps anyway, not in the read
// of a page. What stays bounded is the wait for a connection: the reads
// have connections of their own (never waiting behind a search), taken
// through slots; a read that finds none free waits at most the store's
// statement timeout, then fails as a timed-out statement does (503). See
// docs/design.md, "Point reads".
type pointReads struct {
	db      *sql.DB
	slots   chan struct{}
	stmts   map[string]*sql.Stmt
	timeout time.Duration
}

// pointReaders is how many connections the point reads have. Each runs a
// statement of tens of microseconds from the page cache, but a page read
// from the disk holds its connection far longer: with two, 32 clients
// whose reads went to the disk waited up to half a second (BENCHMARKS.md,
// fifth part). Each connection holds up to 2 MB of SQLite's page cache.
const pointReaders = 4

// pointStatements are the statements that run on pointReads.
var pointStatements = []string{versionDocumentQuery(true, false), versionDocumentQuery(true, true), sqlRawByID, sqlLogFullTile}

func newPointReads(db *sql.DB, timeout time.Duration) *pointReads {
	db.SetMaxOpenConns(pointReaders)
	db.SetMaxIdleConns(pointReaders)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return &pointReads{db: db, slots: make(chan struct{}, pointReaders), timeout: timeout}
}

// prepare prepares pointStatements; one that fails to prepare is left
// out, and its reads run on the reader pool under a deadline.
func (p *pointReads) prepare(ctx context.Context) {
	p.stmts = make(map[string]*sql.Stmt, len(pointStatements))
	for _, q := range pointStatements {
		if st, err := p.db.PrepareContext(ctx, q); err == nil {
			p.stmts[q] = st
		}
	}
}

func (p *pointReads) close() error {
	for _, st := range p.stmts {
		st.Close()
	}
	p.stmts = nil
	return p.db.Close()
}

// acquire takes a slot, and with it a free connection: waiting, when all
// are taken, at most the statement timeout.
func (p *pointReads) acquire(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(p.timeout)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-t.C:
		return context.DeadlineExceeded
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pointReads) release() { <-p.slots }

// pointRow runs query with args and scans its one row with scan: on the
// point reads when query is one of theirs, else on the reader pool under
// the store's deadline (PostgreSQL, or a statement that did not prepare).
func (s *Store) pointRow(ctx context.Context, query string, scan func(scanner) error, args ...any) error {
	if s.point != nil {
		if st, ok := s.point.stmts[query]; ok {
			if err := s.point.acquire(ctx); err != nil {
				return err
			}
			defer s.point.release()
			// Holding a slot, the pool has a connection free: nothing
			// below waits, and the read is bounded by its row.
			return scan(st.QueryRowContext(context.Background(), args...))
		}
	}
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	return scan(s.readQueryRow(ctx, query, args...))
}
