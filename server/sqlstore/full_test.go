package sqlstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
)

// A full disk is its own code (the server answers 507), distinct from a
// database that does not answer (503); the message never holds driver text.
func TestFaultClassifiesFullDisk(t *testing.T) {
	sqlite := &Store{dialect: sqliteDialect{}}
	postgres := &Store{dialect: postgresDialect{}}
	cases := []struct {
		name  string
		store *Store
		err   error
		want  registry.Code
	}{
		{"SQLITE_FULL", sqlite, sqlite3.Error{Code: sqlite3.ErrFull}, registry.InsufficientStorage},
		{"SQLite I/O error with ENOSPC", sqlite, sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.ENOSPC}, registry.InsufficientStorage},
		{"SQLite I/O error with EDQUOT", sqlite, sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.EDQUOT}, registry.InsufficientStorage},
		{"SQLite I/O error of another kind", sqlite, sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.EIO}, registry.Unavailable},
		{"SQLITE_BUSY", sqlite, sqlite3.Error{Code: sqlite3.ErrBusy}, registry.Unavailable},
		{"PostgreSQL disk_full", postgres, &pgconn.PgError{Code: "53100", Message: "could not extend file"}, registry.InsufficientStorage},
		{"PostgreSQL too_many_connections", postgres, &pgconn.PgError{Code: "53300"}, registry.Unavailable},
		{"PostgreSQL syntax error", postgres, &pgconn.PgError{Code: "42601"}, registry.Internal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.store.fault("publish", fmt.Errorf("wrapped: %w", tc.err))
			if got := registry.ErrorCode(err); got != tc.want {
				t.Fatalf("code %q, want %q (error %v)", got, tc.want, err)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("the driver's error is lost for the logs: %v", err)
			}
			if tc.want == registry.InsufficientStorage {
				msg := registry.ErrorMessage(err)
				if !strings.Contains(msg, "out of storage") || strings.Contains(msg, "extend") {
					t.Errorf("message %q should say the server is out of storage and hide the driver's text", msg)
				}
			}
		})
	}
}

// _max_page_count caps the file: a publish that needs more pages fails as
// on a full disk, saves nothing, and the versions before it stay intact.
func TestSQLiteMaxPageCount(t *testing.T) {
	path := storetest.SQLiteDSN(t)
	const maxPages = 120
	s := openForTest(t, "file:"+path+"?_max_page_count="+fmt.Sprint(maxPages), Options{})
	if got := pragma(t, s.write, "max_page_count"); got != fmt.Sprint(maxPages) {
		t.Fatalf("writer max_page_count = %s, want %d", got, maxPages)
	}
	ctx := context.Background()
	alice := &registry.Account{Username: "alice", Email: "alice@example.com", CreatedAt: time.Now()}
	if err := s.CreateAccount(ctx, alice); err != nil {
		t.Fatal(err)
	}
	stored := map[string][]byte{}
	var fullErr error
	for i := range 40 { // 40 × 32 KiB is far more than 120 pages of 4 KiB
		version := fmt.Sprintf("1.0.%d", i)
		content := []byte(fmt.Sprintf("# v%d\n\n%s\n", i, strings.Repeat(fmt.Sprintf("%x", i), 16<<10)))
		sum := sha256.Sum256(content)
		_, _, err := registry.PublishVersion(ctx, s, registry.PublishInput{OwnerID: alice.ID, OwnerSlug: "alice", PackSlug: "big", Name: "big",
			Version: version, Content: content, SHA256: hex.EncodeToString(sum[:])})
		if err != nil {
			fullErr = err
			if _, err := s.VersionDocument(ctx, "alice", "big", version); !registry.IsCode(err, registry.NotFound) {
				t.Errorf("version %s that failed is readable (err %v)", version, err)
			}
			break
		}
		stored[version] = content
	}
	if code := registry.ErrorCode(fullErr); code != registry.InsufficientStorage {
		t.Fatalf("publishing past the cap: code %q (error %v), want %q", code, fullErr, registry.InsufficientStorage)
	}
	if len(stored) == 0 {
		t.Fatal("no publish fitted under the cap; raise maxPages")
	}
	for version, content := range stored {
		v, err := s.VersionDocument(ctx, "alice", "big", version)
		if err != nil || string(v.Content) != string(content) {
			t.Errorf("version %s after the disk filled: err %v, content intact %v", version, err, err == nil && string(v.Content) == string(content))
		}
	}
	if got := pragma(t, s.write, "integrity_check"); got != "ok" {
		t.Errorf("integrity_check = %q", got)
	}
}

func TestSQLiteMaxPageCountMustBePositive(t *testing.T) {
	for _, value := range []string{"0", "-5", "many"} {
		_, err := Open(context.Background(), storetest.SQLiteDSN(t)+"?_max_page_count="+value, Options{})
		if err == nil || !strings.Contains(err.Error(), "_max_page_count") {
			t.Errorf("_max_page_count=%s: Open error %v, want one naming _max_page_count", value, err)
		}
	}
}
