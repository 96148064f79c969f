package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/server/blobs"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

func sha256Hex(doc string) string {
	sum := sha256.Sum256([]byte(doc))
	return hex.EncodeToString(sum[:])
}

// startWithDir serves pact on dsn with its documents in a directory.
func startWithDir(t *testing.T, dsn string) (*servertest.Env, *blobs.Dir, *syncbuf.Buffer) {
	t.Helper()
	dir, err := blobs.OpenDir(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	logs := new(syncbuf.Buffer)
	return servertest.Start(t, dsn, servertest.Options{Blobs: dir, Logs: logs}), dir, logs
}

// rowDocuments counts the versions whose rows still hold their document.
func rowDocuments(t *testing.T, s registry.Store) int {
	t.Helper()
	vs, err := s.RowDocuments(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return len(vs)
}

// With a blob store, a publish puts the document in a file named by its
// sha256, the row keeps none of its bytes, and the raw path, the package
// page and the log check read it from there, with the raw path's headers
// unchanged.
func TestDocumentsOnTheBlobStore(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env, dir, _ := startWithDir(t, dsn)
		alice := env.CreateUser(t, "alice")
		v1, v2 := packDoc("doc", "1.0"), packDoc("doc", "2.0")
		for _, doc := range []string{v1, v2} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
			wantStatus(t, resp.Status, 200, resp.Body)
			onDisk, err := os.ReadFile(dir.Path(sha256Hex(doc)))
			if err != nil || string(onDisk) != doc {
				t.Fatalf("blob of %q: %q, %v", doc[:20], onDisk, err)
			}
		}
		if n := rowDocuments(t, env.Store); n != 0 {
			t.Errorf("%d rows hold their document; want none", n)
		}
		for path, doc := range map[string]string{"/raw/alice/doc.pact.md": v2, "/raw/alice/doc@1.0.pact.md": v1, "/raw/alice/doc@latest.pact.md": v2} {
			for range 2 { // a miss, then the rows' cache
				resp := env.API.Get(path)
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				h := resp.Header
				if string(resp.Body) != doc || h.Get("Content-Type") != "text/markdown; charset=utf-8" ||
					h.Get("ETag") != `"`+sha256Hex(doc)+`"` || h.Get("Content-Length") != strconv.Itoa(len(doc)) ||
					h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Accept-Ranges") != "" || h.Get("Last-Modified") != "" {
					t.Errorf("GET %s: %q with %v", path, resp.Body, h)
				}
			}
			head := env.API.Do(mustRequest(t, http.MethodHead, env.URL+path))
			if head.Status != 200 || len(head.Body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(doc)) {
				t.Errorf("HEAD %s: %d, %d bytes, Content-Length %q", path, head.Status, len(head.Body), head.Header.Get("Content-Length"))
			}
			notModified := env.API.Get(path, `If-None-Match: "`+sha256Hex(doc)+`"`)
			wantStatus(t, notModified.Status, http.StatusNotModified, notModified.Body)
		}
		page, err := http.Get(env.URL + "/alice/doc")
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(page.Body)
		page.Body.Close()
		if page.StatusCode != 200 || !strings.Contains(body.String(), "More prose.") {
			t.Errorf("package page: %d, document shown: %v", page.StatusCode, strings.Contains(body.String(), "More prose."))
		}
		if err := env.Service.CheckLog(context.Background(), func(string) {}); err != nil {
			t.Errorf("log check: %v", err)
		}
	})
}

// A blob whose bytes do not match its name is never served: 500, a log
// line naming it, and the log check names it too. A missing one is a 500
// as well; the other documents are still served.
func TestDamagedBlobIsNeverServed(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env, dir, logs := startWithDir(t, dsn)
		alice := env.CreateUser(t, "alice")
		v1, v2, v3 := packDoc("doc", "1.0"), packDoc("doc", "2.0"), packDoc("doc", "3.0")
		for _, doc := range []string{v1, v2, v3} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
			wantStatus(t, resp.Status, 200, resp.Body)
		}
		// Read once: a file checked before is checked again once changed.
		wantStatus(t, env.API.Get("/raw/alice/doc@1.0.pact.md").Status, 200, nil)
		damaged := strings.Replace(v1, "Some prose", "Evil prose", 1)
		if err := os.WriteFile(dir.Path(sha256Hex(v1)), []byte(damaged), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(dir.Path(sha256Hex(v2))); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ path, logged string }{
			{"/raw/alice/doc@1.0.pact.md", "blob " + sha256Hex(v1) + ": its bytes hash to " + sha256Hex(damaged)},
			{"/raw/alice/doc@2.0.pact.md", "blob " + sha256Hex(v2) + " is missing"},
		} {
			resp := env.API.Get(tc.path)
			wantStatus(t, resp.Status, http.StatusInternalServerError, resp.Body)
			if bytes.Contains(resp.Body, []byte("Evil")) {
				t.Errorf("%s served the damaged bytes: %s", tc.path, resp.Body)
			}
			if !strings.Contains(logs.String(), tc.logged) {
				t.Errorf("no log line says %q; logs:\n%s", tc.logged, logs.String())
			}
		}
		resp := env.API.Get("/raw/alice/doc.pact.md")
		if resp.Status != 200 || string(resp.Body) != v3 {
			t.Errorf("an intact document: %d %q", resp.Status, resp.Body)
		}
		err := env.Service.CheckLog(context.Background(), func(string) {})
		if err == nil || !strings.Contains(err.Error(), "blob") {
			t.Errorf("log check = %v, want it to name a blob", err)
		}
	})
}

