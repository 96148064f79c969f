package sqlstore_test

import (
	"context"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/sqlstore"
)

// Replicas on one PostgreSQL database push to the witnesses one at a time:
// while one Store's turn is under way, another Store on the same database
// (another pactd) does not get one; it does once the first has ended.
func TestWitnessTurnIsOneAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	a := open(t, dsn, sqlstore.Options{})
	b := open(t, dsn, sqlstore.Options{})
	ctx := context.Background()

	var bDuringA bool
	ran, err := a.WitnessTurn(ctx, func(ctx context.Context) error {
		var err error
		bDuringA, err = b.WitnessTurn(ctx, func(context.Context) error {
			t.Error("replica b pushed while replica a's turn was under way")
			return nil
		})
		return err
	})
	if !ran || err != nil || bDuringA {
		t.Fatalf("a's turn: ran %v, %v; b's turn during it ran %v", ran, err, bDuringA)
	}
	if ran, err := b.WitnessTurn(ctx, func(context.Context) error { return nil }); !ran || err != nil {
		t.Errorf("b's turn after a's: ran %v, %v", ran, err)
	}
	if ran, err := a.WitnessTurn(ctx, func(context.Context) error { return nil }); !ran || err != nil {
		t.Errorf("a's turn after b's: ran %v, %v", ran, err)
	}
}
