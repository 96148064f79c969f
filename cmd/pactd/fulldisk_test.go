package main_test

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// storageSpace is a way to run pactd's database out of space and give the
// space back while pactd keeps running.
type storageSpace struct {
	name string
	// setup prepares dir and returns the --db value and the SQLite file.
	setup func(t *testing.T, dir string) (db, file string)
	// fill takes all the free space; free gives it back.
	fill, free func(t *testing.T)
	// args are pactd serve's own: the database's cap holds the
	// documents only when they are in the database.
	args []string
}

// Both ways end in the same place: a publish that needs room is answered
// 507 with a plain message, nothing is half-written, and once space returns
// the same pactd publishes again with every earlier version intact.
func TestFullDiskAnswers507AndRecovers(t *testing.T) {
	for _, space := range []storageSpace{pageCapSpace(), smallFilesystemSpace()} {
		t.Run(space.name, func(t *testing.T) {
			db, file := space.setup(t, t.TempDir())
			srv, token := startWithToken(t, "alice", db, space.args...)
			user := newAPIUser(srv.URL, token, 1)
			published := map[string]string{} // version → content
			publishOK := func(version string, padding int) {
				t.Helper()
				content := packDoc("roomy", version, padding)
				status, body, err := user.publish(content)
				if err != nil || status != http.StatusOK {
					t.Fatalf("publish %s: status %d, error %v: %s\n%s", version, status, err, body, srv.Logs())
				}
				published[version] = content
			}
			for i := range 3 {
				publishOK(fmt.Sprintf("1.0.%d", i), 200)
			}

			space.fill(t)
			for i := range 3 {
				version := fmt.Sprintf("2.0.%d", i)
				// 64 KiB needs fresh pages: it cannot hide in a page's free room.
				status, body, err := user.publish(packDoc("roomy", version, 64<<10))
				if err != nil || status != http.StatusInsufficientStorage {
					t.Fatalf("publish %s on a full disk: status %d, error %v: %s (want 507)", version, status, err, body)
				}
				var answer struct {
					OK    *bool  `json:"ok"`
					Error string `json:"error"`
				}
				if err := json.Unmarshal(body, &answer); err != nil || answer.OK == nil || *answer.OK {
					t.Fatalf("507 body is not the error object: %s", body)
				}
				lower := strings.ToLower(answer.Error)
				if !strings.Contains(lower, "out of storage") {
					t.Errorf("507 message %q does not say the server is out of storage", answer.Error)
				}
				for _, leak := range []string{"sqlite", "sql", "database or disk", "i/o", "insert", "wal", "/"} {
					if strings.Contains(lower, leak) {
						t.Errorf("507 message %q leaks %q", answer.Error, leak)
					}
				}
			}
			// Reading needs no space: earlier versions still serve, whole.
			for version, content := range published {
				user.checkDocument(t, "alice", "roomy", version, content, "")
			}

			space.free(t)
			publishOK("2.0.0", 64<<10) // the publish refused above, now that there is room
			publishOK("2.0.1", 200)
			listed := user.versions(t, "alice", "roomy")
			if len(listed) != len(published) {
				t.Errorf("%d versions listed, want the %d acknowledged: %+v", len(listed), len(published), listed)
			}
			for _, v := range listed {
				content, ok := published[v.Version]
				if !ok {
					t.Errorf("version %s is listed but was refused", v.Version)
					continue
				}
				user.checkDocument(t, "alice", "roomy", v.Version, content, v.SHA256)
			}
			if err := srv.Stop(); err != nil {
				t.Fatal(err)
			}
			if got := integrityCheck(t, file); got != "ok" {
				t.Errorf("PRAGMA integrity_check after the disk filled and emptied: %s", got)
			}
		})
	}
}

// pageCapSpace caps the database with pact's _max_page_count DSN parameter
// and fills the room under the cap with a filler table written by a second
// connection (as another program would fill a disk); dropping the table
// gives the pages back.
func pageCapSpace() storageSpace {
	const maxPages = 1024 // 4 MiB of 4 KiB pages
	var file string
	var filler *sql.DB
	return storageSpace{
		name: "SQLite max_page_count",
		args: []string{"--blobs", "none"},
		setup: func(t *testing.T, dir string) (string, string) {
			file = filepath.Join(dir, "pact.db")
			return fmt.Sprintf("file:%s?_max_page_count=%d", file, maxPages), file
		},
		fill: func(t *testing.T) {
			var err error
			filler, err = sql.Open("sqlite3", file+"?_busy_timeout=5000")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { filler.Close() })
			filler.SetMaxOpenConns(1) // the cap is a setting of one connection
			for _, stmt := range []string{fmt.Sprintf("PRAGMA max_page_count = %d", maxPages), "CREATE TABLE filler (b BLOB)"} {
				if _, err := filler.Exec(stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			// Large blobs, then smaller ones, until not even 100 bytes fit.
			for _, size := range []int{16 << 10, 1 << 10, 100} {
				for i := 0; ; i++ {
					_, err := filler.Exec("INSERT INTO filler VALUES (randomblob(?))", size)
					var serr sqlite3.Error
					if errors.As(err, &serr) && serr.Code == sqlite3.ErrFull {
						break
					}
					if err != nil || i > maxPages*4096/size {
						t.Fatalf("filling the database with %d-byte blobs: %v (after %d)", size, err, i)
					}
				}
			}
		},
		free: func(t *testing.T) {
			if _, err := filler.Exec("DROP TABLE filler"); err != nil {
				t.Fatal(err)
			}
			filler.Close()
		},
	}
}

// smallFilesystemSpace puts the database on its own small tmpfs and fills
// it with a file; removing the file gives the space back. Mounting needs
// root (CI runs as root, and there a failed mount fails the test);
// elsewhere this case is skipped, and the page cap case still runs.
func smallFilesystemSpace() storageSpace {
	var fillerPath string
	return storageSpace{
		name: "small filesystem",
		setup: func(t *testing.T, dir string) (string, string) {
			out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir).CombinedOutput()
			if err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("cannot mount a small tmpfs (needs root and mount(2)); the real full-disk test must run in CI: %v: %s", err, out)
				}
				t.Skipf("cannot mount a small tmpfs here (needs root and mount(2)): %v: %s", err, out)
			}
			t.Cleanup(func() {
				if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
					t.Errorf("umount %s: %v: %s", dir, err, out)
				}
			})
			fillerPath = filepath.Join(dir, "filler")
			file := filepath.Join(dir, "pact.db")
			return file, file
		},
		fill: func(t *testing.T) {
			f, err := os.Create(fillerPath)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			chunk := make([]byte, 64<<10)
			for size := len(chunk); size > 0; {
				_, err := f.Write(chunk[:size])
				if errors.Is(err, syscall.ENOSPC) {
					size /= 2 // fill the last blocks too
					continue
				}
				if err != nil {
					t.Fatalf("filling the filesystem: %v", err)
				}
			}
		},
		free: func(t *testing.T) {
			if err := os.Remove(fillerPath); err != nil {
				t.Fatal(err)
			}
		},
	}
}
