package sqlstore

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// Whatever a lost PostgreSQL connection looks like by the time the store
// sees it, it is Unavailable (503, retry later), never an internal error.
func TestPostgresLostConnectionIsUnavailable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"server shut down (57P01)", &pgconn.PgError{Code: "57P01"}, true},
		{"server starting up (57P03)", &pgconn.PgError{Code: "57P03"}, true},
		{"connection closed by pgx after an earlier failure", fmt.Errorf("publish: %w", pgconn.ErrConnClosed), true},
		{"socket closed mid-read", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"a bug of ours", errors.New("sql: Scan error on column index 0"), false},
	}
	d := postgresDialect{}
	for _, c := range cases {
		if got := d.isUnavailable(c.err); got != c.want {
			t.Errorf("%s: isUnavailable = %v, want %v", c.name, got, c.want)
		}
		if got := d.isUnreachable(c.err); got != c.want {
			t.Errorf("%s: isUnreachable = %v, want %v", c.name, got, c.want)
		}
	}
}

// A SQLite file that cannot be opened or read starts an outage (logged
// once, outage.go); a lock another connection holds is unavailable for a
// while, not unreachable.
func TestSQLiteUnreachableIsAFileThatCannotBeRead(t *testing.T) {
	cases := []struct {
		name                     string
		err                      error
		unavailable, unreachable bool
	}{
		{"cannot open", sqlite3.Error{Code: sqlite3.ErrCantOpen}, true, true},
		{"I/O error", sqlite3.Error{Code: sqlite3.ErrIoErr}, true, true},
		{"busy", sqlite3.Error{Code: sqlite3.ErrBusy}, true, false},
		{"locked", sqlite3.Error{Code: sqlite3.ErrLocked}, true, false},
		{"constraint", sqlite3.Error{Code: sqlite3.ErrConstraint}, false, false},
	}
	d := sqliteDialect{}
	for _, c := range cases {
		if got := d.isUnavailable(c.err); got != c.unavailable {
			t.Errorf("%s: isUnavailable = %v, want %v", c.name, got, c.unavailable)
		}
		if got := d.isUnreachable(c.err); got != c.unreachable {
			t.Errorf("%s: isUnreachable = %v, want %v", c.name, got, c.unreachable)
		}
	}
}
