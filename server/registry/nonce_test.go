package registry_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// A spent nonce is remembered for as long as its timestamp could still be
// accepted (±300 s), and forgotten after twice the window.
func TestNoncesArePrunedOnlyOnceTheyCannotBeReplayed(t *testing.T) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, storetest.SQLiteDSN(t), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	now := time.Unix(1_900_000_000, 0)
	svc := registry.NewService(store, registry.Options{Now: func() time.Time { return now }})
	acct, err := svc.CreateAccount(ctx, "alice@example.com", "alice", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(priv)
	key, err := svc.AddSSHKey(ctx, acct.ID, string(ssh.MarshalAuthorizedKey(signer.PublicKey())), "laptop")
	if err != nil {
		t.Fatal(err)
	}
	// Signed with a timestamp 300 s in the future: the latest that is accepted.
	ts := now.Unix() + 300
	request := func(version string) registry.SignedPublishRequest {
		content := []byte("```yaml pact:pack\nname: n\nversion: " + version + "\n```\n")
		msg, _ := sshsign.Message(ts, "nonce-0123456789abcdef", content, "", "")
		sig, err := sshsign.Sign(signer, msg)
		if err != nil {
			t.Fatal(err)
		}
		return registry.SignedPublishRequest{PublishRequest: registry.PublishRequest{Content: content},
			Timestamp: ts, Nonce: "nonce-0123456789abcdef", Fingerprint: key.Fingerprint, Signature: sig}
	}
	if _, _, err := svc.PublishSigned(ctx, request("1.0")); err != nil {
		t.Fatal(err)
	}
	// Just before the timestamp leaves the window, the nonce must still be known.
	now = now.Add(599 * time.Second)
	if n, err := svc.PruneNonces(ctx); err != nil || n != 0 {
		t.Fatalf("PruneNonces while the nonce could be replayed = %d, %v; want 0", n, err)
	}
	if _, _, err := svc.PublishSigned(ctx, request("1.1")); registry.ErrorReason(err) != "nonce_reused" {
		t.Fatalf("replay within the window: %v, want the nonce refused", err)
	}
	now = now.Add(2 * time.Second)
	if n, err := svc.PruneNonces(ctx); err != nil || n != 1 {
		t.Fatalf("PruneNonces after twice the window = %d, %v; want 1", n, err)
	}
	if _, _, err := svc.PublishSigned(ctx, request("1.2")); registry.ErrorReason(err) != "timestamp" {
		t.Fatalf("replay after pruning: %v, want the stale timestamp refused", err)
	}
}
