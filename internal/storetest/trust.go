package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

const github = "https://token.actions.githubusercontent.com"

func (su suite) testTrustedPublishers(t *testing.T) {
	t.Run("trusted publishers read back per account and per issuer, and are deleted by their owner only", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		a1 := &registry.TrustedPublisher{AccountID: alice.ID, Issuer: github, Packages: []string{"widget", "widget-*"},
			Claims:    map[string]string{"repository": "alice/widget", "job_workflow_ref": "alice/widget/.github/workflows/release.yml@refs/heads/main"},
			CreatedAt: t0.In(cet)}
		expires := at(60).In(cet)
		a2 := &registry.TrustedPublisher{AccountID: alice.ID, Issuer: "https://gitlab.com", Packages: []string{"gadget"},
			Claims: map[string]string{"project_path": "alice/gadget"}, CreatedAt: at(1), ExpiresAt: &expires,
			CreatedBy: &registry.Maker{AccountID: alice.ID, Username: "alice", TokenID: 0}}
		b1 := &registry.TrustedPublisher{AccountID: bob.ID, Issuer: github, Packages: []string{"tool"},
			Claims: map[string]string{"repository": "bob/tool"}, CreatedAt: at(2)}
		for _, p := range []*registry.TrustedPublisher{a1, a2, b1} {
			if err := registry.CreateTrustedPublisher(ctx(), s, p, 0); err != nil {
				t.Fatalf("CreateTrustedPublisher: %v", err)
			}
		}
		if a1.ID == 0 || a1.ID == a2.ID || a2.ID == b1.ID {
			t.Fatalf("ids %d %d %d, want distinct non-zero", a1.ID, a2.ID, b1.ID)
		}
		list, err := s.ListTrustedPublishers(ctx(), alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []registry.TrustedPublisher{*a1, *a2}
		want[0].CreatedAt = t0
		utc := at(60)
		want[1].ExpiresAt = &utc
		if !reflect.DeepEqual(list, want) {
			t.Errorf("ListTrustedPublishers(alice) = %+v, want %+v", list, want)
		}
		byIssuer, err := s.TrustedPublishersByIssuer(ctx(), github)
		if err != nil {
			t.Fatal(err)
		}
		if len(byIssuer) != 2 || byIssuer[0].ID != a1.ID || byIssuer[1].ID != b1.ID {
			t.Errorf("TrustedPublishersByIssuer(github) = %+v, want alice's then bob's", byIssuer)
		}
		if err := s.DeleteTrustedPublisher(ctx(), bob.ID, a1.ID); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("bob deleting alice's trusted publisher: %v, want NotFound", err)
		}
		if err := s.DeleteTrustedPublisher(ctx(), alice.ID, a1.ID); err != nil {
			t.Fatalf("DeleteTrustedPublisher: %v", err)
		}
		if err := s.DeleteTrustedPublisher(ctx(), alice.ID, a1.ID); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("deleting twice: %v, want NotFound", err)
		}
		if list, _ := s.ListTrustedPublishers(ctx(), alice.ID); len(list) != 1 || list[0].ID != a2.ID {
			t.Errorf("after the delete alice has %+v, want only the GitLab one", list)
		}
	})

	t.Run("a trusted publisher of a missing account is not found", func(t *testing.T) {
		s := su.store(t)
		err := registry.CreateTrustedPublisher(ctx(), s, &registry.TrustedPublisher{AccountID: 999, Issuer: github,
			Packages: []string{"x"}, Claims: map[string]string{"repository": "a/b"}, CreatedAt: t0}, 0)
		if !registry.IsCode(err, registry.NotFound) {
			t.Errorf("CreateTrustedPublisher for account 999: %v, want NotFound", err)
		}
	})

	t.Run("a jti is spent once per issuer until it expires", func(t *testing.T) {
		s := su.store(t)
		steps := []struct {
			name      string
			issuer    string
			jti       string
			expiresAt time.Time
			now       time.Time
			reused    bool
		}{
			{"first use", github, "jti-1", at(10), at(0), false},
			{"again", github, "jti-1", at(10), at(1), true},
			{"other issuer", "https://gitlab.com", "jti-1", at(10), at(1), false},
			{"other jti", github, "jti-2", at(10), at(2), false},
			{"after expiry it is forgotten", github, "jti-1", at(30), at(11), false},
			{"and spent again", github, "jti-1", at(30), at(12), true},
		}
		for _, step := range steps {
			err := registry.SpendJTI(ctx(), s, registry.JTISpend{Issuer: step.issuer, JTI: step.jti, ExpiresAt: step.expiresAt, Now: step.now})
			if step.reused != errors.Is(err, registry.ErrJTIReused) || (!step.reused && err != nil) {
				t.Fatalf("%s: SpendJTI = %v, want reused %v", step.name, err, step.reused)
			}
		}
	})
}

