package storetest

import (
	"sort"
	"strings"
	"testing"

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

	wantCode(t, "FreeRowDocument under another sha256", s.FreeRowDocument(ctx(), got[0].ID, got[1].SHA256), registry.NotFound)
	wantCode(t, "FreeRowDocument of no version", s.FreeRowDocument(ctx(), 1<<40, got[0].SHA256), registry.NotFound)
	if err := s.FreeRowDocument(ctx(), got[0].ID, got[0].SHA256); err != nil {
		t.Fatal(err)
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
