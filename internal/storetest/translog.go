package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// fakeSign stands in for the log's key: the store keeps whatever it is
// handed.
func fakeSign(size int64, root tlog.Hash) ([]byte, error) {
	return []byte(fmt.Sprintf("checkpoint %d %s\n", size, root)), nil
}

func logEntries(t *testing.T, s registry.Store) [][]byte {
	t.Helper()
	st, err := s.LogState(ctx())
	if err != nil {
		t.Fatalf("LogState: %v", err)
	}
	entries, err := s.LogEntries(ctx(), 0, st.Entries)
	if err != nil {
		t.Fatalf("LogEntries: %v", err)
	}
	return entries
}

// treeOf computes the stored hashes of a log of entries, as tlog stores
// them, and a reader of them.
func treeOf(entries [][]byte) ([]tlog.Hash, tlog.HashReader) {
	var hashes []tlog.Hash
	reader := tlog.HashReaderFunc(func(ix []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(ix))
		for i, x := range ix {
			out[i] = hashes[x]
		}
		return out, nil
	})
	for i, e := range entries {
		hs, _ := tlog.StoredHashes(int64(i), e, reader)
		hashes = append(hashes, hs...)
	}
	return hashes, reader
}

func (su suite) testLog(t *testing.T) {
	t.Run("publishes and key changes are appended in order; refused ones are not", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		first := input(alice, "widget", "1.0.0", "one", at(1))
		p, _, err := registry.PublishVersion(ctx(), s, first)
		if err != nil || p.LogIndex == nil || *p.LogIndex != 0 {
			t.Fatalf("Publish: %+v, %v; want log index 0", p, err)
		}
		// Identical again: no entry, the same index. Conflicting: no entry.
		if p, _, err := registry.PublishVersion(ctx(), s, first); err != nil || p.LogIndex == nil || *p.LogIndex != 0 {
			t.Fatalf("identical Publish: %+v, %v", p, err)
		}
		_, _, err = registry.PublishVersion(ctx(), s, input(alice, "widget", "1.0.0", "other", at(2)))
		wantCode(t, "conflicting Publish", err, registry.Conflict)
		key := createKey(t, s, alice, "laptop", at(3))
		sp, _, err := registry.PublishVersion(ctx(), s, signed(input(alice, "signed", "2.0.0", "signed", at(4)), key, "nonce-0000000000000001"))
		if err != nil || *sp.LogIndex != 3 {
			t.Fatalf("signed Publish: %+v, %v", sp, err)
		}
		if err := registry.RemoveSSHKey(ctx(), s, alice.ID, key.ID, at(9)); err != nil {
			t.Fatal(err)
		}
		entries := logEntries(t, s)
		// Each publish is followed by its package's pack-state entry.
		want := []*translog.Entry{
			registry.PublishLogEntry("alice", "widget", "1.0.0", first.SHA256, int64(len(first.Content)), at(1), nil),
			registry.PackStateLogEntry("alice", "widget", registry.PackState{Latest: "1.0.0"}, at(1)),
			registry.KeyLogEntry(true, "alice", key, at(3)),
		}
		if len(entries) != 6 {
			t.Fatalf("%d entries, want 6", len(entries))
		}
		for i, w := range want {
			if !bytes.Equal(entries[i], w.Marshal()) {
				t.Errorf("entry %d:\n%s\nwant\n%s", i, entries[i], w.Marshal())
			}
		}
		for i, kind := range []string{"publish", "pack-state", "key-add", "publish", "pack-state", "key-remove"} {
			e, err := translog.Parse(entries[i])
			if err != nil || e.Kind != kind {
				t.Errorf("entry %d: %v, %v; want kind %s", i, e, err, kind)
			}
		}
		if e, _ := translog.Parse(entries[3]); e.Get("auth") != "ssh" || e.Get("key") != key.PublicKey {
			t.Errorf("signed publish entry:\n%s", entries[3])
		}
		versions := listVersions(t, s, sp.ID)
		if versions[0].LogIndex == nil || *versions[0].LogIndex != 3 {
			t.Errorf("ListVersions log index %v, want 3", versions[0].LogIndex)
		}
	})

	t.Run("sequencing hashes the entries and stores one checkpoint per new size", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		for i := range 5 { // 10 entries: a publish and a pack-state each
			if _, _, err := registry.PublishVersion(ctx(), s, input(alice, "p", fmt.Sprintf("1.0.%d", i), "x", at(i))); err != nil {
				t.Fatal(err)
			}
		}
		size, err := s.SequenceLog(ctx(), 3, fakeSign)
		if err != nil || size != 3 {
			t.Fatalf("SequenceLog(max 3) = %d, %v", size, err)
		}
		if size, err = s.SequenceLog(ctx(), 100, fakeSign); err != nil || size != 10 {
			t.Fatalf("SequenceLog = %d, %v", size, err)
		}
		// Nothing new: no new checkpoint.
		if size, err = s.SequenceLog(ctx(), 100, func(int64, tlog.Hash) ([]byte, error) {
			return nil, fmt.Errorf("signed again")
		}); err != nil || size != 10 {
			t.Fatalf("SequenceLog with nothing new = %d, %v", size, err)
		}
		entries := logEntries(t, s)
		hashes, reader := treeOf(entries)
		ix := make([]int64, len(hashes))
		for i := range ix {
			ix[i] = int64(i)
		}
		stored, err := s.LogHashes(ctx(), ix)
		if err != nil {
			t.Fatal(err)
		}
		for i := range hashes {
			if stored[i] != hashes[i] {
				t.Errorf("stored hash %d differs", i)
			}
		}
		_, err = s.LogHashes(ctx(), []int64{int64(len(hashes))})
		wantCode(t, "LogHashes beyond the tree", err, registry.NotFound)
		root, _ := tlog.TreeHash(10, reader)
		size, note, err := s.LatestCheckpoint(ctx())
		if err != nil || size != 10 || string(note) != fmt.Sprintf("checkpoint 10 %s\n", root) {
			t.Errorf("LatestCheckpoint = %d %q, %v", size, note, err)
		}
		var sizes []int64
		if err := s.LogCheckpoints(ctx(), func(size int64, _ []byte) error { sizes = append(sizes, size); return nil }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(sizes) != "[3 10]" {
			t.Errorf("checkpoints of sizes %v, want [3 10]", sizes)
		}
		st, _ := s.LogState(ctx())
		if st.Entries != 10 || st.TreeSize != 10 {
			t.Errorf("LogState = %+v", st)
		}
	})

	t.Run("concurrent appends get dense indexes", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		const n = 40
		var wg sync.WaitGroup
		got := make([]int64, n)
		for i := range n {
			wg.Go(func() {
				p, _, err := registry.PublishVersion(ctx(), s, input(alice, fmt.Sprintf("p%d", i), "1.0.0", "x", at(i)))
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = *p.LogIndex
			})
		}
		wg.Wait()
		// Each publish's pack-state entry follows it at once.
		seen := map[int64]bool{}
		for _, x := range got {
			seen[x], seen[x+1] = true, true
		}
		for i := int64(0); i < 2*n; i++ {
			if !seen[i] {
				t.Errorf("no publish got index %d, nor its pack-state entry: %v", i, got)
			}
		}
	})

	t.Run("full tiles are stored whole when the tree reaches them, in any batches", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		const n = 2*translog.TileWidth + 8 // entries: a publish and a pack-state each
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := w; i < n/2; i += 8 {
					if _, _, err := registry.PublishVersion(ctx(), s, input(alice, fmt.Sprintf("p%d", i), "1.0.0", "x", at(i))); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		stored := func(level int, n int64) []byte {
			t.Helper()
			data, ok, err := s.LogFullTile(ctx(), level, n)
			if err != nil {
				t.Fatalf("LogFullTile(%d, %d): %v", level, n, err)
			}
			if !ok {
				return nil
			}
			return data.Data
		}
		// Batches of 100 cross both tile boundaries inside a batch.
		for size := int64(0); size < n; {
			var err error
			if size, err = s.SequenceLog(ctx(), 100, fakeSign); err != nil {
				t.Fatal(err)
			}
			if size == 200 {
				if stored(0, 0) != nil || stored(-1, 0) != nil {
					t.Errorf("a full tile is stored for a tree of 200 entries")
				}
			}
		}
		entries := logEntries(t, s)
		_, reader := treeOf(entries)
		for tile := range int64(2) {
			want, err := tlog.ReadTileData(tlog.Tile{H: translog.TileHeight, L: 0, N: tile, W: translog.TileWidth}, reader)
			if err != nil {
				t.Fatal(err)
			}
			if got := stored(0, tile); !bytes.Equal(got, want) {
				t.Errorf("hash tile %d: %d bytes stored, want the %d of the tree's hashes", tile, len(got), len(want))
			}
			bundle, _ := translog.EncodeBundle(entries[tile*translog.TileWidth : (tile+1)*translog.TileWidth])
			if got := stored(-1, tile); !bytes.Equal(got, bundle) {
				t.Errorf("entry bundle %d: %d bytes stored, want the %d of its entries", tile, len(got), len(bundle))
			}
		}
		for _, partial := range [][2]int64{{0, 2}, {-1, 2}, {1, 0}} {
			if got := stored(int(partial[0]), partial[1]); got != nil {
				t.Errorf("LogFullTile(%d, %d) answers %d bytes for a tile the tree of %d does not fill", partial[0], partial[1], len(got), n)
			}
		}
	})

	t.Run("the log key is set once", func(t *testing.T) {
		s := su.store(t)
		sk, vk, err := s.SetLogKey(ctx(), "signer-1", "verifier-1")
		if err != nil || sk != "signer-1" || vk != "verifier-1" {
			t.Fatalf("SetLogKey = %q %q %v", sk, vk, err)
		}
		if sk, vk, err = s.SetLogKey(ctx(), "signer-2", "verifier-2"); err != nil || sk != "signer-1" || vk != "verifier-1" {
			t.Errorf("second SetLogKey = %q %q %v; want the first key kept", sk, vk, err)
		}
	})
}
