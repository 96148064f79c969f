package storetest

import (
	"bytes"
	"testing"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// wantLogTail fails unless the log ends with want, byte for byte.
func wantLogTail(t *testing.T, s registry.Store, want ...*translog.Entry) {
	t.Helper()
	entries := logEntries(t, s)
	if len(entries) < len(want) {
		t.Fatalf("the log holds %d entries, want at least %d", len(entries), len(want))
	}
	tail := entries[len(entries)-len(want):]
	for i, w := range want {
		if !bytes.Equal(tail[i], w.Marshal()) {
			t.Errorf("entry %d from the end:\n%s\nwant\n%s", len(want)-i, tail[i], w.Marshal())
		}
	}
}

// eventEntries is the log without its pack-state entries: the events.
func eventEntries(t *testing.T, s registry.Store) [][]byte {
	t.Helper()
	var out [][]byte
	for _, e := range logEntries(t, s) {
		if !bytes.Contains(e, []byte("\nkind "+translog.KindPackState+"\n")) {
			out = append(out, e)
		}
	}
	return out
}

// publishEntries are the log entries of a publish of in: the version's,
// then its package's state after it, st.
func publishEntries(in registry.PublishInput, st registry.PackState) []*translog.Entry {
	return []*translog.Entry{
		registry.PublishLogEntry(in.OwnerSlug, in.PackSlug, in.Version, in.SHA256, int64(len(in.Content)), in.Now, in.Provenance, in.CI),
		registry.PackStateLogEntry(in.OwnerSlug, in.PackSlug, st, in.Now),
	}
}

func index(i int64) *int64 { return &i }

// testGiven checks the log entries the domain's changes append through a
// store's Tx, and the rules they apply there, on the store under test:
// the store decides none of its own (docs/design.md, Layers).
func (su suite) testGiven(t *testing.T) {
	t.Run("a publish appends its entry and its package's state, chained, and keeps the rule of latest", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		first, second, lower := input(alice, "foo", "1.0.0", "one", at(1)), input(alice, "foo", "2.0.0", "two", at(2)),
			input(alice, "foo", "0.1.0", "lower", at(3))
		publish(t, s, first)
		if p := publish(t, s, second); p.Version != "2.0.0" {
			t.Errorf("latest %s after 2.0.0 over 1.0.0, want 2.0.0", p.Version)
		}
		if p := publish(t, s, lower); p.Version != "2.0.0" {
			t.Errorf("latest %s after 0.1.0 over 2.0.0, want 2.0.0", p.Version)
		}
		var want []*translog.Entry
		want = append(want, publishEntries(first, registry.PackState{Latest: "1.0.0"})...)
		want = append(want, publishEntries(second, registry.PackState{Latest: "2.0.0", Head: index(1)})...)
		want = append(want, publishEntries(lower, registry.PackState{Latest: "2.0.0", Head: index(3)})...)
		wantLogTail(t, s, want...)
	})

	t.Run("a publish whose publisher is not a member of the owner stores nothing", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		notMember := input(alice, "foo", "1.0.0", "one", at(1))
		notMember.PublisherID = bob.ID
		_, _, err := registry.PublishVersion(ctx(), s, notMember)
		wantCode(t, "a publish by an account that is no member of the owner", err, registry.Forbidden)
		_, err = s.PackageBySlug(ctx(), "alice", "foo")
		wantCode(t, "the package of refused publishes", err, registry.NotFound)
		if st, err := s.LogState(ctx()); err != nil || st.Entries != 0 {
			t.Errorf("LogState = %+v, %v; want no entry", st, err)
		}
	})

	t.Run("a yank or a deprecation logs only a change, with its package's state after it; a yank takes the latest by the rule of latest", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		publish(t, s, input(alice, "foo", "1.0.0", "one", at(1)))
		publish(t, s, input(alice, "foo", "3.0.0", "three", at(2)))
		p := publish(t, s, input(alice, "foo", "2.0.0", "two", at(3)))
		pkg, v, err := registry.SetYanked(ctx(), s, p, "3.0.0", true, "broken", at(4))
		if err != nil || !v.Yanked() || pkg.Version != "2.0.0" {
			t.Fatalf("SetYanked = %+v, %+v, %v; want 3.0.0 yanked and 2.0.0, the highest left, the latest", pkg, v, err)
		}
		// The same yank again, and the un-yank of a version that is not
		// yanked, change nothing a reader can see.
		if _, _, err := registry.SetYanked(ctx(), s, p, "3.0.0", true, "broken", at(5)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := registry.SetYanked(ctx(), s, p, "1.0.0", false, "", at(5)); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.LogState(ctx()); st.Entries != 8 {
			t.Errorf("%d entries, want 8 (3 publishes and their states, the yank and its state): a yank that changed nothing was logged", st.Entries)
		}
		yanked := registry.YankLogEntry(true, "alice", "foo", "3.0.0", "broken", at(4))
		yankedState := registry.PackStateLogEntry("alice", "foo", registry.PackState{Latest: "2.0.0", Yanked: []string{"3.0.0"}, Head: index(5)}, at(4))
		wantLogTail(t, s, yanked, yankedState)
		// Another reason is a change.
		if _, _, err := registry.SetYanked(ctx(), s, p, "3.0.0", true, "very broken", at(6)); err != nil {
			t.Fatal(err)
		}
		again := registry.YankLogEntry(true, "alice", "foo", "3.0.0", "very broken", at(6))
		againState := registry.PackStateLogEntry("alice", "foo", registry.PackState{Latest: "2.0.0", Yanked: []string{"3.0.0"}, Head: index(7)}, at(6))
		wantLogTail(t, s, yanked, yankedState, again, againState)
		for range 2 {
			if _, err := registry.SetDeprecated(ctx(), s, p, "use alice/bar", at(7)); err != nil {
				t.Fatal(err)
			}
		}
		deprecated := registry.PackStateLogEntry("alice", "foo",
			registry.PackState{Latest: "2.0.0", Yanked: []string{"3.0.0"}, Deprecated: "use alice/bar", Head: index(9)}, at(7))
		wantLogTail(t, s, again, againState, deprecated)
	})

	t.Run("member changes append their entries, and one for each grant they took", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		org := &registry.Account{Username: "acme", CreatedAt: t0}
		if err := registry.CreateOrg(ctx(), s, org, alice); err != nil {
			t.Fatal(err)
		}
		made := registry.MemberLogEntry("acme", "alice", registry.RoleOwner, "alice", t0)
		wantLogTail(t, s, made)
		if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(1))); err != nil {
			t.Fatal(err)
		}
		if ch, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(2))); err != nil || ch.Changed {
			t.Fatalf("the same role again: %+v, %v; want no change", ch, err)
		}
		owner := registry.MemberLogEntry("acme", "bob", registry.RoleOwner, "alice", at(1))
		wantLogTail(t, s, made, owner)

		p := grant(org, bob, "acme/a", 3)
		if err := registry.CreateTrustedPublisher(ctx(), s, p, bob.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := exchangedToken(t, s, org, "t", at(60), p.ID); err != nil {
			t.Fatal(err)
		}
		ch, err := registry.RemoveOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, "", at(4)))
		if err != nil {
			t.Fatal(err)
		}
		if len(ch.RemovedTrustedPublishers) != 1 || ch.RemovedTrustedPublishers[0].ID != p.ID || len(ch.RevokedTokens) != 1 {
			t.Fatalf("the removal took %+v and revoked %v; want bob's trusted publisher and its one token", ch.RemovedTrustedPublishers, ch.RevokedTokens)
		}
		wantLogTail(t, s, owner, registry.MemberLogEntry("acme", "bob", "", "alice", at(4)),
			registry.TrustedPublisherRemovedLogEntry("acme", "bob", &ch.RemovedTrustedPublishers[0], 1, "alice", at(4)))
	})

	t.Run("a setting change logs only a change; a publish is refused by the package's setting", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", at(0))
		p := publish(t, s, input(alice, "foo", "1.0.0", "one", at(1)))
		pkg, err := registry.SetTrustedPublishingOnly(ctx(), s, p, true, "alice", at(2))
		if err != nil || !pkg.TrustedPublishingOnly {
			t.Fatalf("SetTrustedPublishingOnly(true) = %+v, %v", pkg, err)
		}
		if _, err := registry.SetTrustedPublishingOnly(ctx(), s, p, true, "alice", at(3)); err != nil {
			t.Fatal(err)
		}
		on := registry.TrustedPublishingOnlyLogEntry("alice", "foo", true, "alice", at(2))
		wantLogTail(t, s, on)
		entries := len(logEntries(t, s))

		// The package's rule of who may publish sees the setting as the
		// transaction holds it, and refuses, new version or not.
		for _, in := range []registry.PublishInput{
			input(alice, "foo", "2.0.0", "two", at(3)),
			input(alice, "foo", "1.0.0", "one", at(3)), // identical to the version there
			signed(input(alice, "foo", "2.0.0", "two", at(3)), key, "nonce-refused-by-admit"),
		} {
			_, _, err := registry.PublishVersion(ctx(), s, in)
			wantCode(t, "a publish into a package set to trusted publishing only", err, registry.Forbidden)
		}
		if got := len(logEntries(t, s)); got != entries {
			t.Errorf("the log grew from %d to %d entries with refused publishes", entries, got)
		}
		if vs := listVersions(t, s, p.ID); len(vs) != 1 {
			t.Errorf("%d versions after refused publishes, want 1", len(vs))
		}
		// The nonce of the refused signed publish was not spent.
		if _, err := registry.SetTrustedPublishingOnly(ctx(), s, p, false, "alice", at(4)); err != nil {
			t.Fatal(err)
		}
		wantLogTail(t, s, on, registry.TrustedPublishingOnlyLogEntry("alice", "foo", false, "alice", at(4)))
		admitted := signed(input(alice, "foo", "2.0.0", "two", at(4)), key, "nonce-refused-by-admit")
		if _, created, err := registry.PublishVersion(ctx(), s, admitted); err != nil || !created {
			t.Errorf("a signed publish let through, with the refused one's nonce: created %v, %v", created, err)
		}
	})

	t.Run("keys and releases log their entries; a removed key's is built from the key the transaction finds", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		k := &registry.SSHKey{AccountID: alice.ID, Name: "laptop", Type: "ssh-ed25519", Fingerprint: fingerprint("k"),
			PublicKey: "ssh-ed25519 AAAAk", CreatedAt: at(1)}
		added := registry.KeyLogEntry(true, "alice", k, at(1))
		if err := registry.CreateSSHKey(ctx(), s, k, "alice"); err != nil {
			t.Fatal(err)
		}
		wantLogTail(t, s, added)
		if err := registry.RemoveSSHKey(ctx(), s, alice.ID, k.ID, at(2)); err != nil {
			t.Fatal(err)
		}
		gone := registry.KeyLogEntry(false, "alice", k, at(2))
		p := publish(t, s, input(alice, "widget", "1.0.0", "one", at(3)))
		v := versionNamed(t, s, p, "1.0.0")
		r := release(p, v, "abc1234", 4)
		released := registry.ReleaseLogEntry(r)
		if _, created, err := registry.CreateRelease(ctx(), s, r); err != nil || !created {
			t.Fatalf("CreateRelease: created %v, %v", created, err)
		}
		published := publishEntries(input(alice, "widget", "1.0.0", "one", at(3)), registry.PackState{Latest: "1.0.0"})
		wantLogTail(t, s, added, gone, published[0], published[1], released)
	})
}
