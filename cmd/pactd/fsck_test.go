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
// and a partial one are both read. A tile changed in the database behind
// the log's back makes it fail.
func TestTesseraFsckVerifiesOurTiles(t *testing.T) {
	t.Parallel()
	fsck := gotooltest.Require(t, "fsck", "go install github.com/transparency-dev/tessera/cmd/fsck@v1.0.4")
	onBothBackends(t, func(t *testing.T, dsn string) {
		const n = translog.TileWidth + 10
		seedAlicePacks(t, dsn, n)
		srv := startPactd(t, dsn)
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

		// The same database with one tile's hash changed, served by a fresh
		// pactd (no tile in its memory): fsck fails.
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		db := openDB(t, dsn)
		var tile []byte
		if err := db.QueryRowContext(context.Background(), `SELECT data FROM log_tiles WHERE level = 0 AND n = 0`).Scan(&tile); err != nil {
			t.Fatal(err)
		}
		tile[100] ^= 1
		if _, err := db.ExecContext(context.Background(), `UPDATE log_tiles SET data = $1 WHERE level = 0 AND n = 0`, tile); err != nil {
			t.Fatal(err)
		}
		tampered := startPactd(t, dsn)
		out, ok = run(tampered.URL)
		if ok || !strings.Contains(out, "tile/0/000") {
			t.Fatalf("tessera fsck did not name the changed tile/0/000:\n%.2000s", out)
		}
	})
}
