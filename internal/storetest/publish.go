package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// wantPackage checks a package against the publish that made it latest.
func wantPackage(t *testing.T, what string, got *registry.Package, latest registry.PublishInput) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no package", what)
	}
	if got.ID == 0 || got.OwnerID != latest.OwnerID || got.OwnerSlug != latest.OwnerSlug || got.PackSlug != latest.PackSlug ||
		got.Name != latest.Name || got.Description != latest.Description || got.Scheme != latest.Scheme ||
		got.Version != latest.Version || got.SHA256 != latest.SHA256 || got.LatestVersionID == 0 {
		t.Errorf("%s: package %+v does not describe %s/%s@%s (sha %s)", what, got, latest.OwnerSlug, latest.PackSlug, latest.Version, latest.SHA256)
	}
}

func samePackage(t *testing.T, what string, got, want *registry.Package) {
	t.Helper()
	if got.ID != want.ID || got.OwnerID != want.OwnerID || got.OwnerSlug != want.OwnerSlug || got.PackSlug != want.PackSlug ||
		got.Name != want.Name || got.Description != want.Description || got.Scheme != want.Scheme ||
		got.Version != want.Version || got.SHA256 != want.SHA256 || got.LatestVersionID != want.LatestVersionID {
		t.Errorf("%s: package %+v, want %+v", what, got, want)
	}
	wantTime(t, what+": CreatedAt", got.CreatedAt, want.CreatedAt)
	wantTime(t, what+": UpdatedAt", got.UpdatedAt, want.UpdatedAt)
}

func listVersions(t *testing.T, s registry.Store, packageID int64) []registry.Version {
	t.Helper()
	versions, err := s.ListVersions(ctx(), packageID)
	if err != nil {
		t.Fatalf("ListVersions: %v", err)
	}
	return versions
}

