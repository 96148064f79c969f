package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func (su suite) testPasskeys(t *testing.T) {
	t.Run("a passkey is stored, found by its credential id, and used", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		p := &registry.Passkey{AccountID: alice.ID, CredentialID: []byte{1, 2, 3}, PublicKey: []byte{4, 5}, SignCount: 7,
			Transports: []string{"internal", "hybrid"}, Name: "Laptop", Record: []byte(`{"id":"AQID"}`), CreatedAt: t0.In(cet)}
		if err := s.CreatePasskey(ctx(), p); err != nil {
			t.Fatalf("CreatePasskey: %v", err)
		}
		if p.ID == 0 {
			t.Fatal("CreatePasskey did not set ID")
		}
		got, err := s.PasskeyByCredentialID(ctx(), []byte{1, 2, 3})
		if err != nil {
			t.Fatalf("PasskeyByCredentialID: %v", err)
		}
		if got.ID != p.ID || got.AccountID != alice.ID || !bytes.Equal(got.PublicKey, p.PublicKey) || got.SignCount != 7 ||
			len(got.Transports) != 2 || got.Transports[1] != "hybrid" || got.Name != "Laptop" || string(got.Record) != `{"id":"AQID"}` || got.LastUsedAt != nil {
			t.Errorf("PasskeyByCredentialID = %+v, want %+v", got, p)
		}
		wantTime(t, "CreatedAt", got.CreatedAt, t0)
		if err := s.UsePasskey(ctx(), p.ID, 8, at(5).In(cet)); err != nil {
			t.Fatalf("UsePasskey: %v", err)
		}
		keys, err := s.ListPasskeys(ctx(), alice.ID)
		if err != nil || len(keys) != 1 || keys[0].SignCount != 8 || keys[0].LastUsedAt == nil {
			t.Fatalf("ListPasskeys after a use = %+v, %v", keys, err)
		}
		wantTime(t, "LastUsedAt", *keys[0].LastUsedAt, at(5))
		_, err = s.PasskeyByCredentialID(ctx(), []byte{9})
		wantCode(t, "unknown credential", err, registry.NotFound)
	})

	t.Run("a credential id is registered once, by any account", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		if err := s.CreatePasskey(ctx(), &registry.Passkey{AccountID: alice.ID, CredentialID: []byte{1}, PublicKey: []byte{1}, Name: "a", Record: []byte("{}"), CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		err := s.CreatePasskey(ctx(), &registry.Passkey{AccountID: bob.ID, CredentialID: []byte{1}, PublicKey: []byte{2}, Name: "b", Record: []byte("{}"), CreatedAt: t0})
		wantCode(t, "the same credential id", err, registry.Conflict)
	})

	t.Run("keepOne refuses the last passkey, even to two removals at once", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		var ids []int64
		for i := byte(1); i <= 2; i++ {
			p := &registry.Passkey{AccountID: alice.ID, CredentialID: []byte{i}, PublicKey: []byte{i}, Name: "k", Record: []byte("{}"), CreatedAt: t0}
			if err := s.CreatePasskey(ctx(), p); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		wantCode(t, "another account's passkey", registry.RemovePasskey(ctx(), s, bob.ID, ids[0], false, false), registry.NotFound)
		// The window two removals at once can slip through is narrow:
		// they race on fresh accounts a few times over first.
		for r := range 16 {
			racer := createAccount(t, s, fmt.Sprintf("racer%d", r))
			var both []int64
			for i := byte(1); i <= 2; i++ {
				p := &registry.Passkey{AccountID: racer.ID, CredentialID: []byte{byte(r), i, 9}, PublicKey: []byte{i}, Name: "k", Record: []byte("{}"), CreatedAt: t0}
				if err := s.CreatePasskey(ctx(), p); err != nil {
					t.Fatal(err)
				}
				both = append(both, p.ID)
			}
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i := range both {
				wg.Go(func() { errs[i] = registry.RemovePasskey(ctx(), s, racer.ID, both[i], true, false) })
			}
			wg.Wait()
			if keys, _ := s.ListPasskeys(ctx(), racer.ID); len(keys) != 1 || (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("round %d: two removals with keepOne answered %v, %v and left %d passkeys; want one Conflict and 1 left", r, errs[0], errs[1], len(keys))
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range ids {
			wg.Go(func() { errs[i] = registry.RemovePasskey(ctx(), s, alice.ID, ids[i], true, false) })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two removals with keepOne: %v, %v; want one to pass and one Conflict", errs[0], errs[1])
		}
		keys, _ := s.ListPasskeys(ctx(), alice.ID)
		if len(keys) != 1 {
			t.Fatalf("%d passkeys left, want 1", len(keys))
		}
		if err := s.ReplaceRecoveryCodes(ctx(), alice.ID, [][]byte{tokenHash("a")}, t0); err != nil {
			t.Fatal(err)
		}
		if err := registry.SetRequireSecondFactor(ctx(), s, alice.ID, true); err != nil {
			t.Fatal(err)
		}
		if err := registry.RemovePasskey(ctx(), s, alice.ID, keys[0].ID, false, true); err != nil {
			t.Fatalf("the last one without keepOne: %v", err)
		}
		// The second factor went with it, in the same transaction.
		if a, err := s.AccountByID(ctx(), alice.ID); err != nil || a.RequireSecondFactor {
			t.Errorf("after removing the last passkey with secondFactorOff: %+v, %v", a, err)
		}
		if n, err := s.CountRecoveryCodes(ctx(), alice.ID); err != nil || n != 0 {
			t.Errorf("recovery codes left after the second factor went: %d, %v", n, err)
		}
	})

	t.Run("recovery codes are used once, and go with the second factor", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		if err := s.ReplaceRecoveryCodes(ctx(), alice.ID, [][]byte{tokenHash("a"), tokenHash("b")}, t0); err != nil {
			t.Fatal(err)
		}
		if err := registry.SetRequireSecondFactor(ctx(), s, alice.ID, true); err != nil {
			t.Fatal(err)
		}
		a, err := s.AccountByID(ctx(), alice.ID)
		if err != nil || !a.RequireSecondFactor {
			t.Fatalf("AccountByID after SetRequireSecondFactor(true) = %+v, %v", a, err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { errs[i] = s.UseRecoveryCode(ctx(), alice.ID, tokenHash("a")) })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two uses of one code: %v, %v; want one to pass and one NotFound", errs[0], errs[1])
		}
		if n, err := s.CountRecoveryCodes(ctx(), alice.ID); err != nil || n != 1 {
			t.Fatalf("CountRecoveryCodes = %d, %v; want 1", n, err)
		}
		if err := s.ReplaceRecoveryCodes(ctx(), alice.ID, [][]byte{tokenHash("c")}, t0); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "a replaced code", s.UseRecoveryCode(ctx(), alice.ID, tokenHash("b")), registry.NotFound)
		if err := registry.SetRequireSecondFactor(ctx(), s, alice.ID, false); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountRecoveryCodes(ctx(), alice.ID); n != 0 {
			t.Errorf("%d recovery codes after turning the second factor off, want 0", n)
		}
	})

	t.Run("a ceremony is taken once, until it expires", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		c := &registry.Ceremony{Hash: tokenHash("c1"), Kind: registry.CeremonySecondFactor, AccountID: alice.ID, CreatedAt: t0, ExpiresAt: at(5)}
		if err := registry.CreateCeremony(ctx(), s, c, 10); err != nil {
			t.Fatalf("CreateCeremony: %v", err)
		}
		got, err := s.CeremonyByHash(ctx(), tokenHash("c1"), at(4))
		if err != nil || got.AccountID != alice.ID || got.Kind != registry.CeremonySecondFactor || got.Session != nil {
			t.Fatalf("CeremonyByHash = %+v, %v", got, err)
		}
		if err := s.SetCeremonySession(ctx(), tokenHash("c1"), []byte(`{"challenge":"x"}`), at(4)); err != nil {
			t.Fatalf("SetCeremonySession: %v", err)
		}
		_, err = s.CeremonyByHash(ctx(), tokenHash("c1"), at(5))
		wantCode(t, "an expired ceremony", err, registry.NotFound)
		got, err = s.TakeCeremony(ctx(), tokenHash("c1"), at(4))
		if err != nil || string(got.Session) != `{"challenge":"x"}` {
			t.Fatalf("TakeCeremony = %+v, %v", got, err)
		}
		_, err = s.TakeCeremony(ctx(), tokenHash("c1"), at(4))
		wantCode(t, "a ceremony taken twice", err, registry.NotFound)

		login := &registry.Ceremony{Hash: tokenHash("c2"), Kind: registry.CeremonyLogin, Session: []byte("{}"), CreatedAt: t0, ExpiresAt: at(5)}
		if err := registry.CreateCeremony(ctx(), s, login, 10); err != nil {
			t.Fatalf("CreateCeremony without an account: %v", err)
		}
		_, err = s.TakeCeremony(ctx(), tokenHash("c2"), at(6))
		wantCode(t, "taking an expired ceremony", err, registry.NotFound)
	})

	t.Run("log-ins waiting are bounded per account, the oldest giving way", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		waiting := func(acct *registry.Account, h string, minute int) {
			t.Helper()
			c := &registry.Ceremony{Hash: tokenHash(h), Kind: registry.CeremonySecondFactor, AccountID: acct.ID, CreatedAt: at(minute), ExpiresAt: at(minute + 5)}
			if err := registry.CreateCeremony(ctx(), s, c, 2); err != nil {
				t.Fatalf("CreateCeremony(%s): %v", h, err)
			}
		}
		waiting(bob, "bob 1", 0)
		for i, h := range []string{"alice 1", "alice 2", "alice 3"} {
			waiting(alice, h, i)
		}
		for h, want := range map[string]bool{"alice 1": false, "alice 2": true, "alice 3": true, "bob 1": true} {
			_, err := s.CeremonyByHash(ctx(), tokenHash(h), at(3))
			if (err == nil) != want {
				t.Errorf("%s waiting: %v, want %v", h, err == nil, want)
			}
		}
	})

	t.Run("a challenge is spent once, until it expires", func(t *testing.T) {
		s := su.store(t)
		if err := s.SpendChallenge(ctx(), tokenHash("challenge"), t0, at(5)); err != nil {
			t.Fatalf("SpendChallenge: %v", err)
		}
		wantCode(t, "a challenge spent twice", s.SpendChallenge(ctx(), tokenHash("challenge"), at(1), at(5)), registry.Conflict)
		if err := s.SpendChallenge(ctx(), tokenHash("challenge"), at(5), at(10)); err != nil {
			t.Fatalf("SpendChallenge once the first spend expired: %v", err)
		}
	})

	t.Run("a server secret is stored once and read by all", func(t *testing.T) {
		s := su.store(t)
		first, err := s.ServerSecret(ctx(), "key", []byte("first"), t0)
		if err != nil || string(first) != "first" {
			t.Fatalf("ServerSecret = %q, %v", first, err)
		}
		again, err := s.ServerSecret(ctx(), "key", []byte("second"), at(1))
		if err != nil || string(again) != "first" {
			t.Fatalf("ServerSecret with another fresh one = %q, %v; want the first", again, err)
		}
		other, err := s.ServerSecret(ctx(), "other", []byte("second"), at(1))
		if err != nil || string(other) != "second" {
			t.Fatalf("ServerSecret of another name = %q, %v", other, err)
		}
	})
}
