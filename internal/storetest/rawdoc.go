package storetest

import (
	"bytes"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// rawFields is what RawDocument promises of a version.
func rawFields(v *registry.Version) registry.Version {
	return registry.Version{ID: v.ID, PackageID: v.PackageID, Version: v.Version, SHA256: v.SHA256, Size: v.Size,
		YankedAt: v.YankedAt, YankReason: v.YankReason, Content: v.Content}
}

// sameRaw fails unless RawDocument and VersionDocument agree on the raw
// fields of owner/pack@version, or fail alike.
func sameRaw(t *testing.T, s registry.Store, what, owner, pack, version string) *registry.Version {
	t.Helper()
	full, fullErr := s.VersionDocument(ctx(), owner, pack, version)
	raw, rawErr := s.RawDocument(ctx(), owner, pack, version)
	if (fullErr == nil) != (rawErr == nil) || (fullErr != nil && fullErr.Error() != rawErr.Error()) {
		t.Fatalf("%s: RawDocument error %v, VersionDocument error %v", what, rawErr, fullErr)
	}
	if fullErr != nil {
		return nil
	}
	f, r := rawFields(full), rawFields(raw)
	if f.ID != r.ID || f.PackageID != r.PackageID || f.Version != r.Version || f.SHA256 != r.SHA256 || f.Size != r.Size ||
		f.YankReason != r.YankReason || (f.YankedAt == nil) != (r.YankedAt == nil) ||
		(f.YankedAt != nil && !f.YankedAt.Equal(*r.YankedAt)) || !bytes.Equal(f.Content, r.Content) {
		t.Fatalf("%s: RawDocument %+v, VersionDocument %+v", what, r, f)
	}
	return raw
}

// RawDocument reads what VersionDocument reads for a raw answer, and its
// cached entries follow every change of the package: a new latest version,
// a yank, an un-yank, every version yanked.
func (su suite) testRawDocument(t *testing.T) {
	s := su.store(t)
	alice := createAccount(t, s, "alice")
	p := publish(t, s, input(alice, "doc", "1.0.0", "first body", at(0)))
	for range 2 { // the second time from the cache
		if v := sameRaw(t, s, "latest", "alice", "doc", ""); v.Version != "1.0.0" || string(v.Content) == "" {
			t.Fatalf("latest = %+v", v)
		}
		sameRaw(t, s, "pinned", "Alice", "DOC", "1.0.0")
		sameRaw(t, s, "no such version", "alice", "doc", "9.9.9")
		sameRaw(t, s, "no such pack", "alice", "nope", "")
		sameRaw(t, s, "no such owner", "nobody", "doc", "")
	}
	publish(t, s, input(alice, "doc", "2.0.0", "second body", at(1)))
	if v := sameRaw(t, s, "after a new version", "alice", "doc", ""); v.Version != "2.0.0" {
		t.Fatalf("latest after publishing 2.0.0 = %s", v.Version)
	}
	yank(t, s, p, "2.0.0", true, "broken", 2)
	if v := sameRaw(t, s, "after yanking the latest", "alice", "doc", ""); v.Version != "1.0.0" {
		t.Fatalf("latest after yanking 2.0.0 = %s", v.Version)
	}
	if v := sameRaw(t, s, "the yanked version, pinned", "alice", "doc", "2.0.0"); !v.Yanked() || v.YankReason != "broken" {
		t.Fatalf("2.0.0 after its yank = %+v", v)
	}
	yank(t, s, p, "1.0.0", true, "", 3)
	sameRaw(t, s, "every version yanked", "alice", "doc", "")
	yank(t, s, p, "2.0.0", false, "", 4)
	if v := sameRaw(t, s, "after un-yanking", "alice", "doc", ""); v.Version != "2.0.0" || v.Yanked() {
		t.Fatalf("latest after un-yanking 2.0.0 = %+v", v)
	}
}
