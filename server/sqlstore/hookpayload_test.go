package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"filippo.io/torchwood"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// A delivery is claimed only once the tree holds its entry, so its body
// can always be made then, even when the checkpoint this process keeps a
// copy of is older: here another replica on the same database signed the
// covering checkpoint. (With a stopped clock, as in servertest, a
// delivery postponed "2 s" for a checkpoint was never sent: the flake of
// TestHookDeliveriesAreSignedAndProvable.)
func TestHookPayloadReadsTheCheckpointTheClaimSaw(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, svc, alice, _, _ := hookStore(t, b.dsn(t), sqlstore.Options{})
			other := registry.NewService(s, registry.Options{}) // another replica
			if err := other.InitLog(ctx, "hooks/log", ""); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SequenceLog(ctx); err != nil {
				t.Fatal(err)
			}
			at := time.Now().UTC().Truncate(time.Second)
			if err := publishIn(t, s, alice, "widget", "1.0.0", "# widget\n", at); err != nil {
				t.Fatal(err)
			}
			// This replica reads the checkpoint (and keeps it), then the
			// other one signs the next.
			if _, err := svc.LogCheckpoint(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := other.SequenceLog(ctx); err != nil {
				t.Fatal(err)
			}
			claims, err := svc.ClaimHookDeliveries(ctx, time.Minute, 10, 10)
			if err != nil || len(claims) != 2 {
				t.Fatalf("claims: %d, %v; want both hooks' deliveries", len(claims), err)
			}
			for _, c := range claims {
				entry, proof, err := svc.HookPayload(ctx, &c.Delivery)
				if err != nil {
					t.Fatalf("the body of delivery %d, whose entry the tree holds: %v", c.Delivery.ID, err)
				}
				if extra, err := torchwood.ProofExtraData([]byte(proof)); err != nil || !strings.Contains(entry, "\nkind publish\n") || string(extra) != entry {
					t.Errorf("delivery %d: entry %q, proof %q", c.Delivery.ID, entry, proof)
				}
			}
		})
	}
}

// gatedStore is the store, but once armed, its next LatestCheckpoint
// pauses after its read until release is closed, so a test can sign a
// checkpoint meanwhile.
type gatedStore struct {
	*sqlstore.Store
	armed   bool
	read    chan struct{}
	release chan struct{}
}

func (g *gatedStore) LatestCheckpoint(ctx context.Context) (int64, []byte, error) {
	size, signed, err := g.Store.LatestCheckpoint(ctx)
	if g.armed {
		g.armed = false
		close(g.read)
		<-g.release
	}
	return size, signed, err
}

// A checkpoint read while the sequencer signs a newer one is not kept
// after it: the checkpoint served covers every entry the sequencer has
// signed, at once (LogCheckpointCovering relies on it).
func TestCheckpointReadDuringSigningIsNotKept(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, _, alice, _, _ := hookStore(t, b.dsn(t), sqlstore.Options{})
			g := &gatedStore{Store: s, read: make(chan struct{}), release: make(chan struct{})}
			svc := registry.NewService(g, registry.Options{})
			if err := svc.InitLog(ctx, "hooks/log", ""); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SequenceLog(ctx); err != nil {
				t.Fatal(err)
			}
			if err := publishIn(t, s, alice, "widget", "1.0.0", "# widget\n", time.Now().UTC()); err != nil {
				t.Fatal(err)
			}
			// A request reads the checkpoint of the empty tree...
			done := make(chan error, 1)
			g.armed = true
			go func() { _, err := svc.LogCheckpoint(ctx); done <- err }()
			<-g.read
			// ...the sequencer signs one holding the entry...
			if size, err := svc.SequenceLog(ctx); err != nil || size < 1 {
				t.Fatalf("sequencing: %d, %v", size, err)
			}
			// ...and the request ends.
			close(g.release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if _, err := svc.LogProof(ctx, 0); err != nil {
				t.Errorf("the proof of the entry just signed: %v", err)
			}
		})
	}
}