func (su suite) testPublish(t *testing.T) {
	t.Run("first publish creates the package", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		in := input(alice, "foo", "1.0.0", "first", t0.In(cet))
		pkg := publish(t, s, in)
		wantPackage(t, "Publish", pkg, in)
		wantTime(t, "CreatedAt", pkg.CreatedAt, t0)
		wantTime(t, "UpdatedAt", pkg.UpdatedAt, t0)

		got, err := s.PackageBySlug(ctx(), "alice", "foo")
		if err != nil {
			t.Fatalf("PackageBySlug: %v", err)
		}
		samePackage(t, "PackageBySlug", got, pkg)
	})

	t.Run("publishing identical content again changes nothing", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		in := input(alice, "foo", "1.0.0", "first", t0)
		first := publish(t, s, in)
		in.Now = at(5)
		again, created, err := registry.PublishVersion(ctx(), s, in)
		if err != nil || created {
			t.Fatalf("Publish again = created %v, error %v; want no change and no error", created, err)
		}
		samePackage(t, "Publish again", again, first)
		if versions := listVersions(t, s, first.ID); len(versions) != 1 {
			t.Errorf("%d versions after publishing the same one twice", len(versions))
		}
	})

	t.Run("a publish names the version it published, or the identical one found", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		publish(t, s, input(alice, "foo", "2.0.0", "latest", t0))
		older := input(alice, "foo", "1.5.0", "older", at(1))
		first := publish(t, s, older)
		if first.Version != "2.0.0" {
			t.Errorf("package version %q, want 2.0.0 to stay latest", first.Version)
		}
		versions := listVersions(t, s, first.ID)
		var stored *registry.Version
		for i := range versions {
			if versions[i].Version == "1.5.0" {
				stored = &versions[i]
			}
		}
		if stored == nil {
			t.Fatalf("1.5.0 is not listed: %+v", versions)
		}
		wantPublished := func(what string, got *registry.Package) {
			t.Helper()
			v := got.Published
			if v == nil {
				t.Fatalf("%s: no Published", what)
			}
			if v.ID != stored.ID || v.PackageID != first.ID || v.Version != "1.5.0" || v.SHA256 != older.SHA256 ||
				v.Size != int64(len(older.Content)) || v.LogIndex == nil || stored.LogIndex == nil || *v.LogIndex != *stored.LogIndex {
				t.Errorf("%s: Published %+v, want the stored %+v", what, v, stored)
			}
			wantTime(t, what+": Published.CreatedAt", v.CreatedAt, stored.CreatedAt)
			if got.LogIndex == nil || v.LogIndex == nil || *got.LogIndex != *v.LogIndex {
				t.Errorf("%s: LogIndex %v, Published.LogIndex %v", what, got.LogIndex, v.LogIndex)
			}
		}
		wantPublished("Publish", first)
		wantTime(t, "stored CreatedAt", stored.CreatedAt, at(1))

		older.Now = at(5)
		again, created, err := registry.PublishVersion(ctx(), s, older)
		if err != nil || created {
			t.Fatalf("Publish again = created %v, error %v; want no change and no error", created, err)
		}
		wantPublished("Publish again", again)
	})

	t.Run("other content for an existing version is a conflict and changes nothing", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		original := input(alice, "foo", "1.2.0", "first", t0)
		before := publish(t, s, original)

		changed := input(alice, "foo", "1.2.0", "changed", at(5))
		changed.Description = "changed too"
		pkg, created, err := registry.PublishVersion(ctx(), s, changed)
		if pkg != nil || created {
			t.Errorf("Publish = %+v, created %v; want neither", pkg, created)
		}
		wantCode(t, "Publish", err, registry.Conflict)
		if msg := registry.ErrorMessage(err); msg != "version 1.2.0 of alice/foo already exists with different content" {
			t.Errorf("message %q", msg)
		}

		after, err := s.PackageBySlug(ctx(), "alice", "foo")
		if err != nil {
			t.Fatalf("PackageBySlug: %v", err)
		}
		samePackage(t, "package after the conflict", after, before)
		doc, err := s.VersionDocument(ctx(), "alice", "foo", "1.2.0")
		if err != nil {
			t.Fatalf("VersionDocument: %v", err)
		}
		if string(doc.Content) != string(original.Content) {
			t.Errorf("the stored document changed to %q", doc.Content)
		}
	})

	t.Run("a refused publish of a new package leaves no package behind", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		publish(t, s, signed(input(alice, "foo", "1.0.0", "first", t0), key, "nonce-0000000001"))
		_, _, err := registry.PublishVersion(ctx(), s, signed(input(alice, "bar", "1.0.0", "first", at(1)), key, "nonce-0000000001"))
		if !errors.Is(err, registry.ErrNonceReused) {
			t.Fatalf("Publish with a spent nonce: %v, want ErrNonceReused", err)
		}
		_, err = s.PackageBySlug(ctx(), "alice", "bar")
		wantCode(t, "PackageBySlug of the refused package", err, registry.NotFound)
	})

	t.Run("a new version becomes the latest", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		first := publish(t, s, input(alice, "foo", "1.0.0", "first", t0))

		next := input(alice, "foo", "1.1.0", "second", at(10))
		next.Name, next.Description, next.Scheme = "Foo Tools", "Now with more foo", "agent"
		pkg := publish(t, s, next)
		wantPackage(t, "Publish 1.1.0", pkg, next)
		if pkg.ID != first.ID {
			t.Errorf("the package id changed from %d to %d", first.ID, pkg.ID)
		}
		if pkg.LatestVersionID <= first.LatestVersionID {
			t.Errorf("LatestVersionID went from %d to %d, want it to grow", first.LatestVersionID, pkg.LatestVersionID)
		}
		wantTime(t, "CreatedAt", pkg.CreatedAt, t0)
		wantTime(t, "UpdatedAt", pkg.UpdatedAt, at(10))

		got, err := s.PackageBySlug(ctx(), "alice", "foo")
		if err != nil {
			t.Fatalf("PackageBySlug: %v", err)
		}
		samePackage(t, "PackageBySlug", got, pkg)
	})

	t.Run("latest is the highest version, not the last publish", func(t *testing.T) {
		for _, c := range []struct {
			name      string
			published []string // in publish order
			latest    string
		}{
			{"an older release published later", []string{"2.0.0", "1.3.1"}, "2.0.0"},
			{"a pre-release does not outrank a release", []string{"1.0.0", "2.0.0-rc.1"}, "1.0.0"},
			{"a release outranks pre-releases", []string{"2.0.0-rc.1", "1.0.0"}, "1.0.0"},
			{"only pre-releases: the highest", []string{"1.0.0-rc.2", "1.0.0-rc.10", "1.0.0-beta"}, "1.0.0-rc.10"},
			{"a name that is not semver, then semver", []string{"draft", "0.1.0"}, "0.1.0"},
			{"semver, then a name that is not", []string{"0.1.0", "draft"}, "0.1.0"},
			{"names that are not semver: the last publish", []string{"draft", "final", "beta"}, "beta"},
			{"numeric order, with and without v", []string{"1.10.0", "v1.2.0"}, "1.10.0"},
			{"numeric order, v first", []string{"v1.2.0", "1.10.0", "1.9.0"}, "1.10.0"},
		} {
			t.Run(c.name, func(t *testing.T) {
				s := su.store(t)
				alice := createAccount(t, s, "alice")
				var want registry.PublishInput
				var pkg *registry.Package
				for i, v := range c.published {
					in := input(alice, "foo", v, "body of "+v, at(i))
					in.Description = "described by " + v
					if v == c.latest {
						want = in
					}
					pkg = publish(t, s, in)
				}
				wantPackage(t, "Publish", pkg, want)
				wantTime(t, "UpdatedAt", pkg.UpdatedAt, at(len(c.published)-1))
				got, err := s.PackageBySlug(ctx(), "alice", "foo")
				if err != nil {
					t.Fatalf("PackageBySlug: %v", err)
				}
				samePackage(t, "PackageBySlug", got, pkg)
				doc, err := s.VersionDocument(ctx(), "alice", "foo", "")
				if err != nil {
					t.Fatalf("VersionDocument latest: %v", err)
				}
				if doc.Version != c.latest || doc.ID != pkg.LatestVersionID || string(doc.Content) != string(want.Content) {
					t.Errorf("latest document is %s (id %d), want %s (id %d)", doc.Version, doc.ID, c.latest, pkg.LatestVersionID)
				}
				listed, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10})
				if err != nil || len(listed) != 1 || listed[0].Version != c.latest || listed[0].SHA256 != want.SHA256 {
					t.Errorf("ListPackages = %+v, %v; want version %s", listed, err, c.latest)
				}
			})
		}
	})

	t.Run("an identical republish of an older version changes nothing", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		publish(t, s, input(alice, "foo", "1.0.0", "one", at(0)))
		pkg := publish(t, s, input(alice, "foo", "2.0.0", "two", at(1)))
		again, created, err := registry.PublishVersion(ctx(), s, input(alice, "foo", "1.0.0", "one", at(2)))
		if err != nil || created {
			t.Fatalf("identical republish = created %v, error %v", created, err)
		}
		samePackage(t, "identical republish", again, pkg)
	})

	t.Run("versions are listed newest first without content", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		ins := []registry.PublishInput{
			input(alice, "foo", "1.0.0", "one", at(0)),
			signed(input(alice, "foo", "2.0.0", "two, signed", at(1)), key, "nonce-0000000001"),
			input(alice, "foo", "1.5.0", "three", at(2)),
		}
		ins[1].Name = "Foo Two"
		var pkg *registry.Package
		for _, in := range ins {
			pkg = publish(t, s, in)
		}
		versions := listVersions(t, s, pkg.ID)
		if len(versions) != 3 {
			t.Fatalf("ListVersions returned %d versions, want 3", len(versions))
		}
		for i, v := range versions {
			in := ins[len(ins)-1-i]
			if v.ID == 0 || v.PackageID != pkg.ID || v.Version != in.Version || v.Name != in.Name ||
				v.Description != in.Description || v.Scheme != in.Scheme || v.SHA256 != in.SHA256 || v.Size != int64(len(in.Content)) {
				t.Errorf("version %d = %+v, want %s", i, v, in.Version)
			}
			if v.Content != nil {
				t.Errorf("version %s carries content", v.Version)
			}
			wantTime(t, "version "+v.Version+" CreatedAt", v.CreatedAt, in.Now)
			if (v.Provenance != nil) != (in.Provenance != nil) {
				t.Errorf("version %s provenance = %+v, want %+v", v.Version, v.Provenance, in.Provenance)
			} else if in.Provenance != nil && *v.Provenance != *in.Provenance {
				t.Errorf("version %s provenance = %+v, want %+v", v.Version, *v.Provenance, *in.Provenance)
			}
		}
		if versions[1].ID != pkg.LatestVersionID {
			t.Errorf("version 2.0.0 has id %d, package's LatestVersionID %d", versions[1].ID, pkg.LatestVersionID)
		}
		if got := listVersions(t, s, pkg.ID+1000); len(got) != 0 {
			t.Errorf("a missing package has versions: %+v", got)
		}
	})

	t.Run("version documents", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		v1 := signed(input(alice, "foo", "1.0.0", "one", at(0)), key, "nonce-0000000001")
		v2 := input(alice, "foo", "1.1.0", "two", at(1))
		publish(t, s, v1)
		publish(t, s, v2)
		cases := []struct {
			name, owner, pack, version string
			want                       registry.PublishInput
		}{
			{"latest", "alice", "foo", "", v2},
			{"pinned older", "alice", "foo", "1.0.0", v1},
			{"pinned latest", "alice", "foo", "1.1.0", v2},
			{"owner and pack in other case", "Alice", "FOO", "", v2},
		}
		for _, c := range cases {
			doc, err := s.VersionDocument(ctx(), c.owner, c.pack, c.version)
			if err != nil {
				t.Fatalf("%s: VersionDocument: %v", c.name, err)
			}
			if doc.Version != c.want.Version || string(doc.Content) != string(c.want.Content) ||
				doc.SHA256 != c.want.SHA256 || doc.Size != int64(len(c.want.Content)) || doc.Name != c.want.Name {
				t.Errorf("%s: got %s (%q), want %s", c.name, doc.Version, doc.Content, c.want.Version)
			}
			wantTime(t, c.name+": CreatedAt", doc.CreatedAt, c.want.Now)
			switch {
			case c.want.Provenance == nil && doc.Provenance != nil:
				t.Errorf("%s: provenance %+v on a token publish", c.name, doc.Provenance)
			case c.want.Provenance != nil && (doc.Provenance == nil || *doc.Provenance != *c.want.Provenance):
				t.Errorf("%s: provenance %+v, want %+v", c.name, doc.Provenance, c.want.Provenance)
			}
		}
	})

	t.Run("a deleted key leaves the provenance of what it signed", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		in := signed(input(alice, "foo", "1.0.0", "one", t0), key, "nonce-0000000001")
		publish(t, s, in)
		if err := registry.RemoveSSHKey(ctx(), s, alice.ID, key.ID, at(9)); err != nil {
			t.Fatalf("DeleteSSHKey: %v", err)
		}
		doc, err := s.VersionDocument(ctx(), "alice", "foo", "1.0.0")
		if err != nil {
			t.Fatalf("VersionDocument: %v", err)
		}
		if p := doc.Provenance; p == nil || p.Fingerprint != key.Fingerprint || p.Signature != in.Provenance.Signature ||
			p.Nonce != in.Provenance.Nonce || p.Timestamp != in.Provenance.Timestamp {
			t.Errorf("provenance after deleting the key = %+v, want %+v", p, in.Provenance)
		}
	})

	t.Run("signed lines and public key come back exactly", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		cases := []struct {
			name                   string
			known                  bool
			signedName, signedDesc string
			publicKey              string
		}{
			// Empty lines signed, while name and description come from the
			// document: "" must not turn into unknown, nor into the
			// derived values.
			{"empty lines", true, "", "", key.PublicKey},
			{"lines as given", true, "  Foo <b>&  ", "Ünïcode \t and spaces ", key.PublicKey},
			{"stored before lines and keys were kept", false, "", "", ""},
		}
		var ins []registry.PublishInput
		for i, c := range cases {
			in := signed(input(alice, "foo", fmt.Sprintf("1.%d.0", i), c.name, at(i)), key, fmt.Sprintf("nonce-lines-%06d", i))
			in.Provenance.SignedLinesKnown, in.Provenance.SignedName, in.Provenance.SignedDescription = c.known, c.signedName, c.signedDesc
			in.Provenance.PublicKey = c.publicKey
			publish(t, s, in)
			ins = append(ins, in)
		}
		pkg, err := s.PackageBySlug(ctx(), "alice", "foo")
		if err != nil {
			t.Fatal(err)
		}
		versions := listVersions(t, s, pkg.ID)
		for i, c := range cases {
			doc, err := s.VersionDocument(ctx(), "alice", "foo", ins[i].Version)
			if err != nil {
				t.Fatalf("%s: VersionDocument: %v", c.name, err)
			}
			listed := versions[len(versions)-1-i]
			for _, got := range []*registry.Version{doc, &listed} {
				if got.Provenance == nil || *got.Provenance != *ins[i].Provenance {
					t.Errorf("%s: provenance %+v, want %+v", c.name, got.Provenance, *ins[i].Provenance)
				}
				if got.Name != ins[i].Name || got.Description != ins[i].Description {
					t.Errorf("%s: name %q, description %q: the derived values changed", c.name, got.Name, got.Description)
				}
			}
		}
	})

	t.Run("one pack slug under two owners is two packages", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		a := publish(t, s, input(alice, "foo", "1.0.0", "alice's", t0))
		b := publish(t, s, input(bob, "foo", "1.0.0", "bob's", at(1)))
		if a.ID == b.ID {
			t.Fatalf("alice/foo and bob/foo share id %d", a.ID)
		}
		for _, owner := range []string{"alice", "bob"} {
			doc, err := s.VersionDocument(ctx(), owner, "foo", "1.0.0")
			if err != nil {
				t.Fatalf("VersionDocument(%s/foo): %v", owner, err)
			}
			if want := document("foo", "1.0.0", owner+"'s"); string(doc.Content) != want {
				t.Errorf("%s/foo = %q, want %q", owner, doc.Content, want)
			}
		}
	})

	t.Run("missing packages and versions are not found", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		createAccount(t, s, "bob")
		publish(t, s, input(alice, "foo", "1.0.0", "one", t0))
		cases := []struct {
			name    string
			call    func() error
			mention string
		}{
			{"package of another owner", func() error { _, err := s.PackageBySlug(ctx(), "bob", "foo"); return err }, "bob/foo"},
			{"package of a missing owner", func() error { _, err := s.PackageBySlug(ctx(), "carol", "foo"); return err }, "carol/foo"},
			{"missing package", func() error { _, err := s.PackageBySlug(ctx(), "alice", "bar"); return err }, "alice/bar"},
			{"latest of a missing package", func() error { _, err := s.VersionDocument(ctx(), "alice", "bar", ""); return err }, "alice/bar"},
			{"pinned of a missing package", func() error { _, err := s.VersionDocument(ctx(), "alice", "bar", "1.0.0"); return err }, "alice/bar"},
			{"missing version", func() error { _, err := s.VersionDocument(ctx(), "alice", "foo", "2.0.0"); return err }, "2.0.0"},
			{"version in other case", func() error { _, err := s.VersionDocument(ctx(), "alice", "foo", "1.0.0-RC1"); return err }, "1.0.0-RC1"},
		}
		for _, c := range cases {
			err := c.call()
			wantCode(t, c.name, err, registry.NotFound)
			wantMessage(t, c.name, err, c.mention)
		}
	})

	t.Run("publishing for a missing account is refused", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		ghost := &registry.Account{ID: alice.ID + 1000, Username: "ghost"}
		_, _, err := registry.PublishVersion(ctx(), s, input(ghost, "foo", "1.0.0", "one", t0))
		wantCode(t, "Publish", err, registry.NotFound)
	})
}