// When the blob store does not take a document, the publish answers 503
// with Retry-After and stores nothing: no version, no log entry; once it
// takes documents again, the same publish succeeds.
func TestPublishWhileTheBlobStoreFails(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env, dir, _ := startWithDir(t, dsn)
		alice := env.CreateUser(t, "alice")
		root := dir.Root()
		// A file where the directory was: nothing can be written (the
		// tests run as root, whom permissions do not stop).
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(root, []byte("not a directory"), 0o600); err != nil {
			t.Fatal(err)
		}
		before, err := env.Store.LogState(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		doc := packDoc("doc", "1.0")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusServiceUnavailable, "retry")
		if resp.Header.Get("Retry-After") == "" {
			t.Errorf("503 without Retry-After")
		}
		wantStatus(t, env.API.Get("/raw/alice/doc.pact.md").Status, http.StatusNotFound, nil)
		after, err := env.Store.LogState(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if after.Entries != before.Entries {
			t.Errorf("the log grew from %+v to %+v", before, after)
		}
		if err := os.Remove(root); err != nil {
			t.Fatal(err)
		}
		if _, err := blobs.OpenDir(root); err != nil {
			t.Fatal(err)
		}
		resp = env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
		wantStatus(t, resp.Status, 200, resp.Body)
		if got := env.API.Get("/raw/alice/doc.pact.md"); string(got.Body) != doc {
			t.Errorf("after the store came back: %d %q", got.Status, got.Body)
		}
	})
}

// A registry that kept its documents in the database goes on serving them
// once it has a blob store, puts its new ones there, and MigrateDocuments
// moves the old ones (checked, then freed from their rows); a stopped
// migration leaves everything readable and runs again to its end. A dump
// carries the documents of both kinds into a restore that has no blob
// store.
func TestMigrateDocumentsToTheBlobStore(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env, dir, _ := startWithDir(t, dsn)
		ctx := context.Background()
		alice := env.CreateUser(t, "alice")
		account, err := env.Store.AccountByUsername(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		// What pact did before the blob store: documents in their rows.
		inRows := registry.NewService(env.Store, registry.Options{Now: env.Clock.Now})
		old := []string{packDoc("doc", "1.0"), packDoc("doc", "1.1"), packDoc("other", "1.0")}
		for _, doc := range old {
			if _, _, err := inRows.Publish(ctx, account, registry.PublishRequest{Content: []byte(doc)}); err != nil {
				t.Fatal(err)
			}
		}
		newer := packDoc("doc", "2.0")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": newer}, alice.Bearer())
		wantStatus(t, resp.Status, 200, resp.Body)
		if n := rowDocuments(t, env.Store); n != len(old) {
			t.Fatalf("%d rows hold their document, want %d", n, len(old))
		}
		serves := func(when string) {
			t.Helper()
			for path, doc := range map[string]string{"/raw/alice/doc@1.0.pact.md": old[0], "/raw/alice/doc@1.1.pact.md": old[1],
				"/raw/alice/other.pact.md": old[2], "/raw/alice/doc.pact.md": newer} {
				if resp := env.API.Get(path); resp.Status != 200 || string(resp.Body) != doc {
					t.Errorf("%s: GET %s = %d %q", when, path, resp.Status, resp.Body)
				}
			}
		}
		serves("before the migration")

		// Stopped (as by Ctrl-C) once it has put its first document.
		stopping, stop := context.WithCancel(ctx)
		interrupted := registry.NewService(env.Store, registry.Options{Blobs: stopAfterPut{dir, stop}})
		if _, err := interrupted.MigrateDocuments(stopping, nil); err == nil {
			t.Fatal("a stopped migration reported no error")
		}
		if n := rowDocuments(t, env.Store); n == 0 {
			t.Fatalf("a stopped migration left %d rows holding their document", n)
		}
		serves("after a stopped migration")
		r, err := env.Service.MigrateDocuments(ctx, nil)
		if err != nil || r.Moved == 0 {
			t.Fatalf("the migration run again moved %d: %v", r.Moved, err)
		}
		// Not stopped: it ran to its end; the rows hold nothing.
		if n := rowDocuments(t, env.Store); n != 0 {
			t.Fatalf("after the migration %d rows hold their document", n)
		}
		again, err := env.Service.MigrateDocuments(ctx, nil)
		if err != nil || again.Moved != 0 {
			t.Errorf("a second migration moved %d (%v), want 0", again.Moved, err)
		}
		for _, doc := range old {
			if _, err := os.Stat(dir.Path(sha256Hex(doc))); err != nil {
				t.Errorf("no blob for %q: %v", doc[:12], err)
			}
		}
		serves("after the migration")
		if err := env.Service.CheckLog(ctx, func(string) {}); err != nil {
			t.Errorf("log check: %v", err)
		}

		// Dump with the blob store, restore without one.
		var dump bytes.Buffer
		if _, err := env.Store.(*sqlstore.Store).DumpWith(ctx, &dump, env.Service.BlobDocument); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Store.(*sqlstore.Store).Dump(ctx, new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), "blob store") {
			t.Errorf("a dump without the blob store = %v, want a refusal naming it", err)
		}
		restored := storetest.SQLiteDSN(t)
		into, err := sqlstore.Open(ctx, restored, sqlstore.Options{LogBackfill: registry.Backfill()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := into.Restore(ctx, &dump); err != nil {
			t.Fatal(err)
		}
		into.Close()
		env2 := servertest.Start(t, restored, servertest.Options{})
		for _, doc := range append(old, newer) {
			v := strings.TrimSpace(doc[strings.Index(doc, "version: ")+len("version: ") : strings.Index(doc, "\n```\n")])
			name := strings.TrimPrefix(doc[:strings.Index(doc, "\n")], "# ")
			if resp := env2.API.Get("/raw/alice/" + name + "@" + v + ".pact.md"); resp.Status != 200 || string(resp.Body) != doc {
				t.Errorf("restored %s@%s: %d %q", name, v, resp.Status, resp.Body)
			}
		}
	})
}

