package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// A version published with its document on the blob store keeps a row
// without its bytes, whose size is still the document's; RowDocuments
// lists only the rows that hold their document, by id and in pages;
// FreeRowDocument empties one (only under its sha256) and leaves the
// others; DocumentNames names every version's document wherever it is.
func (su suite) testDocuments(t *testing.T) {
	s := su.store(t)
	alice := createAccount(t, s, "alice")
	inRows := []registry.PublishInput{input(alice, "doc", "1.0.0", "first", at(0)), input(alice, "doc", "1.1.0", "second", at(1)),
		input(alice, "other", "1.0.0", "third", at(2))}
	for _, in := range inRows {
		publish(t, s, in)
	}
	onBlobs := input(alice, "doc", "2.0.0", "on the blob store", at(3))
	onBlobs.DocumentInBlobStore = true
	publish(t, s, onBlobs)

	v, err := s.RawDocument(ctx(), "alice", "doc", "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Content) != 0 || v.Size != int64(len(onBlobs.Content)) || v.SHA256 != onBlobs.SHA256 || !registry.InBlobStore(v) {
		t.Fatalf("a version on the blob store reads as %d bytes of content, size %d, sha256 %s", len(v.Content), v.Size, v.SHA256)
	}
	if full, err := s.VersionDocument(ctx(), "alice", "doc", "2.0.0"); err != nil || !registry.InBlobStore(full) {
		t.Fatalf("VersionDocument of a version on the blob store = %+v, %v", full, err)
	}

	rows := func() []registry.Version {
		t.Helper()
		var all []registry.Version
		for after := int64(0); ; {
			page, err := s.RowDocuments(ctx(), after, 2)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page...)
			if len(page) < 2 {
				return all
			}
			after = page[len(page)-1].ID
		}
	}
	got := rows()
	if len(got) != len(inRows) {
		t.Fatalf("RowDocuments = %d versions, want %d", len(got), len(inRows))
	}
	for i, r := range got {
		if r.SHA256 != inRows[i].SHA256 || string(r.Content) != string(inRows[i].Content) || r.Size != int64(len(inRows[i].Content)) {
			t.Errorf("RowDocuments[%d] = %s, %d bytes (size %d); want %s", i, r.SHA256, len(r.Content), r.Size, inRows[i].SHA256)
		}
	}

	free := func(id int64, sha256 string) bool {
		t.Helper()
		var freed bool
		if err := s.Tx(ctx(), func(tx registry.Tx) (err error) {
			freed, err = tx.FreeRowDocument(id, sha256)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return freed
	}
	if free(got[0].ID, got[1].SHA256) {
		t.Error("FreeRowDocument under another sha256 freed a row")
	}
	if free(1<<40, got[0].SHA256) {
		t.Error("FreeRowDocument of no version freed a row")
	}
	if !free(got[0].ID, got[0].SHA256) {
		t.Fatal("FreeRowDocument of a version under its sha256 freed nothing")
	}
	if left := rows(); len(left) != 2 || left[0].ID != got[1].ID {
		t.Errorf("after freeing one, RowDocuments = %d versions", len(left))
	}
	var names []string
	if err := s.DocumentNames(ctx(), func(n string) error { names = append(names, n); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{inRows[0].SHA256, inRows[1].SHA256, inRows[2].SHA256, onBlobs.SHA256}
	sort.Strings(names)
	sort.Strings(want)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("DocumentNames = %v, want %v", names, want)
	}
}

// Full log tiles stored in their rows are listed by RowTiles, by (level,
// n) and in pages; FreeRowTile empties one, which LogFullTile then
// answers by its blob's name and size, and TileNames names; partial tiles
// have no row at all.
func (su suite) testTilesOnBlobStore(t *testing.T) {
	s := su.store(t)
	alice := createAccount(t, s, "alice")
	const n = translog.TileWidth // entries: a publish and a pack-state each
	for i := range n / 2 {
		publish(t, s, input(alice, fmt.Sprintf("p%d", i), "1.0.0", "x", at(i)))
	}
	if _, err := s.SequenceLog(ctx(), n, fakeSign); err != nil {
		t.Fatal(err)
	}
	rows := func() []registry.FullTile {
		t.Helper()
		var all []registry.FullTile
		for level, after := -2, int64(-1); ; {
			page, err := s.RowTiles(ctx(), level, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page...)
			if len(page) < 1 {
				return all
			}
			level, after = page[0].Level, page[0].N
		}
	}
	got := rows()
	if len(got) != 2 || got[0].Level != -1 || got[0].N != 0 || got[1].Level != 0 || got[1].N != 0 {
		t.Fatalf("RowTiles = %+v; want the entry bundle 0, then the hash tile 0/0", got)
	}
	for _, tile := range got {
		if len(tile.Data) == 0 || tile.Size != int64(len(tile.Data)) || tile.SHA256 != "" {
			t.Errorf("RowTiles: tile %d/%d with %d bytes, size %d, sha256 %q", tile.Level, tile.N, len(tile.Data), tile.Size, tile.SHA256)
		}
	}
	bundle := got[0]
	sum := sha256.Sum256(bundle.Data)
	name := hex.EncodeToString(sum[:])
	wantCode(t, "FreeRowTile of a tile not stored", s.FreeRowTile(ctx(), 0, 1, name, bundle.Size), registry.NotFound)
	if err := s.FreeRowTile(ctx(), -1, 0, name, bundle.Size); err != nil {
		t.Fatal(err)
	}
	if left := rows(); len(left) != 1 || left[0].Level != 0 {
		t.Errorf("after freeing the bundle, RowTiles = %+v", left)
	}
	stored, ok, err := s.LogFullTile(ctx(), -1, 0)
	if err != nil || !ok || !stored.OnBlobStore() || stored.SHA256 != name || stored.Size != bundle.Size {
		t.Errorf("LogFullTile of the freed bundle = %d bytes, sha256 %q, size %d, %v, %v; want its blob's name and size",
			len(stored.Data), stored.SHA256, stored.Size, ok, err)
	}
	if kept, ok, err := s.LogFullTile(ctx(), 0, 0); err != nil || !ok || kept.OnBlobStore() || len(kept.Data) == 0 {
		t.Errorf("LogFullTile of the hash tile still in its row = %d bytes, %v, %v", len(kept.Data), ok, err)
	}
	var names []string
	if err := s.TileNames(ctx(), func(n string) error { names = append(names, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("TileNames = %v, want [%s]", names, name)
	}
}
