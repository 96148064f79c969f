package storetest

import (
	"bytes"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func (su suite) testSessions(t *testing.T) {
	t.Run("a session is found until it expires", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		sess := &registry.Session{AccountID: alice.ID, Hash: tokenHash("cookie"), CreatedAt: t0.In(cet), ExpiresAt: at(60).In(cet)}
		if err := registry.CreateSession(ctx(), s, sess); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		if sess.ID == 0 {
			t.Fatal("CreateSession did not set ID")
		}
		cases := []struct {
			name  string
			now   int // minutes after t0
			found bool
		}{
			{"at creation", 0, true},
			{"a minute before expiry", 59, true},
			{"at expiry", 60, false},
			{"after expiry", 61, false},
		}
		for _, c := range cases {
			got, err := s.SessionByHash(ctx(), tokenHash("cookie"), at(c.now))
			if !c.found {
				wantCode(t, c.name, err, registry.NotFound)
				continue
			}
			if err != nil {
				t.Fatalf("%s: SessionByHash: %v", c.name, err)
			}
			if got.ID != sess.ID || got.AccountID != alice.ID || !bytes.Equal(got.Hash, sess.Hash) {
				t.Errorf("%s: SessionByHash = %+v, want %+v", c.name, got, sess)
			}
			wantTime(t, c.name+": CreatedAt", got.CreatedAt, t0)
			wantTime(t, c.name+": ExpiresAt", got.ExpiresAt, at(60))
		}
	})

	t.Run("unknown hash is not found", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		if err := registry.CreateSession(ctx(), s, &registry.Session{AccountID: alice.ID, Hash: tokenHash("cookie"), CreatedAt: t0, ExpiresAt: at(60)}); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		_, err := s.SessionByHash(ctx(), tokenHash("guess"), t0)
		wantCode(t, "SessionByHash", err, registry.NotFound)
	})

	t.Run("a deleted session is gone", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		for _, cookie := range []string{"one", "two"} {
			if err := registry.CreateSession(ctx(), s, &registry.Session{AccountID: alice.ID, Hash: tokenHash(cookie), CreatedAt: t0, ExpiresAt: at(60)}); err != nil {
				t.Fatalf("CreateSession: %v", err)
			}
		}
		if err := s.DeleteSession(ctx(), tokenHash("one")); err != nil {
			t.Fatalf("DeleteSession: %v", err)
		}
		_, err := s.SessionByHash(ctx(), tokenHash("one"), at(1))
		wantCode(t, "SessionByHash of the deleted session", err, registry.NotFound)
		if _, err := s.SessionByHash(ctx(), tokenHash("two"), at(1)); err != nil {
			t.Errorf("the other session went too: %v", err)
		}
		if err := s.DeleteSession(ctx(), tokenHash("one")); err != nil {
			t.Errorf("deleting a deleted session (logging out twice): %v", err)
		}
	})

	t.Run("session of a missing account is refused", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		err := registry.CreateSession(ctx(), s, &registry.Session{AccountID: alice.ID + 1000, Hash: tokenHash("x"), CreatedAt: t0, ExpiresAt: at(60)})
		wantCode(t, "CreateSession", err, registry.NotFound)
	})
}
