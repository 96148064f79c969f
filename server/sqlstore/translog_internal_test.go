package sqlstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

func logTestAccount(t *testing.T, s *Store, name string) *registry.Account {
	t.Helper()
	a := &registry.Account{Email: name + "@example.com", Username: name, CreatedAt: time.Now()}
	if err := s.CreateAccount(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	return a
}

func logTestInput(a *registry.Account, pack, version string, at time.Time) registry.PublishInput {
	content := []byte("# " + pack + " " + version + "\n")
	return registry.PublishInput{OwnerID: a.ID, OwnerSlug: a.Username, PackSlug: pack, Name: pack, Version: version,
		Content: content, SHA256: sha256Hex(content), Now: at}
}

// Group commit still batches with the log on: concurrent publishes share
// transactions, and the entries of the publishes get dense indexes.
func TestGroupCommitBatchesLogAppends(t *testing.T) {
	s := openForTest(t, storetest.SQLiteDSN(t), Options{})
	alice := logTestAccount(t, s, "alice")
	before := s.group.batches.Load()
	const n = 64
	indexes := make([]int64, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			p, _, err := registry.PublishVersion(t.Context(), s, logTestInput(alice, fmt.Sprintf("p%d", i), "1.0.0", time.Now()))
			if err != nil {
				t.Error(err)
				return
			}
			indexes[i] = *p.LogIndex
		})
	}
	close(start)
	wg.Wait()
	batches := s.group.batches.Load() - before
	if batches >= n {
		t.Errorf("%d publishes took %d transactions: group commit does not batch", n, batches)
	}
	// Each publish appends its entry and, right after it, its package's
	// pack-state entry.
	seen := map[int64]bool{}
	for _, x := range indexes {
		seen[x], seen[x+1] = true, true
	}
	for i := int64(0); i < 2*n; i++ {
		if !seen[i] {
			t.Errorf("no publish got log index %d, nor its pack-state entry", i)
		}
	}
	t.Logf("%d publishes in %d transactions", n, batches)
}

