package main_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"

	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/translog"
)

// onBothBackends runs test in parallel on a fresh SQLite file and a fresh
// PostgreSQL database.
func onBothBackends(t *testing.T, test func(t *testing.T, dsn string)) {
	for _, backend := range []struct {
		name string
		dsn  func(*testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "pact.db") }},
		{"postgres", func(t *testing.T) string { return storetest.PostgresURL(t) }},
	} {
		t.Run(backend.name, func(t *testing.T) {
			t.Parallel()
			test(t, backend.dsn(t))
		})
	}
}

// openDB opens the database at dsn directly, as an intruder with database
// access would; it is closed when the test ends.
func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	driver := "sqlite3"
	if strings.HasPrefix(dsn, "postgres") {
		driver = "pgx"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tamper changes a version's document bytes and its sha256 together,
// directly in the database, as an intruder with database access would.
func tamper(t *testing.T, dsn, owner, pack, version string) {
	t.Helper()
	db := openDB(t, dsn)
	forged := []byte("# widget\n\nNow with a backdoor.\n\n```yaml pact:pack\nname: widget\nversion: " + version + "\n```\n")
	sum := sha256.Sum256(forged)
	q := `UPDATE versions SET content = $1, sha256 = $2, size = $3 WHERE version = $4 AND package_id =
(SELECT p.id FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE a.username = $5 AND p.pack_slug = $6)`
	res, err := db.ExecContext(context.Background(), q, forged, hex.EncodeToString(sum[:]), len(forged), version, owner, pack)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("tampering changed %d rows", n)
	}
}

