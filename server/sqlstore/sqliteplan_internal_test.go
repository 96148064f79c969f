package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// The join the raw path runs on a cache miss, reduced to its shape: a
// filter `x = ?` on the joined table, which is what made SQLite plan the
// statement again after every change of binding.
const rawJoin = `SELECT p.id FROM packages p JOIN accounts a ON a.id = p.owner_id
WHERE lower(a.username) = 'alice' AND p.pack_slug = ?`

// withRawConn runs f on one connection of db as go-sqlite3 holds it.
func withRawConn(t *testing.T, db *sql.DB, f func(c *sqlite3.SQLiteConn) error) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Raw(func(dc any) error { return f(dc.(*sqlite3.SQLiteConn)) }); err != nil {
		t.Fatal(err)
	}
}

// Every connection of both pools plans a statement once: running a cached
// join with a new value each time never makes SQLite prepare it again.
// The same statement on a connection without the setting is prepared
// again on every run, which is what this guards against.
func TestSQLiteStatementsArePlannedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pact.db")
	s := openForTest(t, path, Options{})
	const runs = 50
	// A pool that reads the store's file beside it (OpenSQLiteReaders).
	beside, err := OpenSQLiteReaders(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer beside.Close()
	for name, db := range map[string]*sql.DB{"reader": s.read, "writer": s.write, "OpenSQLiteReaders": beside} {
		withRawConn(t, db, func(c *sqlite3.SQLiteConn) error {
			on, err := stablePlansOn(c)
			if err != nil {
				return err
			}
			if !on {
				t.Errorf("%s: the query planner stability guarantee is off", name)
			}
			n, err := reprepares(c, rawJoin, runs)
			if err != nil {
				return err
			}
			if n != 0 {
				t.Errorf("%s: the join was prepared again %d times in %d runs, want 0", name, n, runs)
			}
			return nil
		})
	}

	if _, err := beside.Exec(`DELETE FROM accounts`); err == nil {
		t.Error("a pool of OpenSQLiteReaders wrote to the database")
	}

	// The control: the same database through go-sqlite3 without pactd's
	// connection setup.
	plain, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	withRawConn(t, plain, func(c *sqlite3.SQLiteConn) error {
		n, err := reprepares(c, rawJoin, runs)
		if err != nil {
			return err
		}
		if n < runs-1 {
			t.Errorf("without the setting the join was prepared again %d times in %d runs; this SQLite no longer needs the setting", n, runs)
		}
		return nil
	})
}
