package storetest

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// marker is a log entry no rule of the domain makes: a store that appends
// it byte for byte appends what it is given.
func marker(name string, minute int) *translog.Entry {
	return &translog.Entry{Kind: "test-" + name, Time: at(minute), Fields: []translog.Field{{Key: "marker", Value: name}}}
}

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

// stateMarker is a State that keeps the states it is given and answers a
// marker.
func stateMarker(name string, minute int, got *[]string) func(registry.PackState) *translog.Entry {
	return func(st registry.PackState) *translog.Entry {
		head := "none"
		if st.Head != nil {
			head = fmt.Sprint(*st.Head)
		}
		*got = append(*got, fmt.Sprintf("latest %s yanked %v deprecated %q head %s", st.Latest, st.Yanked, st.Deprecated, head))
		return marker(name, minute)
	}
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

// testGiven checks that a store appends the log entries and applies the
// rules the domain hands it, and decides none of its own
// (docs/design.md, Layers).
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

	t.Run("a yank appends what its Entry answers from the version's state and takes the latest its LatestOf picks", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		publish(t, s, input(alice, "foo", "1.0.0", "one", at(1)))
		publish(t, s, input(alice, "foo", "2.0.0", "two", at(2)))
		p := publish(t, s, input(alice, "foo", "3.0.0", "three", at(3)))
		var states, packStates []string
		var offered [][]string
		change := registry.YankChange{State: stateMarker("yank-state", 4, &packStates), PackageID: p.ID, Version: "3.0.0", Yanked: true, Reason: "broken", At: at(4),
			Entry: func(wasYanked bool, oldReason string) *translog.Entry {
				states = append(states, fmt.Sprint(wasYanked, " ", oldReason))
				if wasYanked {
					return nil
				}
				return marker("yank", 4)
			},
			LatestOf: func(versions []string) int {
				offered = append(offered, versions)
				return 0
			},
		}
		pkg, v, err := s.SetYanked(ctx(), change)
		if err != nil || !v.Yanked() || pkg.Version != "1.0.0" {
			t.Fatalf("SetYanked = %+v, %+v, %v; want 3.0.0 yanked and 1.0.0, LatestOf's pick, the latest", pkg, v, err)
		}
		if _, _, err := s.SetYanked(ctx(), change); err != nil {
			t.Fatal(err)
		}
		if want := []string{"false ", "true broken"}; !reflect.DeepEqual(states, want) {
			t.Errorf("Entry was asked about the states %q, want %q", states, want)
		}
		if want := [][]string{{"1.0.0", "2.0.0"}, {"1.0.0", "2.0.0"}}; !reflect.DeepEqual(offered, want) {
			t.Errorf("LatestOf was offered %q, want %q", offered, want)
		}
		if st, _ := s.LogState(ctx()); st.Entries != 8 {
			t.Errorf("%d entries, want 8 (3 publishes and their states, the yank and its state): the second yank's Entry answered none", st.Entries)
		}
		wantLogTail(t, s, marker("yank", 4), marker("yank-state", 4))
		if want := []string{`latest 1.0.0 yanked [3.0.0] deprecated "" head 5`}; !reflect.DeepEqual(packStates, want) {
			t.Errorf("State was given %q, want %q (and not asked after a yank that logged nothing)", packStates, want)
		}
		var was []string
		deprecate := registry.DeprecationChange{PackageID: p.ID, Message: "use alice/bar",
			State: func(before string, st registry.PackState) *translog.Entry {
				was = append(was, before)
				if before == "use alice/bar" {
					return nil
				}
				return stateMarker("deprecate-state", 5, &packStates)(st)
			}}
		for range 2 {
			if _, err := s.SetDeprecated(ctx(), deprecate); err != nil {
				t.Fatal(err)
			}
		}
		wantLogTail(t, s, marker("yank", 4), marker("yank-state", 4), marker("deprecate-state", 5))
		if want := []string{"", "use alice/bar"}; !reflect.DeepEqual(was, want) {
			t.Errorf("the deprecation's State was given the messages before %q, want %q", was, want)
		}
		if got, want := packStates[len(packStates)-1], `latest 1.0.0 yanked [3.0.0] deprecated "use alice/bar" head 7`; got != want {
			t.Errorf("the deprecation's State was given %q, want %q", got, want)
		}
	})

	t.Run("member changes append their entries, and one for each grant they took", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		org := &registry.Account{Username: "acme", CreatedAt: t0}
		if err := s.CreateOrg(ctx(), org, alice, marker("org", 0)); err != nil {
			t.Fatal(err)
		}
		wantLogTail(t, s, marker("org", 0))
		if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(1))); err != nil {
			t.Fatal(err)
		}
		if ch, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(2))); err != nil || ch.Changed {
			t.Fatalf("the same role again: %+v, %v; want no change", ch, err)
		}
		owner := registry.MemberLogEntry("acme", "bob", registry.RoleOwner, "alice", at(1))
		wantLogTail(t, s, marker("org", 0), owner)

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

	t.Run("a setting change appends what its Entry answers from the setting before; a publish is refused by the package's setting", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", at(0))
		p := publish(t, s, input(alice, "foo", "1.0.0", "one", at(1)))
		var before []bool
		change := func(only bool, entry *translog.Entry) registry.TrustedPublishingChange {
			return registry.TrustedPublishingChange{PackageID: p.ID, Only: only, Entry: func(was bool) *translog.Entry {
				before = append(before, was)
				return entry
			}}
		}
		pkg, err := s.SetTrustedPublishingOnly(ctx(), change(true, marker("on", 2)))
		if err != nil || !pkg.TrustedPublishingOnly {
			t.Fatalf("SetTrustedPublishingOnly(true) = %+v, %v", pkg, err)
		}
		if _, err := s.SetTrustedPublishingOnly(ctx(), change(true, nil)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(before, []bool{false, true}) {
			t.Errorf("Entry was asked about the settings %v, want [false true]", before)
		}
		wantLogTail(t, s, marker("on", 2))
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
		if _, err := s.SetTrustedPublishingOnly(ctx(), change(false, marker("off", 4))); err != nil {
			t.Fatal(err)
		}
		admitted := signed(input(alice, "foo", "2.0.0", "two", at(4)), key, "nonce-refused-by-admit")
		if _, created, err := registry.PublishVersion(ctx(), s, admitted); err != nil || !created {
			t.Errorf("a signed publish let through, with the refused one's nonce: created %v, %v", created, err)
		}
	})

	t.Run("keys and releases append their entries; a removed key's is built from the key the transaction finds", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		k := &registry.SSHKey{AccountID: alice.ID, Name: "laptop", Type: "ssh-ed25519", Fingerprint: fingerprint("k"),
			PublicKey: "ssh-ed25519 AAAAk", CreatedAt: at(1)}
		if err := s.CreateSSHKey(ctx(), k, marker("key", 1)); err != nil {
			t.Fatal(err)
		}
		wantLogTail(t, s, marker("key", 1))
		if err := registry.RemoveSSHKey(ctx(), s, alice.ID, k.ID, at(2)); err != nil {
			t.Fatal(err)
		}
		gone := registry.KeyLogEntry(false, "alice", k, at(2))
		p := publish(t, s, input(alice, "widget", "1.0.0", "one", at(3)))
		v := versionNamed(t, s, p, "1.0.0")
		if _, created, err := s.CreateRelease(ctx(), release(p, v, "abc1234", 4), marker("release", 4)); err != nil || !created {
			t.Fatalf("CreateRelease: created %v, %v", created, err)
		}
		published := publishEntries(input(alice, "widget", "1.0.0", "one", at(3)), registry.PackState{Latest: "1.0.0"})
		wantLogTail(t, s, marker("key", 1), gone, published[0], published[1], marker("release", 4))
	})
}
