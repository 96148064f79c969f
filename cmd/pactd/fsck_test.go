package main_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/gotooltest"
	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/pkg/translog"
)

// Software we did not write reads our log: tessera's fsck
// (github.com/transparency-dev/tessera/cmd/fsck) fetches the checkpoint,
// every hash tile and entry bundle from /log/ and re-derives the root the
// checkpoint signs, with the log's verifier key from /log/key. A full tile
// (served from the blob store, where pactd blobs migrate moved it) and a
// partial one are both read. A tile changed on the blob store behind the
// log's back makes it fail.
func TestTesseraFsckVerifiesOurTiles(t *testing.T) {
	t.Parallel()
	fsck := gotooltest.Require(t, "fsck", "go install github.com/transparency-dev/tessera/cmd/fsck@v1.0.4")
	onBothBackends(t, func(t *testing.T, dsn string) {
		const n = translog.TileWidth + 10
		seedAlicePacks(t, dsn, n)
		// Sequenced with the tiles in the database, then moved to a blob
		// directory by pactd blobs migrate, and served from there.
		inDB := startPactd(t, dsn, "--blobs", "none")
		logtest.WaitFor(t, inDB.URL, n)
		if err := inDB.Stop(); err != nil {
			t.Fatal(err)
		}
		blobDir := filepath.Join(t.TempDir(), "blobs")
		migrate := pactd(t, nil, "", "blobs", "migrate", "--db", dsn, "--blobs", "file://"+blobDir)
		if migrate.code != 0 || !strings.Contains(migrate.stdout, "and 2 full log tiles") {
			t.Fatalf("blobs migrate: exit %d\n%s%s", migrate.code, migrate.stdout, migrate.stderr)
		}
		if again := pactd(t, nil, "", "blobs", "migrate", "--db", dsn, "--blobs", "file://"+blobDir); again.code != 0 ||
			!strings.Contains(again.stdout, "moved 0 documents (0 bytes) and 0 full log tiles") {
			t.Fatalf("blobs migrate again: exit %d\n%s%s", again.code, again.stdout, again.stderr)
		}
		srv := startPactd(t, dsn, "--blobs", "file://"+blobDir)
		logtest.WaitFor(t, srv.URL, n)

		resp, err := http.Get(srv.URL + "/log/key")
		if err != nil {
			t.Fatal(err)
		}
		key, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /log/key: %d %s %v", resp.StatusCode, key, err)
		}
		keyFile := filepath.Join(t.TempDir(), "log.vkey")
		if err := os.WriteFile(keyFile, key, 0o600); err != nil {
			t.Fatal(err)
		}
		// fsck v1.0.4 exits 0 even when it finds a difference: its verdict
		// is the line it logs ("fsck failed: ...").
		run := func(base string) (out string, ok bool) {
			cmd := exec.Command(fsck, "--storage_url="+base+"/log/", "--public_key="+keyFile, "--ui=false", "--N=2")
			b, err := cmd.CombinedOutput()
			out = string(b)
			return out, err == nil && !strings.Contains(out, "fsck failed") &&
				strings.Contains(out, fmt.Sprintf("Successfully fsck'd log with size %d", n))
		}
		out, ok := run(srv.URL)
		if !ok {
			t.Fatalf("tessera fsck refused our log:\n%.2000s", out)
		}
		t.Logf("tessera fsck on our log:\n%s", out)

		// The same registry with one hash of a tile's blob changed, served
		// by a fresh pactd (no tile in its memory): fsck fails, and so
		// does pactd log check, naming the tile.
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		db := openDB(t, dsn)
		var name string
		if err := db.QueryRowContext(context.Background(), `SELECT sha256 FROM log_tiles WHERE level = 0 AND n = 0`).Scan(&name); err != nil {
			t.Fatal(err)
		}
		blob := filepath.Join(blobDir, name[:2], name[2:4], name)
		tile, err := os.ReadFile(blob)
		if err != nil {
			t.Fatal(err)
		}
		tile[100] ^= 1
		if err := os.WriteFile(blob, tile, 0o640); err != nil {
			t.Fatal(err)
		}
		if check := pactd(t, nil, "", "log", "check", "--db", dsn, "--blobs", "file://"+blobDir); check.code != 1 ||
			!strings.Contains(check.stderr, "tile/0/000") {
			t.Errorf("log check of a damaged tile blob: exit %d\n%s%s", check.code, check.stdout, check.stderr)
		}
		tampered := startPactd(t, dsn, "--blobs", "file://"+blobDir)
		out, ok = run(tampered.URL)
		if ok || !strings.Contains(out, "tile/0/000") {
			t.Fatalf("tessera fsck did not name the changed tile/0/000:\n%.2000s", out)
		}
	})
}