// grant is a trusted publisher of owner for the packs widget-*, made by maker.
func grant(owner, maker *registry.Account, repo string, minute int) *registry.TrustedPublisher {
	return &registry.TrustedPublisher{AccountID: owner.ID, Issuer: github, Packages: []string{"widget-*"},
		Claims: map[string]string{"repository": repo}, CreatedAt: at(minute), CreatedBy: &registry.Maker{AccountID: maker.ID}}
}

// exchangedToken is a token of owner exchanged through the trusted publishers via
// (for an ID token whose jti is "jti-" and the name).
func exchangedToken(t *testing.T, s registry.Store, owner *registry.Account, name string, expires time.Time, via ...int64) (*registry.Token, error) {
	t.Helper()
	tok := &registry.Token{AccountID: owner.ID, Name: name, Hash: []byte(strings.Repeat(name, 32)[:32]), CreatedAt: at(1),
		ExpiresAt: &expires, Scopes: []registry.Scope{registry.ScopePublish}, Packages: []string{"widget-*"}, TrustedPublishers: via}
	return tok, registry.CreateExchangedToken(ctx(), s, tok, registry.JTISpend{Issuer: "https://ci.example", JTI: "jti-" + name,
		ExpiresAt: expires, Now: at(1)})
}

func (su suite) testGrants(t *testing.T) {
	t.Run("an organisation's trusted publisher is stored only while the owner it requires is one", func(t *testing.T) {
		s := su.store(t)
		alice, bob, carol := createAccount(t, s, "alice"), createAccount(t, s, "bob"), createAccount(t, s, "carol")
		org := createOrg(t, s, "acme", alice)
		if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleMaintainer, at(1))); err != nil {
			t.Fatal(err)
		}
		if err := registry.CreateTrustedPublisher(ctx(), s, grant(org, bob, "acme/a", 2), bob.ID); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a maintainer's trusted publisher: %v, want Forbidden", err)
		}
		if err := registry.CreateTrustedPublisher(ctx(), s, grant(org, carol, "acme/a", 2), carol.ID); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a trusted publisher of one who is no member: %v, want Forbidden", err)
		}
		if list, _ := s.ListTrustedPublishers(ctx(), org.ID); len(list) != 0 {
			t.Errorf("refused trusted publishers were stored: %+v", list)
		}
		p := grant(org, alice, "acme/a", 2)
		if err := registry.CreateTrustedPublisher(ctx(), s, p, alice.ID); err != nil {
			t.Fatal(err)
		}
		list, err := s.ListTrustedPublishers(ctx(), org.ID)
		if err != nil || len(list) != 1 || list[0].CreatedBy == nil || list[0].CreatedBy.Username != "alice" || list[0].CreatedBy.TokenID != 0 {
			t.Errorf("ListTrustedPublishers(acme) = %+v, %v; want alice's, made with no token", list, err)
		}
	})

	t.Run("an exchanged token records its trusted publishers, and is refused once one is gone", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		p := grant(alice, alice, "alice/a", 1)
		if err := registry.CreateTrustedPublisher(ctx(), s, p, 0); err != nil {
			t.Fatal(err)
		}
		tok, err := exchangedToken(t, s, alice, "a", at(15), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		back, err := s.TokenByID(ctx(), tok.ID)
		if err != nil || !reflect.DeepEqual(back.TrustedPublishers, []int64{p.ID}) {
			t.Errorf("TokenByID = %+v, %v; want it through trusted publisher %d", back, err, p.ID)
		}
		if err := s.DeleteTrustedPublisher(ctx(), alice.ID, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := exchangedToken(t, s, alice, "b", at(15), p.ID); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a token through a removed trusted publisher: %v, want Forbidden", err)
		}
		if tokens, _ := s.ListTokens(ctx(), alice.ID, registry.TokenFilter{}); len(tokens) != 1 {
			t.Errorf("alice holds %d tokens, want the first only", len(tokens))
		}
	})

	for _, demote := range []bool{false, true} {
		name := "removing an owner removes the trusted publishers it made for the organisation, revokes their active tokens and logs each"
		if demote {
			name = "demoting an owner does the same"
		}
		t.Run(name, func(t *testing.T) {
			s := su.store(t)
			alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
			org := createOrg(t, s, "acme", alice)
			if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(1))); err != nil {
				t.Fatal(err)
			}
			bob1, bob2, alice1 := grant(org, bob, "bob/one", 2), grant(org, bob, "bob/two", 3), grant(org, alice, "acme/main", 4)
			bobOwn := grant(bob, bob, "bob/own", 5)
			for _, p := range []*registry.TrustedPublisher{bob1, bob2, alice1, bobOwn} {
				requireOwner := p.CreatedBy.AccountID // an owner of acme
				if p.AccountID != org.ID {
					requireOwner = 0
				}
				if err := registry.CreateTrustedPublisher(ctx(), s, p, requireOwner); err != nil {
					t.Fatal(err)
				}
			}
			through1, _ := exchangedToken(t, s, org, "t1", at(15), bob1.ID)
			throughBoth, _ := exchangedToken(t, s, org, "t2", at(15), alice1.ID, bob2.ID)
			expired, _ := exchangedToken(t, s, org, "t3", at(9), bob1.ID)
			aliceOnly, _ := exchangedToken(t, s, org, "t4", at(15), alice1.ID)
			bobsOwn, err := exchangedToken(t, s, bob, "t5", at(15), bobOwn.ID)
			if err != nil {
				t.Fatal(err)
			}

			var ch *registry.MemberChange
			if demote {
				ch, err = registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleMaintainer, at(10)))
			} else {
				ch, err = registry.RemoveOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, "", at(10)))
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.RemovedTrustedPublishers) != 2 || ch.RemovedTrustedPublishers[0].ID != bob1.ID || ch.RemovedTrustedPublishers[1].ID != bob2.ID {
				t.Errorf("removed %+v, want bob's two trusted publishers of acme", ch.RemovedTrustedPublishers)
			}
			if !reflect.DeepEqual(ch.RevokedTokens, []int64{through1.ID, throughBoth.ID}) {
				t.Errorf("revoked %v, want %d and %d", ch.RevokedTokens, through1.ID, throughBoth.ID)
			}
			if list, _ := s.ListTrustedPublishers(ctx(), org.ID); len(list) != 1 || list[0].ID != alice1.ID {
				t.Errorf("acme keeps %+v, want alice's only", list)
			}
			if list, _ := s.ListTrustedPublishers(ctx(), bob.ID); len(list) != 1 {
				t.Errorf("bob's own trusted publishers: %+v, want kept", list)
			}
			for _, c := range []struct {
				tok     *registry.Token
				revoked bool
			}{{through1, true}, {throughBoth, true}, {expired, false}, {aliceOnly, false}, {bobsOwn, false}} {
				back, err := s.TokenByID(ctx(), c.tok.ID)
				if err != nil || (back.RevokedAt != nil) != c.revoked || c.revoked && !back.RevokedAt.Equal(at(10)) {
					t.Errorf("token %s: %+v, %v; want revoked %v", c.tok.Name, back, err, c.revoked)
				}
			}
			var logged []string
			for _, raw := range logEntries(t, s) {
				e, err := translog.Parse(raw)
				if err != nil {
					t.Fatal(err)
				}
				if e.Kind == translog.KindTrustedPublisherRemove {
					logged = append(logged, strings.Join([]string{e.Get("owner"), e.Get("member"), e.Get("trusted-publisher"), e.Get("issuer"),
						e.Get("packages"), e.Get("revoked-tokens"), e.Get("by")}, " "))
				}
			}
			want := []string{
				fmt.Sprintf("acme bob %d %s widget-* 1 alice", bob1.ID, github),
				fmt.Sprintf("acme bob %d %s widget-* 1 alice", bob2.ID, github),
			}
			if !equalStrings(logged, want) {
				t.Errorf("log = %q, want %q", logged, want)
			}
			// The trusted publishers went with the role: nothing is left to revoke.
			if _, err := registry.SetOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, registry.RoleOwner, at(11))); err != nil {
				t.Fatal(err)
			}
			if ch, err := registry.RemoveOrgMember(ctx(), s, registry.NewMemberUpdate(org, bob, alice, "", at(12))); err != nil || len(ch.RemovedTrustedPublishers) != 0 || len(ch.RevokedTokens) != 0 {
				t.Errorf("removing bob again: %+v, %v; want nothing more taken", ch, err)
			}
		})
	}
}
