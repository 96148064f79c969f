package sqlstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// Passkeys survive a dump and restore, across engines: the account's
// second factor, its passkeys (with their counters) and its unused
// recovery codes. Without them a user who requires a second factor would
// be locked out of a restored registry.
func TestDumpRestoreKeepsPasskeys(t *testing.T) {
	acrossEngines(t, []string{"alice"}, func(t *testing.T, source *sqlstore.Store, accounts []*registry.Account, to newDSN) {
		ctx := context.Background()
		now := dumpTime
		alice := accounts[0]
		key := &registry.Passkey{AccountID: alice.ID, CredentialID: []byte{0, 1, 255}, PublicKey: []byte{9, 8, 7}, SignCount: 3,
			Transports: []string{"internal"}, Name: "Laptop", Record: []byte(`{"flags":{"userPresent":true}}`), CreatedAt: now}
		if err := source.CreatePasskey(ctx, key); err != nil {
			t.Fatal(err)
		}
		if err := source.UsePasskey(ctx, key.ID, 4, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		code := sha256.Sum256([]byte("abcdabcdabcdabcd"))
		if err := source.ReplaceRecoveryCodes(ctx, alice.ID, [][]byte{code[:]}, now); err != nil {
			t.Fatal(err)
		}
		if err := registry.SetRequireSecondFactor(ctx, source, alice.ID, true); err != nil {
			t.Fatal(err)
		}
		// A ceremony under way is not dumped.
		if err := registry.CreateCeremony(ctx, source, &registry.Ceremony{Hash: []byte("h"), Kind: registry.CeremonyLogin, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}, 10); err != nil {
			t.Fatal(err)
		}
		counts, target := roundTrip(t, source, to, `"require_second_factor":true`, `"type":"passkey"`, `"type":"recovery_code"`)
		if counts.Passkeys != 1 || counts.RecoveryCodes != 1 {
			t.Errorf("Restore counts %s, want 1 passkey and 1 recovery code", counts)
		}
		acct, err := target.AccountByUsername(ctx, "alice")
		if err != nil || !acct.RequireSecondFactor {
			t.Fatalf("restored alice = %+v, %v", acct, err)
		}
		got, err := target.PasskeyByCredentialID(ctx, []byte{0, 1, 255})
		if err != nil || got.SignCount != 4 || got.LastUsedAt == nil || !bytes.Equal(got.PublicKey, key.PublicKey) || string(got.Record) != string(key.Record) {
			t.Fatalf("restored passkey = %+v, %v", got, err)
		}
		if err := target.UseRecoveryCode(ctx, acct.ID, code[:]); err != nil {
			t.Errorf("the restored recovery code: %v", err)
		}
		// Restore set the sequence past the restored id.
		if err := target.CreatePasskey(ctx, &registry.Passkey{AccountID: acct.ID, CredentialID: []byte{2}, PublicKey: []byte{2}, Name: "Phone", Record: []byte("{}"), CreatedAt: now}); err != nil {
			t.Errorf("a new passkey after restore: %v", err)
		}
	})
}
