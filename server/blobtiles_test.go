package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/s3test"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/blobs"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// blobEngine is a blob store for a test and the file that holds a blob's
// bytes on it (the directory's file, or versitygw's object).
type blobEngine struct {
	name  string
	open  func(t *testing.T) (registry.BlobStore, func(name string) string)
	needs func(t *testing.T)
}

func blobEngines() []blobEngine {
	var s3 *s3test.Server
	return []blobEngine{
		{name: "dir", open: func(t *testing.T) (registry.BlobStore, func(string) string) {
			dir, err := blobs.OpenDir(filepath.Join(t.TempDir(), "blobs"))
			if err != nil {
				t.Fatal(err)
			}
			return dir, dir.Path
		}},
		{name: "s3", needs: func(t *testing.T) {
			if s3 == nil {
				s3 = s3test.Start(t)
			}
		}, open: func(t *testing.T) (registry.BlobStore, func(string) string) {
			bucketURL := s3.Bucket(t)
			store, err := blobs.Open(context.Background(), bucketURL, s3.Creds)
			if err != nil {
				t.Fatal(err)
			}
			bucket := strings.TrimPrefix(bucketURL[:strings.Index(bucketURL, "/docs")], "s3://")
			return store, func(name string) string { return s3.Object(bucket, "docs/"+name) }
		}},
	}
}

// seedPacks publishes n packages of alice through the store (two log
// entries each), their documents in the rows.
func seedPacks(t *testing.T, env *servertest.Env, alice *servertest.User, n int) {
	t.Helper()
	var batch []registry.PublishInput
	for i := range n {
		content := []byte(packDoc(fmt.Sprintf("pack-%03d", i), "1.0.0"))
		sum := sha256.Sum256(content)
		batch = append(batch, registry.PublishInput{OwnerID: alice.Account.ID, OwnerSlug: "alice",
			PackSlug: fmt.Sprintf("pack-%03d", i), Name: fmt.Sprintf("pack-%03d", i), Version: "1.0.0",
			Content: content, SHA256: hex.EncodeToString(sum[:]), Now: env.Clock.Now()})
	}
	if err := env.Store.(*sqlstore.Store).Seed(context.Background(), registry.ReadyAll(batch)); err != nil {
		t.Fatal(err)
	}
}

// Every full log tile and entry bundle goes to the blob store once the
// sequencer stores it, on both databases and both engines: its row keeps
// only the blob's name, the tiles served verify with tlog's own proofs
// (logtest), each full tile's blob is the bytes served, partial tiles stay
// in the database, gc keeps the tiles' blobs however old, and a damaged
// tile blob is never served (500, a log line) and named by the log check.
func TestFullTilesOnTheBlobStore(t *testing.T) {
	t.Parallel()
	for _, engine := range blobEngines() {
		t.Run(engine.name, func(t *testing.T) {
			if engine.needs != nil {
				engine.needs(t)
			}
			servertest.Backends(t, func(t *testing.T, dsn string) {
				store, blobFile := engine.open(t)
				logs := new(syncbuf.Buffer)
				env := servertest.Start(t, dsn, servertest.Options{Blobs: store, Logs: logs, NoSequencer: true})
				alice := env.CreateUser(t, "alice")
				seedPacks(t, env, alice, 300) // 600 entries: two full bundles and hash tiles, a partial one of each
				if _, err := env.Service.SequenceLog(context.Background()); err != nil {
					t.Fatal(err)
				}
				if rows, err := env.Store.RowTiles(context.Background(), -2, -1, 100); err != nil || len(rows) != 0 {
					t.Fatalf("after sequencing, %d full tiles are still in their rows (%v); want none", len(rows), err)
				}
				l := logtest.WaitFor(t, env.URL, 600)
				if l.Tree.N != 600 {
					t.Fatalf("tree of %d entries, want 600", l.Tree.N)
				}
				for _, path := range []string{"tile/entries/000", "tile/entries/001", "tile/0/000", "tile/0/001"} {
					tile, err := translog.ParseTilePath(path)
					if err != nil {
						t.Fatal(err)
					}
					row, ok, err := env.Store.LogFullTile(context.Background(), tile.L, tile.N)
					if err != nil || !ok || !row.OnBlobStore() {
						t.Fatalf("%s: row %+v, %v, %v; want it on the blob store", path, row, ok, err)
					}
					served := env.API.Get("/log/" + path)
					wantStatus(t, served.Status, http.StatusOK, served.Body)
					onBlobs, err := os.ReadFile(blobFile(row.SHA256))
					if err != nil || string(onBlobs) != string(served.Body) || sha256Hex(string(served.Body)) != row.SHA256 {
						t.Errorf("%s: served %d bytes, its blob %s holds %d (%v)", path, len(served.Body), row.SHA256, len(onBlobs), err)
					}
				}
				for _, partial := range [][2]int64{{-1, 2}, {0, 2}} {
					if _, ok, err := env.Store.LogFullTile(context.Background(), int(partial[0]), partial[1]); ok || err != nil {
						t.Errorf("partial tile %v has a row (%v)", partial, err)
					}
				}
				if err := env.Service.CheckLog(context.Background(), func(string) {}); err != nil {
					t.Errorf("log check: %v", err)
				}

				// Long after, gc removes nothing a tile names.
				env.Clock.Advance(72 * time.Hour)
				r, err := env.Service.CollectBlobs(context.Background(), time.Hour)
				if err != nil || r.Removed != 0 {
					t.Errorf("gc removed %d blobs (%v); every one is named by a tile", r.Removed, err)
				}

				// The second hash tile damaged on the blob store: a fresh
				// server (nothing in its memory) refuses to serve it.
				row, _, _ := env.Store.LogFullTile(context.Background(), 0, 1)
				if err := os.WriteFile(blobFile(row.SHA256), make([]byte, row.Size), 0o644); err != nil {
					t.Fatal(err)
				}
				fresh := servertest.Start(t, dsn, servertest.Options{Blobs: store, Logs: logs, NoSequencer: true})
				damaged := fresh.API.Get("/log/tile/0/001")
				wantStatus(t, damaged.Status, http.StatusInternalServerError, damaged.Body)
				if !strings.Contains(logs.String(), "blob "+row.SHA256+": its bytes hash to") {
					t.Errorf("no log line names the damaged tile's blob")
				}
				if err := fresh.Service.CheckLog(context.Background(), func(string) {}); err == nil || !strings.Contains(err.Error(), "tile/0/001") {
					t.Errorf("log check = %v, want it to name tile/0/001", err)
				}
			})
		})
	}
}
