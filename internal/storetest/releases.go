package storetest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// release is a release of p's version as the domain hands it to the store.
func release(p *registry.Package, v *registry.Version, commit string, minute int, artifacts ...string) *registry.Release {
	r := &registry.Release{PackageID: p.ID, VersionID: v.ID, Owner: p.OwnerSlug, Pack: p.PackSlug, Version: v.Version,
		ContractSHA256: v.SHA256, ArtifactIndexURL: "https://example.com/" + v.Version + "/index.json",
		Artifacts: []json.RawMessage{}, SourceGitCommit: commit, CreatedAt: at(minute)}
	for _, a := range artifacts {
		r.Artifacts = append(r.Artifacts, json.RawMessage(a))
	}
	r.SHA256 = sha(string(r.Canonical()))
	return r
}

func versionNamed(t *testing.T, s registry.Store, p *registry.Package, version string) *registry.Version {
	t.Helper()
	for _, v := range listVersions(t, s, p.ID) {
		if v.Version == version {
			return &v
		}
	}
	t.Fatalf("no version %s", version)
	return nil
}

func (su suite) testReleases(t *testing.T) {
	t.Run("a release is stored once per version, logged, listed newest first and marked on its version", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		publish(t, s, input(alice, "widget", "1.0.0", "one", at(0)))
		p := publish(t, s, input(alice, "widget", "2.0.0", "two", at(1)))
		v1, v2 := versionNamed(t, s, p, "1.0.0"), versionNamed(t, s, p, "2.0.0")
		before, err := s.LogState(ctx())
		if err != nil {
			t.Fatal(err)
		}

		r1 := release(p, v1, "abc1234", 2, `{"name":"widget-linux","sha256":"`+strings.Repeat("a", 64)+`","x":[1,2]}`)
		got, created, err := registry.CreateRelease(ctx(), s, r1)
		if err != nil || !created {
			t.Fatalf("CreateRelease: %v, created %v", err, created)
		}
		if got.ID == 0 || got.LogIndex == nil || *got.LogIndex != before.Entries || got.Version != "1.0.0" ||
			got.ContractSHA256 != v1.SHA256 || len(got.Artifacts) != 1 || string(got.Artifacts[0]) != string(r1.Artifacts[0]) {
			t.Fatalf("stored %+v", got)
		}
		wantTime(t, "created_at", got.CreatedAt, at(2))
		entries, err := s.LogEntries(ctx(), before.Entries, before.Entries+1)
		if err != nil {
			t.Fatal(err)
		}
		e, err := translog.Parse(entries[0])
		if err != nil {
			t.Fatal(err)
		}
		ev, err := e.Release()
		if err != nil || ev.Owner != "alice" || ev.Pack != "widget" || ev.Version != "1.0.0" || ev.SHA256 != v1.SHA256 ||
			ev.Release != r1.SHA256 || ev.Artifacts != 1 || ev.Commit != "abc1234" {
			t.Fatalf("log entry %+v, %v", ev, err)
		}

		// The identical release again changes nothing.
		same := release(p, v1, "abc1234", 9, `{"name":"widget-linux","sha256":"`+strings.Repeat("a", 64)+`","x":[1,2]}`)
		again, created, err := registry.CreateRelease(ctx(), s, same)
		if err != nil || created || again.ID != got.ID || !again.CreatedAt.Equal(got.CreatedAt) {
			t.Fatalf("repeat: %+v, created %v, %v", again, created, err)
		}
		// A different one is refused.
		other := release(p, v1, "def5678", 9)
		_, _, err = registry.CreateRelease(ctx(), s, other)
		wantCode(t, "a different release of the same version", err, registry.Conflict)
		if st, _ := s.LogState(ctx()); st.Entries != before.Entries+1 {
			t.Errorf("log has %d entries, want %d: only the first registration is logged", st.Entries, before.Entries+1)
		}

		r2 := release(p, v2, "", 3, `{"name":"a"}`, `{"name":"b"}`, `{"url":"https://example.com/c"}`)
		if _, created, err := registry.CreateRelease(ctx(), s, r2); err != nil || !created {
			t.Fatalf("CreateRelease(2.0.0): %v", err)
		}
		// A list counts the artifacts and does not read them.
		list, err := s.ListReleases(ctx(), p.ID, 0, 10)
		if err != nil || len(list) != 2 || list[0].Version != "2.0.0" || list[1].Version != "1.0.0" || list[0].SourceGitCommit != "" ||
			list[0].ArtifactCount != 3 || list[1].ArtifactCount != 1 || list[0].Artifacts != nil || list[1].Artifacts != nil ||
			list[1].SHA256 != r1.SHA256 || list[1].ArtifactIndexURL != r1.ArtifactIndexURL {
			t.Fatalf("ListReleases = %+v, %v", list, err)
		}
		page, err := s.ListReleases(ctx(), p.ID, list[0].ID, 10)
		if err != nil || len(page) != 1 || page[0].Version != "1.0.0" {
			t.Fatalf("ListReleases(before %d) = %+v, %v", list[0].ID, page, err)
		}
		one, err := s.ReleaseOf(ctx(), "Alice", "widget", "1.0.0")
		if err != nil || one.ID != got.ID || one.SHA256 != r1.SHA256 {
			t.Fatalf("ReleaseOf = %+v, %v", one, err)
		}
		for _, v := range listVersions(t, s, p.ID) {
			if !v.HasRelease {
				t.Errorf("version %s does not say it has a release", v.Version)
			}
		}
		doc, err := s.VersionDocument(ctx(), "alice", "widget", "1.0.0")
		if err != nil || !doc.HasRelease {
			t.Errorf("VersionDocument(1.0.0).HasRelease false after the release (%v)", err)
		}
	})

	t.Run("releases of what does not exist are not found", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		p := publish(t, s, input(alice, "widget", "1.0.0", "one", at(0)))
		v := versionNamed(t, s, p, "1.0.0")
		if v.HasRelease {
			t.Error("a version without a release says it has one")
		}
		_, err := s.ReleaseOf(ctx(), "alice", "widget", "1.0.0")
		wantCode(t, "ReleaseOf a version without a release", err, registry.NotFound)
		_, err = s.ReleaseOf(ctx(), "alice", "gadget", "1.0.0")
		wantCode(t, "ReleaseOf an unknown package", err, registry.NotFound)
		bad := release(p, v, "", 1)
		bad.VersionID = v.ID + 1000
		_, _, err = registry.CreateRelease(ctx(), s, bad)
		wantCode(t, "CreateRelease of an unknown version", err, registry.NotFound)
		if list, err := s.ListReleases(ctx(), p.ID, 0, 10); err != nil || len(list) != 0 {
			t.Errorf("ListReleases = %+v, %v; want none", list, err)
		}
	})
}
