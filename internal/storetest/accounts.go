package storetest

import (
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func (su suite) testAccounts(t *testing.T) {
	t.Run("created account reads back by id, username and email", func(t *testing.T) {
		s := su.store(t)
		a := &registry.Account{Email: "Alice@Example.com", Username: "alice", PasswordHash: "$argon2id$hash", CreatedAt: t0.In(cet)}
		if err := s.CreateAccount(ctx(), a); err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		if a.ID == 0 {
			t.Fatal("CreateAccount did not set ID")
		}
		lookups := []struct {
			name string
			get  func() (*registry.Account, error)
		}{
			{"by id", func() (*registry.Account, error) { return s.AccountByID(ctx(), a.ID) }},
			{"by username", func() (*registry.Account, error) { return s.AccountByUsername(ctx(), "alice") }},
			{"by username in other case", func() (*registry.Account, error) { return s.AccountByUsername(ctx(), "ALICE") }},
			{"by email", func() (*registry.Account, error) { return s.AccountByEmail(ctx(), "Alice@Example.com") }},
			{"by email in other case", func() (*registry.Account, error) { return s.AccountByEmail(ctx(), "alice@EXAMPLE.COM") }},
		}
		for _, l := range lookups {
			got, err := l.get()
			if err != nil {
				t.Fatalf("%s: %v", l.name, err)
			}
			if got.ID != a.ID || got.Email != "Alice@Example.com" || got.Username != "alice" || got.PasswordHash != "$argon2id$hash" {
				t.Errorf("%s: got %+v, want %+v", l.name, got, a)
			}
			wantTime(t, l.name+": CreatedAt", got.CreatedAt, t0)
		}
	})

	t.Run("accounts get distinct ids", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		if alice.ID == bob.ID {
			t.Fatalf("alice and bob share id %d", alice.ID)
		}
		got, err := s.AccountByID(ctx(), bob.ID)
		if err != nil || got.Username != "bob" {
			t.Fatalf("AccountByID(bob) = %+v, %v", got, err)
		}
	})

	t.Run("taken username or email is a conflict", func(t *testing.T) {
		cases := []struct {
			name, username, email, mention string
		}{
			{"same username", "alice", "other@example.com", "username alice is taken"},
			{"username in other case", "Alice", "other@example.com", "username Alice is taken"},
			{"same email", "other", "alice@example.com", "alice@example.com"},
			{"email in other case", "other", "ALICE@example.COM", "ALICE@example.COM"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := su.store(t)
				createAccount(t, s, "alice")
				err := s.CreateAccount(ctx(), &registry.Account{Username: c.username, Email: c.email, CreatedAt: t0})
				wantCode(t, "CreateAccount", err, registry.Conflict)
				wantMessage(t, "CreateAccount", err, c.mention)
				if _, err := s.AccountByEmail(ctx(), "other@example.com"); !registry.IsCode(err, registry.NotFound) {
					t.Errorf("the refused account was stored (AccountByEmail error %v)", err)
				}
				if _, err := s.AccountByUsername(ctx(), "other"); !registry.IsCode(err, registry.NotFound) {
					t.Errorf("the refused account was stored (AccountByUsername error %v)", err)
				}
			})
		}
	})

	t.Run("missing accounts are not found", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		cases := []struct {
			name string
			get  func() (*registry.Account, error)
		}{
			{"by id", func() (*registry.Account, error) { return s.AccountByID(ctx(), alice.ID+1000) }},
			{"by username", func() (*registry.Account, error) { return s.AccountByUsername(ctx(), "bob") }},
			{"by username prefix", func() (*registry.Account, error) { return s.AccountByUsername(ctx(), "alic") }},
			{"by email", func() (*registry.Account, error) { return s.AccountByEmail(ctx(), "bob@example.com") }},
		}
		for _, c := range cases {
			got, err := c.get()
			if got != nil {
				t.Errorf("%s: got %+v, want none", c.name, got)
			}
			wantCode(t, c.name, err, registry.NotFound)
		}
	})
}
