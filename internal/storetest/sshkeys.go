package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func keyNames(keys []registry.SSHKey) []string {
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
	}
	return names
}

func (su suite) testSSHKeys(t *testing.T) {
	t.Run("created key is found by its fingerprint", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		k := &registry.SSHKey{AccountID: alice.ID, Name: "laptop", Type: "ssh-ed25519", Fingerprint: fingerprint("k"),
			PublicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJ", CreatedAt: t0.In(cet)}
		if err := registry.CreateSSHKey(ctx(), s, k, alice.Username); err != nil {
			t.Fatalf("CreateSSHKey: %v", err)
		}
		if k.ID == 0 {
			t.Fatal("CreateSSHKey did not set ID")
		}
		got, err := keyByFingerprint(t, s, fingerprint("k"))
		if err != nil {
			t.Fatalf("SSHKeyByFingerprint: %v", err)
		}
		if got.ID != k.ID || got.AccountID != alice.ID || got.Name != "laptop" || got.Type != "ssh-ed25519" ||
			got.Fingerprint != k.Fingerprint || got.PublicKey != k.PublicKey {
			t.Errorf("SSHKeyByFingerprint = %+v, want %+v", got, k)
		}
		wantTime(t, "CreatedAt", got.CreatedAt, t0)
		wantOptionalTime(t, "LastUsedAt", got.LastUsedAt, nil)

		_, err = keyByFingerprint(t, s, fingerprint("other"))
		wantCode(t, "SSHKeyByFingerprint of an unknown key", err, registry.NotFound)

		// KeyHolder's account is the account as AccountByID reads it.
		_, holder, err := s.KeyHolder(ctx(), fingerprint("k"))
		if err != nil {
			t.Fatalf("KeyHolder: %v", err)
		}
		byID, err := s.AccountByID(ctx(), alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%+v", holder) != fmt.Sprintf("%+v", byID) {
			t.Errorf("KeyHolder's account = %+v, want %+v", holder, byID)
		}
	})

	t.Run("a fingerprint is registered once across accounts", func(t *testing.T) {
		cases := []struct{ name, by string }{
			{"by the same account", "alice"},
			{"by another account", "bob"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := su.store(t)
				alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
				k := createKey(t, s, alice, "laptop", t0)
				by := map[string]*registry.Account{"alice": alice, "bob": bob}[c.by]
				copied := &registry.SSHKey{AccountID: by.ID, Name: "copy", Type: k.Type,
					Fingerprint: k.Fingerprint, PublicKey: k.PublicKey, CreatedAt: at(1)}
				err := registry.CreateSSHKey(ctx(), s, copied, by.Username)
				wantCode(t, "CreateSSHKey", err, registry.Conflict)
				wantMessage(t, "CreateSSHKey", err, k.Fingerprint, "registered already")
				keys, err := s.ListSSHKeys(ctx(), by.ID)
				if err != nil {
					t.Fatalf("ListSSHKeys: %v", err)
				}
				if slices.Contains(keyNames(keys), "copy") {
					t.Errorf("the refused key was stored")
				}
			})
		}
	})

	t.Run("key of a missing account is refused", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		ghost := &registry.SSHKey{AccountID: alice.ID + 1000, Name: "x", Type: "ssh-ed25519",
			Fingerprint: fingerprint("x"), PublicKey: "ssh-ed25519 AAAA", CreatedAt: t0}
		err := registry.CreateSSHKey(ctx(), s, ghost, "ghost")
		wantCode(t, "CreateSSHKey", err, registry.NotFound)
	})

	t.Run("an account's keys are listed oldest first", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		createKey(t, s, alice, "second", at(5))
		createKey(t, s, bob, "bobs", at(1))
		createKey(t, s, alice, "first", at(0))
		createKey(t, s, alice, "third", at(10))
		cases := []struct {
			name    string
			account int64
			want    []string
		}{
			{"alice", alice.ID, []string{"first", "second", "third"}},
			{"bob", bob.ID, []string{"bobs"}},
			{"an account without keys", bob.ID + 1000, nil},
		}
		for _, c := range cases {
			keys, err := s.ListSSHKeys(ctx(), c.account)
			if err != nil {
				t.Fatalf("%s: ListSSHKeys: %v", c.name, err)
			}
			if got := keyNames(keys); !slices.Equal(got, c.want) {
				t.Errorf("%s: ListSSHKeys = %q, want %q", c.name, got, c.want)
			}
		}
	})

	t.Run("deleting", func(t *testing.T) {
		s := su.store(t)
		alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
		k := createKey(t, s, alice, "laptop", t0)

		wantCode(t, "bob deletes alice's key", registry.RemoveSSHKey(ctx(), s, bob.ID, k.ID, at(9)), registry.NotFound)
		wantCode(t, "alice deletes a missing key", registry.RemoveSSHKey(ctx(), s, alice.ID, k.ID+1000, at(9)), registry.NotFound)
		if _, err := keyByFingerprint(t, s, k.Fingerprint); err != nil {
			t.Fatalf("the key is gone after refused deletions: %v", err)
		}

		if err := registry.RemoveSSHKey(ctx(), s, alice.ID, k.ID, at(9)); err != nil {
			t.Fatalf("alice deletes her key: %v", err)
		}
		_, err := keyByFingerprint(t, s, k.Fingerprint)
		wantCode(t, "SSHKeyByFingerprint of a deleted key", err, registry.NotFound)
		if keys, _ := s.ListSSHKeys(ctx(), alice.ID); len(keys) != 0 {
			t.Errorf("ListSSHKeys after delete = %q", keyNames(keys))
		}
		wantCode(t, "deleting again", registry.RemoveSSHKey(ctx(), s, alice.ID, k.ID, at(9)), registry.NotFound)

		// The fingerprint is free again, for anyone.
		again := &registry.SSHKey{AccountID: bob.ID, Name: "reused", Type: k.Type, Fingerprint: k.Fingerprint, PublicKey: k.PublicKey, CreatedAt: at(1)}
		if err := registry.CreateSSHKey(ctx(), s, again, bob.Username); err != nil {
			t.Fatalf("registering a deleted key's fingerprint: %v", err)
		}
	})

	t.Run("touching records last use", func(t *testing.T) {
		s := su.store(t)
		k := createKey(t, s, createAccount(t, s, "alice"), "laptop", t0)
		for _, minute := range []int{3, 7} {
			if err := s.TouchSSHKey(ctx(), k.ID, at(minute).In(cet)); err != nil {
				t.Fatalf("TouchSSHKey: %v", err)
			}
			got, err := keyByFingerprint(t, s, k.Fingerprint)
			if err != nil {
				t.Fatalf("SSHKeyByFingerprint: %v", err)
			}
			wantOptionalTime(t, "LastUsedAt", got.LastUsedAt, ptr(at(minute)))
		}
		wantCode(t, "TouchSSHKey of a missing key", s.TouchSSHKey(ctx(), k.ID+1000, at(9)), registry.NotFound)
	})
}

// keyByFingerprint reads a key through KeyHolder, the store's one way to
// find a key by its fingerprint, and checks that the account read with it
// is the key's.
func keyByFingerprint(t *testing.T, s registry.Store, fp string) (*registry.SSHKey, error) {
	t.Helper()
	key, holder, err := s.KeyHolder(ctx(), fp)
	if err == nil && holder.ID != key.AccountID {
		t.Errorf("KeyHolder: key of account %d read with account %d", key.AccountID, holder.ID)
	}
	return key, err
}
