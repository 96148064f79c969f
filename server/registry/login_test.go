package registry_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// Logging in as a user who does not exist must cost the same password
// hashing as a wrong password for one who does, or response times would
// tell which usernames exist. The bound is loose (3x) because the gap it
// guards against is hundreds of times.
func TestLoginCostsTheSameForUnknownUsers(t *testing.T) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, storetest.SQLiteDSN(t), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc := registry.NewService(store, registry.Options{})
	if _, err := svc.CreateAccount(ctx, "alice@example.com", "alice", "correct horse"); err != nil {
		t.Fatal(err)
	}
	median := func(login string) time.Duration {
		var runs []time.Duration
		for i := 0; i < 9; i++ {
			start := time.Now()
			if _, err := svc.Login(ctx, login, "wrong password"); registry.ErrorCode(err) != registry.Unauthorized {
				t.Fatalf("Login(%q) with a wrong password: %v", login, err)
			}
			runs = append(runs, time.Since(start))
		}
		slices.Sort(runs)
		return runs[len(runs)/2]
	}
	known, unknown, unknownEmail := median("alice"), median("nobody"), median("nobody@example.com")
	for name, d := range map[string]time.Duration{"unknown username": unknown, "unknown email": unknownEmail} {
		if d*3 < known || d > known*3 {
			t.Errorf("%s: median %v, known user with a wrong password: %v; want them within 3x", name, d, known)
		}
	}
	if acct, err := svc.Login(ctx, "ALICE", "correct horse"); err != nil || acct.Username != "alice" {
		t.Errorf("Login with the right password = %v, %v", acct, err)
	}
}