// A document changed in the database behind the log's back (bytes and
// sha256 together) is found by pactd log check, which names the version;
// before that the check passes, and pactd log key prints the served key.
func TestLogCheckFindsTamperedDocuments(t *testing.T) {
	t.Parallel()
	onBothBackends(t, func(t *testing.T, dsn string) {
		srv, token := startWithToken(t, "alice", dsn)
		for _, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
			wantAnswer(t, "publish "+v, publish(t, srv.URL, token, packDocument("widget", v, "Edition "+v)), http.StatusOK)
		}
		key := registerKey(t, srv.URL, token, "laptop")
		body := key.signedPublish(t, packDocument("signed", "1.0.0", "Signed."), "tamper-nonce-000000000001")
		wantAnswer(t, "signed publish", call(t, httpClient, http.MethodPost, srv.URL+"/api/publish-signed", "", body), http.StatusOK)
		l := logtest.WaitFor(t, srv.URL, 9) // each publish with its pack-state entry, and the key

		if r := pactd(t, nil, "", "log", "key", "--db", dsn); r.code != 0 || strings.TrimSpace(r.stdout) != l.VerifierKey {
			t.Errorf("pactd log key: code %d, %q; the server serves %q", r.code, r.stdout, l.VerifierKey)
		}
		if r := pactd(t, nil, "", "log", "check", "--db", dsn); r.code != 0 || !strings.Contains(r.stdout, "log check passed") {
			t.Fatalf("pactd log check before tampering: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}

		tamper(t, dsn, "alice", "widget", "1.1.0")
		r := pactd(t, nil, "", "log", "check", "--db", dsn)
		if r.code == 0 || !strings.Contains(r.stderr, "version alice/widget 1.1.0: document sha256") ||
			!strings.Contains(r.stderr, "differs from log entry 2 ("+logtest.Field(l.Entries[2], "sha256")+")") {
			t.Errorf("pactd log check after tampering: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
	})
}

// A full log tile changed in the database behind the log's back is found by
// pactd log check, which names it; before that the check passes and counts
// the full tiles, as it does on a registry restored from a dump.
func TestLogCheckFindsTamperedTiles(t *testing.T) {
	t.Parallel()
	onBothBackends(t, func(t *testing.T, dsn string) {
		const n = translog.TileWidth + 10
		seedAlicePacks(t, dsn, n)
		srv := startPactd(t, dsn)
		logtest.WaitFor(t, srv.URL, n)

		if r := pactd(t, nil, "", "log", "check", "--db", dsn); r.code != 0 || !strings.Contains(r.stdout, "full tiles: 1 hash tiles and 1 entry bundles") {
			t.Fatalf("pactd log check before tampering: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		// A dump does not carry the full tiles; a restore stores them again.
		dumpFile, restored := filepath.Join(t.TempDir(), "dump.jsonl"), filepath.Join(t.TempDir(), "restored.db")
		if r := pactd(t, nil, "", "dump", "--db", dsn, "-o", dumpFile); r.code != 0 {
			t.Fatalf("pactd dump: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := pactd(t, nil, "", "restore", "--db", restored, "-i", dumpFile); r.code != 0 {
			t.Fatalf("pactd restore: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := pactd(t, nil, "", "log", "check", "--db", restored); r.code != 0 || !strings.Contains(r.stdout, "full tiles: 1 hash tiles and 1 entry bundles") {
			t.Fatalf("pactd log check on the restored registry: code %d\n%s%s", r.code, r.stdout, r.stderr)
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
		r := pactd(t, nil, "", "log", "check", "--db", dsn)
		if r.code == 0 || !strings.Contains(r.stderr, "the stored full tile tile/0/000 differs from the one made from the entries") {
			t.Errorf("pactd log check after tampering: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
	})
}

// A release changed in the database behind the log's back is found by
// pactd log check, which names it; before that the check passes and
// counts it.
func TestLogCheckFindsTamperedReleases(t *testing.T) {
	t.Parallel()
	onBothBackends(t, func(t *testing.T, dsn string) {
		srv, token := startWithToken(t, "alice", dsn)
		wantAnswer(t, "publish", publish(t, srv.URL, token, packDocument("widget", "1.0.0", "Edition one")), http.StatusOK)
		release := `{"contract_id":"alice/widget","version":"1.0.0","artifact_index_url":"https://example.com/widget/1.0.0",` +
			`"artifacts":[{"name":"widget-linux-amd64","sha256":"` + strings.Repeat("ab", 32) + `"}],"source_git_commit":"0123abc"}`
		wantAnswer(t, "register the release", call(t, httpClient, http.MethodPost, srv.URL+"/api/releases", token, json.RawMessage(release)), http.StatusOK)
		logtest.WaitFor(t, srv.URL, 3) // the publish with its pack-state entry, and the release

		if r := pactd(t, nil, "", "log", "check", "--db", dsn); r.code != 0 || !strings.Contains(r.stdout, "releases: 1 records equal to their log entries") {
			t.Fatalf("pactd log check before tampering: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}

		db := openDB(t, dsn)
		if _, err := db.ExecContext(context.Background(), `UPDATE releases SET source_git_commit = 'deadbeef'`); err != nil {
			t.Fatal(err)
		}
		r := pactd(t, nil, "", "log", "check", "--db", dsn)
		if r.code == 0 || !strings.Contains(r.stderr, "release of alice/widget 1.0.0: the stored record hashes to") {
			t.Errorf("pactd log check after tampering: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}

		// A checkpoint larger than the tree is left out only while a
		// serving replica may have signed it since the check began: one
		// that no tree backs is refused.
		if _, err := db.ExecContext(context.Background(), `UPDATE releases SET source_git_commit = '0123abc'`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(context.Background(), `INSERT INTO log_checkpoints (size, note, created_at)
SELECT 99, note, created_at FROM log_checkpoints WHERE size = 3`); err != nil {
			t.Fatal(err)
		}
		r = pactd(t, nil, "", "log", "check", "--db", dsn)
		if r.code == 0 || !strings.Contains(r.stderr, "checkpoint of size 99: the tree has 3 entries") {
			t.Errorf("pactd log check with a checkpoint past the tree: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
		// So is a package whose state names an entry past the log.
		if _, err := db.ExecContext(context.Background(), `DELETE FROM log_checkpoints WHERE size = 99`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(context.Background(), `UPDATE packages SET log_head = 500`); err != nil {
			t.Fatal(err)
		}
		r = pactd(t, nil, "", "log", "check", "--db", dsn)
		if r.code == 0 || !strings.Contains(r.stderr, "log entry 500: the database names it, but the log has 3 entries") {
			t.Errorf("pactd log check with a log head past the log: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
	})
}

// A package's trusted-publishing-only setting changed in the database
// behind the log's back is found by pactd log check, which names the
// package: turned off with its last entry saying on, or turned on with no
// entry. Before that the check passes and counts the package.
func TestLogCheckFindsTamperedTrustedPublishingOnly(t *testing.T) {
	t.Parallel()
	onBothBackends(t, func(t *testing.T, dsn string) {
		srv, token := startWithToken(t, "alice", dsn)
		for _, pack := range []string{"widget", "gadget"} {
			wantAnswer(t, "publish", publish(t, srv.URL, token, packDocument(pack, "1.0.0", "Edition one")), http.StatusOK)
		}
		wantAnswer(t, "set trusted publishing only", call(t, httpClient, http.MethodPatch, srv.URL+"/api/packages/alice/widget", token,
			map[string]bool{"trusted_publishing_only": true}), http.StatusOK)
		logtest.WaitFor(t, srv.URL, 5) // each publish with its pack-state entry, and the setting

		if r := pactd(t, nil, "", "log", "check", "--db", dsn); r.code != 0 || !strings.Contains(r.stdout, "package settings: 1 packages trusted publishing only, as their log entries say") {
			t.Fatalf("pactd log check before tampering: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}

		db := openDB(t, dsn)
		if _, err := db.ExecContext(context.Background(), `UPDATE packages SET trusted_publishing_only = false WHERE pack_slug = 'widget'`); err != nil {
			t.Fatal(err)
		}
		r := pactd(t, nil, "", "log", "check", "--db", dsn)
		if r.code == 0 || !strings.Contains(r.stderr, "log entry 4: package alice/widget is logged as trusted publishing only, but the database does not set it") {
			t.Errorf("pactd log check after turning it off behind the log: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
		if _, err := db.ExecContext(context.Background(), `UPDATE packages SET trusted_publishing_only = (pack_slug = 'widget' OR pack_slug = 'gadget')`); err != nil {
			t.Fatal(err)
		}
		r = pactd(t, nil, "", "log", "check", "--db", dsn)
		if r.code == 0 || !strings.Contains(r.stderr, "package alice/gadget: trusted publishing only, but no log entry records it") {
			t.Errorf("pactd log check after turning it on behind the log: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
	})
}

// Two replicas on one PostgreSQL database publishing at once keep one
// linear log: every acknowledged publish has its own index, one checkpoint
// covers them all, every inclusion proof verifies from either replica, and
// each replica's checkpoints are consistent with the other's.
func TestLogOneLinearLogAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	first, token := startWithToken(t, "alice", dsn)
	second := startPactd(t, dsn)
	replicas := []string{first.URL, second.URL}

	// A few publishes first, so a client has seen a checkpoint before the rush.
	const before = 3
	for i := range before {
		wantAnswer(t, "publish", publish(t, replicas[i%2], token, packDocument("early", fmt.Sprintf("0.0.%d", i), "Early.")), http.StatusOK)
	}
	earlier := logtest.WaitFor(t, second.URL, 2*before) // each publish and its pack-state entry

	const perWriter, writers = 15, 4
	indexes := make(chan int64, perWriter*writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				base := replicas[(w+i)%2]
				a := call(t, httpClient, http.MethodPost, base+"/api/publish", token,
					map[string]string{"content": packDocument(fmt.Sprintf("pack-%d", w), fmt.Sprintf("1.0.%d", i), "Concurrent.")})
				if a.status != http.StatusOK {
					t.Errorf("publish on %s: %s", base, a)
					return
				}
				var out struct {
					LogIndex *int64 `json:"log_index"`
				}
				if err := json.Unmarshal(a.body, &out); err != nil || out.LogIndex == nil {
					t.Errorf("publish answer without log_index: %s", a)
					return
				}
				indexes <- *out.LogIndex
			}
		})
	}
	wg.Wait()
	close(indexes)
	seen := map[int64]bool{}
	for i := range indexes {
		if seen[i] {
			t.Errorf("log index %d was given to two publishes", i)
		}
		seen[i] = true
	}
	// Each publish's pack-state entry follows it at once.
	const total = 2 * (before + perWriter*writers)
	for i := int64(2 * before); i < total; i += 2 {
		if !seen[i] {
			t.Errorf("no publish got log index %d", i)
		}
	}
	var logs []*logtest.Log
	for _, r := range replicas {
		l := logtest.WaitFor(t, r, total)
		if l.Tree.N != total {
			t.Fatalf("%s: the log holds %d entries, want %d", r, l.Tree.N, total)
		}
		logs = append(logs, l)
	}
	if logs[0].Tree != logs[1].Tree {
		t.Errorf("the replicas serve different trees of the same size: %+v and %+v", logs[0].Tree, logs[1].Tree)
	}
	if err := logtest.Consistent(second.URL, earlier.Tree, logs[1].Tree); err != nil {
		t.Errorf("a checkpoint taken during the publishes is not consistent with the final one: %v", err)
	}
	if r := pactd(t, nil, "", "log", "check", "--db", dsn); r.code != 0 {
		t.Errorf("pactd log check: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A dump carries the log and its key: the registry restored into the other
// engine serves the same log under the same key, and pactd log check
// passes on it.
func TestLogSurvivesDumpAndRestore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	original := filepath.Join(dir, "original.db")
	srv, token := startWithToken(t, "alice", original)
	for _, v := range []string{"1.0.0", "2.0.0"} {
		wantAnswer(t, "publish", publish(t, srv.URL, token, packDocument("widget", v, "Kept.")), http.StatusOK)
	}
	key := registerKey(t, srv.URL, token, "laptop")
	wantAnswer(t, "delete key", call(t, httpClient, http.MethodDelete, fmt.Sprintf("%s/api/ssh-keys/%d", srv.URL, key.id), token, nil), http.StatusOK)
	// Two publishes (each with its pack-state entry), a key added and removed.
	const entries = 6
	before := logtest.WaitFor(t, srv.URL, entries)

	dumpFile := filepath.Join(dir, "dump.jsonl")
	if r := pactd(t, nil, "", "dump", "--db", original, "-o", dumpFile); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("log entries: %d", entries)) {
		t.Fatalf("pactd dump: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, target := range []string{filepath.Join(dir, "restored.db"), storetest.PostgresURL(t)} {
		if r := pactd(t, nil, "", "restore", "--db", target, "-i", dumpFile); r.code != 0 {
			t.Fatalf("pactd restore: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := pactd(t, nil, "", "log", "check", "--db", target); r.code != 0 {
			t.Fatalf("pactd log check on the restored registry: code %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		restored, token2 := startWithToken(t, "bob", target)
		after := logtest.WaitFor(t, restored.URL, entries)
		if after.VerifierKey != before.VerifierKey || after.Tree != before.Tree {
			t.Errorf("restored log: key %s, tree %+v; want %s, %+v", after.VerifierKey, after.Tree, before.VerifierKey, before.Tree)
		}
		// It goes on growing, consistently with what clients saw before.
		wantAnswer(t, "publish after restore", publish(t, restored.URL, token2, packDocument("gadget", "1.0.0", "New.")), http.StatusOK)
		grown := logtest.WaitFor(t, restored.URL, entries+2)
		if err := logtest.Consistent(restored.URL, before.Tree, grown.Tree); err != nil {
			t.Errorf("the restored log is not consistent with the original: %v", err)
		}
	}
}