// The migration that makes the log appends the versions and keys that
// exist, in the order they were made, and gives each version its index.
func TestLogMigrationAppendsWhatExists(t *testing.T) {
	onEachEngine(t, func(t *testing.T, dsn string) {
		s, err := Open(t.Context(), dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		alice := logTestAccount(t, s, "alice")
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if _, _, err := registry.PublishVersion(t.Context(), s, logTestInput(alice, "widget", "1.0.0", t0)); err != nil {
			t.Fatal(err)
		}
		key := &registry.SSHKey{AccountID: alice.ID, Name: "k", Type: "ssh-ed25519", Fingerprint: "SHA256:abc",
			PublicKey: "ssh-ed25519 AAAA", CreatedAt: t0.Add(time.Minute)}
		if err := registry.CreateSSHKey(t.Context(), s, key, alice.Username); err != nil {
			t.Fatal(err)
		}
		in := logTestInput(alice, "widget", "2.0.0", t0.Add(2*time.Minute))
		in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: t0.Unix(),
			Nonce: "nonce-000000000000001", Signature: "sig", SignedLinesKnown: true, SignedDescription: "d", PublicKey: key.PublicKey}
		if _, _, err := registry.PublishVersion(t.Context(), s, in); err != nil {
			t.Fatal(err)
		}
		// The migration logs the publishes and keys; the packages' states
		// come with the migration of pack-state entries (0024), which
		// TestPackStateMigration shows.
		var want [][]byte
		for _, e := range logEntriesOf(t, s) {
			if !bytes.Contains(e, []byte("\nkind pack-state\n")) {
				want = append(want, e)
			}
		}

		// Back to the schema before the log.
		for _, stmt := range []string{`DROP TABLE log_entries`, `DROP TABLE log_hashes`, `DROP TABLE log_checkpoints`,
			`DROP TABLE log_head`, `DROP TABLE log_tree`, `ALTER TABLE versions DROP COLUMN log_index`, `DROP TABLE log_tiles`,
			`DELETE FROM schema_migrations WHERE version IN (7, 13)`} {
			if _, err := s.write.ExecContext(t.Context(), stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		s.Close()

		// The store builds no entry: without the domain's, the
		// migration that makes the log refuses the database, and
		// leaves it as it was.
		if _, err := Open(t.Context(), dsn, Options{}); !errors.Is(err, errNoBackfill) {
			t.Fatalf("Open without Options.LogBackfill: %v, want the backfill refused", err)
		}
		s = openForTest(t, dsn, Options{LogBackfill: registry.Backfill()})
		got := logEntriesOf(t, s)
		if len(got) != 3 {
			t.Fatalf("%d entries after the migration, want 3", len(got))
		}
		for i := range want {
			if string(got[i]) != string(want[i]) {
				t.Errorf("entry %d after the migration:\n%s\nas logged when it happened:\n%s", i, got[i], want[i])
			}
		}
		p, err := s.PackageBySlug(t.Context(), "alice", "widget")
		if err != nil {
			t.Fatal(err)
		}
		versions, _ := s.ListVersions(t.Context(), p.ID)
		for _, v := range versions {
			e, _ := translog.Parse(got[*v.LogIndex])
			if e.Get("version") != v.Version {
				t.Errorf("version %s has log index %d, which logs %s", v.Version, *v.LogIndex, got[*v.LogIndex])
			}
		}
	})
}

func logEntriesOf(t *testing.T, s *Store) [][]byte {
	t.Helper()
	st, err := s.LogState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.LogEntries(t.Context(), 0, st.Entries)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The migration that makes log_tiles fills it for a log sequenced before
// it: every full tile of the tree is stored, as the tree's hashes and the
// entries make it, and the partial ones are not.
func TestLogTilesMigrationFillsTheSequencedTree(t *testing.T) {
	onEachEngine(t, func(t *testing.T, dsn string) {
		s, err := Open(t.Context(), dsn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		alice := logTestAccount(t, s, "alice")
		const n = translog.TileWidth + 44 // entries: a publish and its pack-state each
		var batch []registry.PublishInput
		for i := range n / 2 {
			batch = append(batch, logTestInput(alice, fmt.Sprintf("p%d", i), "1.0.0", time.Now()))
		}
		if err := s.Seed(t.Context(), registry.ReadyAll(batch)); err != nil {
			t.Fatal(err)
		}
		sign := func(size int64, root tlog.Hash) ([]byte, error) { return []byte(fmt.Sprint(size, root)), nil }
		if size, err := s.SequenceLog(t.Context(), 4096, sign); err != nil || size != n {
			t.Fatalf("SequenceLog = %d, %v", size, err)
		}
		wantTileRow, _, _ := s.LogFullTile(t.Context(), 0, 0)
		wantBundleRow, _, _ := s.LogFullTile(t.Context(), -1, 0)
		wantTile, wantBundle := wantTileRow.Data, wantBundleRow.Data
		if len(wantTile) != translog.TileWidth*tlog.HashSize || len(wantBundle) == 0 {
			t.Fatalf("sequencing stored a hash tile of %d bytes and a bundle of %d", len(wantTile), len(wantBundle))
		}

		// Back to the schema before log_tiles (and the migration that
		// added its blob store columns).
		for _, stmt := range []string{`DROP TABLE log_tiles`, `ALTER TABLE log_tree DROP COLUMN tiles_size`,
			`DELETE FROM schema_migrations WHERE version IN (13, 36)`} {
			if _, err := s.write.ExecContext(t.Context(), stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		s.Close()

		s = openForTest(t, dsn, Options{})
		if st, err := s.LogState(t.Context()); err != nil || st.TilesSize != n {
			t.Errorf("after the migration: %+v, %v; want full tiles stored up to %d", st, err, n)
		}
		tileRow, ok, err := s.LogFullTile(t.Context(), 0, 0)
		tile := tileRow.Data
		if err != nil || !ok || !bytes.Equal(tile, wantTile) {
			t.Errorf("hash tile 0 after the migration: %d bytes, %v, %v; want the %d sequencing stored", len(tile), ok, err, len(wantTile))
		}
		bundleRow, ok, err := s.LogFullTile(t.Context(), -1, 0)
		bundle := bundleRow.Data
		if err != nil || !ok || !bytes.Equal(bundle, wantBundle) {
			t.Errorf("entry bundle 0 after the migration: %d bytes, %v, %v; want the %d sequencing stored", len(bundle), ok, err, len(wantBundle))
		}
		entries, err := s.LogEntries(t.Context(), 0, translog.TileWidth)
		if want, _ := translog.EncodeBundle(entries); err != nil || !bytes.Equal(bundle, want) {
			t.Errorf("entry bundle 0 is not the bundle of entries 0 to 255 (%v)", err)
		}
		for _, partial := range [][2]int64{{0, 1}, {-1, 1}} {
			if _, ok, err := s.LogFullTile(t.Context(), int(partial[0]), partial[1]); ok || err != nil {
				t.Errorf("LogFullTile(%d, %d) = %v, %v for a partial tile", partial[0], partial[1], ok, err)
			}
		}
	})
}

// onEachEngine runs test on a fresh SQLite file and a fresh PostgreSQL
// database (skipped without one, as storetest.PostgresURL does).
func onEachEngine(t *testing.T, test func(t *testing.T, dsn string)) {
	for _, b := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", storetest.SQLiteDSN}, {"postgres", storetest.PostgresURL}} {
		t.Run(b.name, func(t *testing.T) { test(t, b.dsn(t)) })
	}
}

// The full tiles of entries an older pactd sequenced (a replica not yet
// upgraded stores none and leaves tiles_size behind) are stored by the
// next rounds of a newer one, a bounded number per round, whether or not
// the round has new entries of its own.
func TestSequencingCatchesUpWithMissingTiles(t *testing.T) {
	onEachEngine(t, func(t *testing.T, dsn string) {
		s := openForTest(t, dsn, Options{TileCatchUp: translog.TileWidth})
		alice := logTestAccount(t, s, "alice")
		seed := func(from, to int) {
			t.Helper()
			// Entries from to to: a publish and its pack-state each.
			var batch []registry.PublishInput
			for i := from / 2; i < to/2; i++ {
				batch = append(batch, logTestInput(alice, fmt.Sprintf("p%d", i), "1.0.0", time.Now()))
			}
			if err := s.Seed(t.Context(), registry.ReadyAll(batch)); err != nil {
				t.Fatal(err)
			}
		}
		sign := func(size int64, root tlog.Hash) ([]byte, error) { return []byte(fmt.Sprint(size, root)), nil }
		sequence := func(wantTiles int64) {
			t.Helper()
			if _, err := s.SequenceLog(t.Context(), 4096, sign); err != nil {
				t.Fatal(err)
			}
			st, err := s.LogState(t.Context())
			if err != nil || st.TilesSize != wantTiles {
				t.Fatalf("after a round: %+v, %v; want tiles stored up to %d", st, err, wantTiles)
			}
		}
		stored := func(level int, n int64) bool {
			_, ok, err := s.LogFullTile(t.Context(), level, n)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}

		seed(0, 3*translog.TileWidth+10)
		sequence(3*translog.TileWidth + 10)
		// As an older pactd leaves the database after sequencing these.
		for _, stmt := range []string{`DELETE FROM log_tiles`, `UPDATE log_tree SET tiles_size = 0`} {
			if _, err := s.write.ExecContext(t.Context(), stmt); err != nil {
				t.Fatal(err)
			}
		}
		sequence(translog.TileWidth) // nothing new: one tile's worth caught up
		if !stored(0, 0) || !stored(-1, 0) || stored(0, 1) || stored(-1, 1) {
			t.Errorf("after one round of catching up: tile 0 %v, bundle 0 %v, tile 1 %v, bundle 1 %v; want only the first two",
				stored(0, 0), stored(-1, 0), stored(0, 1), stored(-1, 1))
		}
		sequence(2 * translog.TileWidth)
		seed(3*translog.TileWidth+10, 3*translog.TileWidth+20)
		sequence(3 * translog.TileWidth)    // with new entries: still one tile's worth while far behind
		sequence(3*translog.TileWidth + 20) // close enough: up to the round's size
		for n := range int64(3) {
			if !stored(0, n) || !stored(-1, n) {
				t.Errorf("hash tile %d stored %v, bundle %d stored %v, after catching up", n, stored(0, n), n, stored(-1, n))
			}
		}
		if stored(0, 3) || stored(-1, 3) {
			t.Errorf("a tile the tree does not fill is stored")
		}
	})
}

// The migration that brings pack-state entries (0024) appends one for every
// package that exists, stating its state then (latest, yanked versions,
// deprecation), and makes it the package's log head; without the domain's
// entries it refuses the database.
func TestPackStateMigration(t *testing.T) {
	onEachEngine(t, func(t *testing.T, dsn string) {
		s := openForTest(t, dsn, Options{})
		alice := logTestAccount(t, s, "alice")
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, v := range []string{"1.0.0", "2.0.0"} {
			if _, _, err := registry.PublishVersion(t.Context(), s, logTestInput(alice, "widget", v, t0)); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.PackageBySlug(t.Context(), "alice", "widget")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := registry.SetYanked(t.Context(), s, p, "2.0.0", true, "bad", t0); err != nil {
			t.Fatal(err)
		}
		if _, err := registry.SetDeprecated(t.Context(), s, p, "use alice/gadget", t0); err != nil {
			t.Fatal(err)
		}
		before, _ := s.LogState(t.Context())
		// Back to the schema before pack-state entries.
		for _, stmt := range []string{`ALTER TABLE packages DROP COLUMN log_head`, `DELETE FROM schema_migrations WHERE version = 24`} {
			if _, err := s.write.ExecContext(t.Context(), stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		s.Close()
		if _, err := Open(t.Context(), dsn, Options{}); !errors.Is(err, errNoBackfill) {
			t.Fatalf("Open without Options.LogBackfill: %v, want the backfill refused", err)
		}
		s = openForTest(t, dsn, Options{LogBackfill: registry.Backfill()})
		after, _ := s.LogState(t.Context())
		if after.Entries != before.Entries+1 {
			t.Fatalf("%d entries after the migration, want %d", after.Entries, before.Entries+1)
		}
		entries, _ := s.LogEntries(t.Context(), before.Entries, after.Entries)
		e, err := translog.Parse(entries[0])
		if err != nil {
			t.Fatal(err)
		}
		st, err := e.PackState()
		if err != nil || st.Latest != "1.0.0" || strings.Join(st.Yanked, " ") != "2.0.0" || st.Deprecated != "use alice/gadget" || st.Prev != -1 {
			t.Errorf("the migration's entry:\n%s\nwant widget's state: latest 1.0.0, 2.0.0 yanked, deprecated, no prev (%v)", entries[0], err)
		}
		p, err = s.PackageBySlug(t.Context(), "alice", "widget")
		if err != nil || p.LogHead == nil || *p.LogHead != before.Entries {
			t.Errorf("log head after the migration: %v, %v; want %d", p.LogHead, err, before.Entries)
		}
	})
}