// stopAfterPut is the directory engine, whose migration is stopped (its
// context cancelled) as soon as it has put a document.
type stopAfterPut struct {
	*blobs.Dir
	stop func()
}

func (s stopAfterPut) Put(ctx context.Context, name string, content []byte) error {
	defer s.stop()
	return s.Dir.Put(ctx, name, content)
}

// PutUnsynced is how a migration puts documents on a directory (synced
// once a batch).
func (s stopAfterPut) PutUnsynced(ctx context.Context, name string, content []byte) error {
	defer s.stop()
	return s.Dir.PutUnsynced(ctx, name, content)
}

// listHook is a blob directory that runs before as gc starts listing it.
type listHook struct {
	*blobs.Dir
	before func()
}

func (l *listHook) List(ctx context.Context, fn func(registry.BlobInfo) error) error {
	l.before()
	return l.Dir.List(ctx, fn)
}

// gc reads the names of the rows, then lists the blobs: a publish that puts
// its document and commits its row in between (its blob listed, its name
// not read) keeps its blob, which is younger than the grace period, and
// is served; an hour of grace later, gc still keeps it (its row names it).
func TestGCKeepsTheBlobOfAPublishCommittedWhileItRuns(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		dir, err := blobs.OpenDir(filepath.Join(t.TempDir(), "blobs"))
		if err != nil {
			t.Fatal(err)
		}
		doc := packDoc("doc", "1.0")
		var env *servertest.Env
		var alice *servertest.User
		hook := &listHook{Dir: dir, before: func() {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
			wantStatus(t, resp.Status, 200, resp.Body)
		}}
		env = servertest.Start(t, dsn, servertest.Options{Blobs: hook})
		alice = env.CreateUser(t, "alice")
		r, err := env.Service.CollectBlobs(context.Background(), time.Hour)
		if err != nil || r.Removed != 0 {
			t.Fatalf("gc removed %d blobs (%v)", r.Removed, err)
		}
		if _, err := os.Stat(dir.Path(sha256Hex(doc))); err != nil {
			t.Fatalf("gc removed the blob of a publish committed while it ran: %v", err)
		}
		if resp := env.API.Get("/raw/alice/doc@1.0.pact.md"); resp.Status != 200 || string(resp.Body) != doc {
			t.Errorf("after gc: %d %q", resp.Status, resp.Body)
		}
		hook.before = func() {}
		env.Clock.Advance(2 * time.Hour)
		if r, err := env.Service.CollectBlobs(context.Background(), time.Hour); err != nil || r.Removed != 0 {
			t.Errorf("gc past the grace period removed %d blobs (%v); the row names it", r.Removed, err)
		}
	})
}
