package sqlstore

/*
#include <stdlib.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_db_config(sqlite3*, int op, ...);
int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
int sqlite3_bind_text(sqlite3_stmt*, int, const char*, int, void(*)(void*));
int sqlite3_clear_bindings(sqlite3_stmt*);
int sqlite3_reset(sqlite3_stmt*);
int sqlite3_step(sqlite3_stmt*);
int sqlite3_stmt_status(sqlite3_stmt*, int op, int resetFlg);
int sqlite3_finalize(sqlite3_stmt*);

// SQLITE_DBCONFIG_ENABLE_QPSG and SQLITE_STMTSTATUS_REPREPARE, from sqlite3.h.
enum { pact_dbconfig_enable_qpsg = 1007, pact_stmtstatus_reprepare = 5 };

// pact_set_qpsg turns the query planner stability guarantee on (on = 1) or
// reads it (on = -1); it returns the setting after the call, or -1.
static int pact_set_qpsg(void *db, int on) {
	int now = -1;
	if (sqlite3_db_config((sqlite3*)db, pact_dbconfig_enable_qpsg, on, &now) != 0) return -1;
	return now;
}

// pact_reprepares runs sql (one text parameter) n times with a new value
// each time, the way go-sqlite3 runs a cached statement (reset, clear the
// bindings, bind, step), and returns how many times SQLite re-prepared it.
static int pact_reprepares(void *db, const char *sql, int n) {
	sqlite3_stmt *st = 0;
	int i, count;
	char value[16];
	if (sqlite3_prepare_v2((sqlite3*)db, sql, -1, &st, 0) != 0 || st == 0) return -1;
	for (i = 0; i < n; i++) {
		int k = i, j = 0;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		value[j++] = 'v';
		do { value[j++] = (char)('0' + k % 10); k /= 10; } while (k > 0 && j < 15);
		value[j] = 0;
		sqlite3_bind_text(st, 1, value, -1, (void(*)(void*))-1);
		while (sqlite3_step(st) == 100) {}
	}
	count = sqlite3_stmt_status(st, pact_stmtstatus_reprepare, 0);
	sqlite3_finalize(st);
	return count;
}
*/
import "C"

import (
	"errors"
	"reflect"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// sqliteHandle is the sqlite3* of a go-sqlite3 connection, which the
// driver keeps in an unexported field and offers no call for the setting
// below. The field is checked once per connection: a driver that renamed
// it makes every connection fail to open, never run without the setting.
func sqliteHandle(c *sqlite3.SQLiteConn) (unsafe.Pointer, error) {
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil, errors.New("sqlstore: go-sqlite3 connection has no open sqlite3 handle")
	}
	return unsafe.Pointer(f.Pointer()), nil
}

// stablePlans turns SQLite's query planner stability guarantee on for the
// connection (docs/design.md, "Plans that do not depend on bound values").
//
// Without it, SQLite marks a statement to be re-planned whenever certain
// bound values change (a filter `x = ?` in a join is checked for being 0 or
// 1, a LIKE pattern for its prefix), and go-sqlite3 clears a cached
// statement's bindings before every run, which SQLite answers by expiring
// such a statement outright. Nearly every join pactd runs was parsed and
// planned again on every execution: a raw read's statement cost 29 µs
// instead of 10.
func stablePlans(c *sqlite3.SQLiteConn) error {
	db, err := sqliteHandle(c)
	if err != nil {
		return err
	}
	if C.pact_set_qpsg(db, 1) != 1 {
		return errors.New("sqlstore: SQLite refused SQLITE_DBCONFIG_ENABLE_QPSG")
	}
	return nil
}

// stablePlansOn reports whether the guarantee is on for the connection.
func stablePlansOn(c *sqlite3.SQLiteConn) (bool, error) {
	db, err := sqliteHandle(c)
	if err != nil {
		return false, err
	}
	return C.pact_set_qpsg(db, -1) == 1, nil
}

// reprepares runs query (one text parameter) n times on the connection as
// go-sqlite3 runs a cached statement and says how many times SQLite had to
// prepare it again; -1 when it could not be prepared.
func reprepares(c *sqlite3.SQLiteConn, query string, n int) (int, error) {
	db, err := sqliteHandle(c)
	if err != nil {
		return 0, err
	}
	q := C.CString(query)
	defer C.free(unsafe.Pointer(q))
	return int(C.pact_reprepares(db, q, C.int(n))), nil
}
