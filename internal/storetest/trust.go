package storetest

import (
	"errors"
	"reflect"
	"testing"
	"time"

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
		a2 := &registry.TrustedPublisher{AccountID: alice.ID, Issuer: "https://gitlab.com", Packages: []string{"gadget"},
			Claims: map[string]string{"project_path": "alice/gadget"}, CreatedAt: at(1)}
		b1 := &registry.TrustedPublisher{AccountID: bob.ID, Issuer: github, Packages: []string{"tool"},
			Claims: map[string]string{"repository": "bob/tool"}, CreatedAt: at(2)}
		for _, p := range []*registry.TrustedPublisher{a1, a2, b1} {
			if err := s.CreateTrustedPublisher(ctx(), p); err != nil {
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
		err := s.CreateTrustedPublisher(ctx(), &registry.TrustedPublisher{AccountID: 999, Issuer: github,
			Packages: []string{"x"}, Claims: map[string]string{"repository": "a/b"}, CreatedAt: t0})
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
			err := s.SpendJTI(ctx(), step.issuer, step.jti, step.expiresAt, step.now)
			if step.reused != errors.Is(err, registry.ErrJTIReused) || (!step.reused && err != nil) {
				t.Fatalf("%s: SpendJTI = %v, want reused %v", step.name, err, step.reused)
			}
		}
	})
}
