package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

func createOrg(t *testing.T, s registry.Store, name string, creator *registry.Account) *registry.Account {
	t.Helper()
	org := &registry.Account{Username: name, DisplayName: "The " + name, CreatedAt: t0}
	if err := registry.CreateOrg(ctx(), s, org, creator); err != nil {
		t.Fatalf("CreateOrg(%s): %v", name, err)
	}
	return org
}

func roles(t *testing.T, s registry.Store, org *registry.Account) map[string]registry.Role {
	t.Helper()
	ms, err := s.OrgMembers(ctx(), org.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]registry.Role{}
	for _, m := range ms {
		out[m.Username] = m.Role
	}
	return out
}

// memberEvents are the member entries of the log, as "kind org member role by".
func memberEvents(t *testing.T, s registry.Store) []string {
	t.Helper()
	st, err := s.LogState(ctx())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.LogEntries(ctx(), 0, st.Entries)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, raw := range entries {
		e, err := translog.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := e.MemberEvent(); err == nil {
			out = append(out, e.Kind+" "+m.Owner+" "+m.Member+" "+m.Role+" "+m.By)
		}
	}
	return out
}

func (su suite) testOrgs(t *testing.T) {
	t.Run("an organisation shares the namespace of users and reads back as an account of kind org", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		org := createOrg(t, s, "acme", alice)
		got, err := s.AccountByUsername(ctx(), "ACME")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != org.ID || got.Kind != registry.KindOrg || got.DisplayName != "The acme" || got.Email != "" {
			t.Errorf("AccountByUsername(acme) = %+v", got)
		}
		if a, _ := s.AccountByID(ctx(), alice.ID); a.Kind != registry.KindUser {
			t.Errorf("a user's kind = %q", a.Kind)
		}
		taken := &registry.Account{Username: "Alice", CreatedAt: t0}
		if err := registry.CreateOrg(ctx(), s, taken, alice); !registry.IsCode(err, registry.Conflict) {
			t.Errorf("an organisation named as a user: %v, want Conflict", err)
		}
		if err := s.CreateAccount(ctx(), &registry.Account{Email: "x@example.com", Username: "acme", CreatedAt: t0}); !registry.IsCode(err, registry.Conflict) {
			t.Errorf("a user named as an organisation: %v, want Conflict", err)
		}
		createOrg(t, s, "beta", alice) // organisations have no email to collide
		if r := roles(t, s, org); len(r) != 1 || r["alice"] != registry.RoleOwner {
			t.Errorf("members = %v, want alice the owner", r)
		}
		if n, _ := s.CountOwnedOrgs(ctx(), alice.ID); n != 2 {
			t.Errorf("CountOwnedOrgs = %d, want 2", n)
		}
		if orgs, _ := s.OrgsOf(ctx(), alice.ID); len(orgs) != 2 || orgs[0].Username != "acme" || orgs[1].Username != "beta" {
			t.Errorf("OrgsOf(alice) = %+v", orgs)
		}
	})

	t.Run("members are added, changed and removed, each change logged once; the last owner stays", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		org := createOrg(t, s, "acme", alice)
		ch, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleMaintainer, at(1).In(cet)))
		if err != nil {
			t.Fatal(err)
		}
		m, changed := ch.Member, ch.Changed
		if !changed || m.Role != registry.RoleMaintainer || m.Username != "bob" || !m.CreatedAt.Equal(at(1)) || m.CreatedAt.Location() != time.UTC {
			t.Fatalf("SetMember = %+v, %v, %v", m, changed, err)
		}
		if ch, _ := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleMaintainer, at(2))); ch == nil || ch.Changed {
			t.Error("setting the same role again changed something")
		}
		if role, _ := s.MemberRole(ctx(), org.ID, bob.ID); role != registry.RoleMaintainer {
			t.Errorf("MemberRole(bob) = %q", role)
		}
		if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, alice, alice, registry.RoleMaintainer, at(3))); !registry.IsCode(err, registry.Conflict) {
			t.Errorf("demoting the last owner: %v, want Conflict", err)
		}
		if _, err := registry.RemoveOrgMember(ctx(), s, registry.NewMemberUpdate(org, alice, alice, "", at(3))); !registry.IsCode(err, registry.Conflict) {
			t.Errorf("removing the last owner: %v, want Conflict", err)
		}
		if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(4))); err != nil {
			t.Fatal(err)
		}
		if _, err := registry.RemoveOrgMember(ctx(), s, registry.NewMemberUpdate(org, alice, bob, "", at(5))); err != nil {
			t.Fatal(err)
		}
		if _, err := registry.RemoveOrgMember(ctx(), s, registry.NewMemberUpdate(org, alice, bob, "", at(5))); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("removing a non-member: %v, want NotFound", err)
		}
		if role, _ := s.MemberRole(ctx(), org.ID, alice.ID); role != "" {
			t.Errorf("a removed member's role = %q", role)
		}
		want := []string{"member acme alice owner alice", "member acme bob maintainer alice", "member acme bob owner alice", "member-remove acme alice  bob"}
		if got := memberEvents(t, s); !equalStrings(got, want) {
			t.Errorf("log = %q, want %q", got, want)
		}
	})

	t.Run("an organisation takes at most MaxOrgMembers members", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		org := createOrg(t, s, "acme", alice)
		for i := 1; i < registry.MaxOrgMembers; i++ {
			m := createAccount(t, s, fmt.Sprintf("member%03d", i))
			if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, m, alice, registry.RoleMaintainer, at(1))); err != nil {
				t.Fatalf("member %d: %v", i+1, err)
			}
		}
		entries := len(logEntries(t, s))
		late := createAccount(t, s, "late")
		_, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, late, alice, registry.RoleMaintainer, at(2)))
		wantCode(t, "a member past MaxOrgMembers", err, registry.Conflict)
		if role, _ := s.MemberRole(ctx(), org.ID, late.ID); role != "" {
			t.Errorf("the refused member's role = %q", role)
		}
		if got := len(logEntries(t, s)); got != entries {
			t.Errorf("the log grew from %d to %d entries with a refused member", entries, got)
		}
	})

	t.Run("two owners removing each other at once leave one owner", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		org := createOrg(t, s, "acme", alice)
		if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(1))); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, pair := range [][2]*registry.Account{{alice, bob}, {bob, alice}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = registry.RemoveOrgMember(ctx(), s, registry.NewMemberUpdate(org, pair[1], pair[0], "", at(2)))
			}()
		}
		wg.Wait()
		if r := roles(t, s, org); len(r) != 1 {
			t.Errorf("members after both removals = %v (errors %v), want one owner", r, errs)
		}
	})

	t.Run("a publish records its publisher and token; a non-member's is refused in the transaction", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		org := createOrg(t, s, "acme", alice)
		tok := &registry.Token{AccountID: alice.ID, Name: "t", Hash: []byte("hash-of-alice-token-0000000000000"), CreatedAt: t0}
		if err := s.CreateToken(ctx(), tok); err != nil {
			t.Fatal(err)
		}
		in := input(org, "widget", "1.0.0", "a", at(1))
		in.PublisherID, in.TokenID = alice.ID, tok.ID
		p, _, err := registry.PublishVersion(ctx(), s, in)
		if err != nil {
			t.Fatal(err)
		}
		vs := listVersions(t, s, p.ID)
		if vs[0].Publisher == nil || vs[0].Publisher.Username != "alice" || vs[0].TokenID != tok.ID {
			t.Errorf("version publisher = %+v, token %d", vs[0].Publisher, vs[0].TokenID)
		}
		in = input(org, "widget", "1.1.0", "b", at(2))
		in.PublisherID = bob.ID
		if _, _, err := registry.PublishVersion(ctx(), s, in); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a non-member's publish: %v, want Forbidden", err)
		}
		if vs := listVersions(t, s, p.ID); len(vs) != 1 {
			t.Errorf("%d versions after the refused publish, want 1", len(vs))
		}
		if n, _ := s.CountOwned(ctx(), org.ID); n != 1 {
			t.Errorf("CountOwned = %d, want 1", n)
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
