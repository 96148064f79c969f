package storetest

import (
	"bytes"
	"errors"
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

// publishAsIs publishes in as it is, its log entry and rules included
// (publish makes them the domain's).
func publishAsIs(t *testing.T, s registry.Store, in registry.PublishInput) *registry.Package {
	t.Helper()
	pkg, created, err := s.Publish(ctx(), in)
	if err != nil || !created {
		t.Fatalf("Publish(%s@%s): created %v, %v", in.PackSlug, in.Version, created, err)
	}
	return pkg
}

// testGiven checks that a store appends the log entries and applies the
// rules the domain hands it, and decides none of its own
// (docs/design.md, Layers).
func (su suite) testGiven(t *testing.T) {
	t.Run("a publish appends its entry and asks its rule of latest", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		var states []string
		first := input(alice, "foo", "1.0.0", "one", at(1)).Ready()
		first.Entry, first.State = marker("first", 1), stateMarker("first-state", 1, &states)
		publishAsIs(t, s, first)
		wantLogTail(t, s, marker("first", 1), marker("first-state", 1))

		var asked []string
		never := input(alice, "foo", "2.0.0", "two", at(2)).Ready()
		never.Entry, never.State = marker("never", 2), stateMarker("never-state", 2, &states)
		never.BecomesLatest = func(current, candidate string) bool {
			asked = append(asked, current+" "+candidate)
			return false
		}
		if p := publishAsIs(t, s, never); p.Version != "1.0.0" {
			t.Errorf("latest %s after a publish its rule keeps out, want 1.0.0", p.Version)
		}
		always := input(alice, "foo", "0.1.0", "lower", at(3)).Ready()
		always.Entry, always.State = marker("always", 3), stateMarker("always-state", 3, &states)
		always.BecomesLatest = func(current, candidate string) bool {
			asked = append(asked, current+" "+candidate)
			return true
		}
		if p := publishAsIs(t, s, always); p.Version != "0.1.0" {
			t.Errorf("latest %s after a publish its rule makes latest, want 0.1.0", p.Version)
		}
		if want := []string{"1.0.0 2.0.0", "1.0.0 0.1.0"}; !reflect.DeepEqual(asked, want) {
			t.Errorf("the rule was asked %q, want %q", asked, want)
		}
		wantLogTail(t, s, marker("first", 1), marker("first-state", 1), marker("never", 2), marker("never-state", 2),
			marker("always", 3), marker("always-state", 3))
		// State is given the package as each publish leaves it, and
		// the index of the entry it answered before.
		if want := []string{`latest 1.0.0 yanked [] deprecated "" head none`, `latest 1.0.0 yanked [] deprecated "" head 1`,
			`latest 0.1.0 yanked [] deprecated "" head 3`}; !reflect.DeepEqual(states, want) {
			t.Errorf("State was given %q, want %q", states, want)
		}
	})

	t.Run("a publish without the domain's parts, or whose precondition fails, stores nothing", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		if _, _, err := s.Publish(ctx(), input(alice, "foo", "1.0.0", "one", at(1))); err == nil {
			t.Error("a publish without its log entry and rule of latest was stored")
		}
		noAdmit := input(alice, "foo", "1.0.0", "one", at(1)).Ready()
		noAdmit.Admit = nil
		if _, _, err := s.Publish(ctx(), noAdmit); err == nil {
			t.Error("a publish without its rule of who may publish was stored")
		}
		notMember := input(alice, "foo", "1.0.0", "one", at(1)).Ready()
		notMember.RequireMember = bob.ID
		_, _, err := s.Publish(ctx(), notMember)
		wantCode(t, "a publish that requires a member who is none", err, registry.Forbidden)
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

	t.Run("member changes append what Entries builds from the grants they took", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		org := &registry.Account{Username: "acme", CreatedAt: t0}
		if err := s.CreateOrg(ctx(), org, alice, marker("org", 0)); err != nil {
			t.Fatal(err)
		}
		wantLogTail(t, s, marker("org", 0))
		calls := 0
		update := func(role registry.Role, minute int, entries ...*translog.Entry) registry.MemberUpdate {
			return registry.MemberUpdate{Org: org, Member: bob, Role: role, At: at(minute),
				Entries: func(removed []registry.TrustedPublisher, revoked map[int64]int) []*translog.Entry {
					calls++
					if len(removed) != 0 || len(revoked) != 0 {
						t.Errorf("a change that took no grant says it removed %+v, revoked %v", removed, revoked)
					}
					return entries
				}}
		}
		if _, err := s.SetMember(ctx(), update(registry.RoleOwner, 1, marker("owner", 1))); err != nil {
			t.Fatal(err)
		}
		if ch, err := s.SetMember(ctx(), update(registry.RoleOwner, 2, marker("unchanged", 2))); err != nil || ch.Changed || calls != 1 {
			t.Fatalf("the same role again: %+v, %v, Entries called %d times; want no change and one call", ch, err, calls)
		}
		wantLogTail(t, s, marker("owner", 1))

		p := grant(org, bob, "acme/a", 3)
		if err := s.CreateTrustedPublisher(ctx(), p, bob.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := exchangedToken(t, s, org, "t", at(60), p.ID); err != nil {
			t.Fatal(err)
		}
		var gotRemoved []registry.TrustedPublisher
		var gotRevoked map[int64]int
		removal := registry.MemberUpdate{Org: org, Member: bob, At: at(4),
			Entries: func(removed []registry.TrustedPublisher, revoked map[int64]int) []*translog.Entry {
				gotRemoved, gotRevoked = removed, revoked
				return []*translog.Entry{marker("removed", 4), marker("grant", 4)}
			}}
		if _, err := s.RemoveMember(ctx(), removal); err != nil {
			t.Fatal(err)
		}
		if len(gotRemoved) != 1 || gotRemoved[0].ID != p.ID || !reflect.DeepEqual(gotRevoked, map[int64]int{p.ID: 1}) {
			t.Errorf("Entries was given %+v, %v; want bob's trusted publisher and its one token", gotRemoved, gotRevoked)
		}
		wantLogTail(t, s, marker("removed", 4), marker("grant", 4))
	})

	t.Run("a setting change appends what its Entry answers from the setting before; a publish is refused by its Admit alone", func(t *testing.T) {
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

		// The store asks Admit with the package as its transaction holds
		// it, and refuses with Admit's error, new version or not; it
		// decides nothing itself.
		refusal := registry.Errorf(registry.Forbidden, "admit says no")
		var seen []bool
		refuse := func(in registry.PublishInput) registry.PublishInput {
			in = in.Ready()
			in.Admit = func(p *registry.Package) error {
				seen = append(seen, p.TrustedPublishingOnly)
				return refusal
			}
			return in
		}
		for _, in := range []registry.PublishInput{
			refuse(input(alice, "foo", "2.0.0", "two", at(3))),
			refuse(input(alice, "foo", "1.0.0", "one", at(3))), // identical to the version there
			refuse(signed(input(alice, "foo", "2.0.0", "two", at(3)), key, "nonce-refused-by-admit")),
		} {
			if _, _, err := s.Publish(ctx(), in); !errors.Is(err, refusal) {
				t.Errorf("Publish of %s %s refused by Admit: %v, want Admit's error", in.PackSlug, in.Version, err)
			}
		}
		if !reflect.DeepEqual(seen, []bool{true, true, true}) {
			t.Errorf("Admit saw trusted publishing only %v, want true thrice", seen)
		}
		if got := len(logEntries(t, s)); got != entries {
			t.Errorf("the log grew from %d to %d entries with refused publishes", entries, got)
		}
		if vs := listVersions(t, s, p.ID); len(vs) != 1 {
			t.Errorf("%d versions after refused publishes, want 1", len(vs))
		}
		// The nonce of the refused signed publish was not spent.
		admitted := signed(input(alice, "foo", "2.0.0", "two", at(4)), key, "nonce-refused-by-admit").Ready()
		admitted.Admit = func(*registry.Package) error { return nil }
		if _, created, err := s.Publish(ctx(), admitted); err != nil || !created {
			t.Errorf("a signed publish Admit lets through, with the refused one's nonce: created %v, %v", created, err)
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
		var owner string
		var found registry.SSHKey
		err := s.DeleteSSHKey(ctx(), alice.ID, k.ID, func(o string, k *registry.SSHKey) *translog.Entry {
			owner, found = o, *k
			return marker("gone", 2)
		})
		if err != nil {
			t.Fatal(err)
		}
		if owner != "alice" || found.Fingerprint != k.Fingerprint || found.PublicKey != k.PublicKey {
			t.Errorf("the entry was built from %s's %+v, want alice's key", owner, found)
		}
		p := publish(t, s, input(alice, "widget", "1.0.0", "one", at(3)))
		v := versionNamed(t, s, p, "1.0.0")
		if _, created, err := s.CreateRelease(ctx(), release(p, v, "abc1234", 4), marker("release", 4)); err != nil || !created {
			t.Fatalf("CreateRelease: created %v, %v", created, err)
		}
		ready := input(alice, "widget", "1.0.0", "one", at(3)).Ready()
		wantLogTail(t, s, marker("key", 1), marker("gone", 2), ready.Entry, ready.State(registry.PackState{Latest: "1.0.0"}), marker("release", 4))
	})
}
