package registry_test

import (
	"context"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// nearMisses are tokens that differ from secret in one character only (its
// last, one in the middle, the first after the prefix), or by one character
// missing or added at the end.
func nearMisses(secret string) map[string]string {
	change := func(i int) string {
		c := byte('A')
		if secret[i] == c {
			c = 'B'
		}
		return secret[:i] + string(c) + secret[i+1:]
	}
	return map[string]string{
		"last character changed":         change(len(secret) - 1),
		"middle character changed":       change(len(secret) / 2),
		"first random character changed": change(len(registry.TokenPrefix)),
		"last character missing":         secret[:len(secret)-1],
		"one character added":            secret + "A",
	}
}

// A token that is nearly right is refused like any other: the whole token
// counts, to its last character.
func TestNearlyRightTokensAreRefused(t *testing.T) {
	for _, backend := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", storetest.SQLiteDSN}, {"postgres", storetest.PostgresURL}} {
		t.Run(backend.name, func(t *testing.T) {
			ctx := context.Background()
			store, err := sqlstore.Open(ctx, backend.dsn(t), sqlstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			svc := registry.NewService(store, registry.Options{})
			acct, err := svc.CreateAccount(ctx, "alice@example.com", "alice", "correct horse")
			if err != nil {
				t.Fatal(err)
			}
			secret, _, err := svc.CreateToken(ctx, acct.ID, "laptop", nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, _, err := svc.AuthenticateToken(ctx, secret); err != nil || got.ID != acct.ID {
				t.Fatalf("AuthenticateToken(valid) = %v, %v", got, err)
			}
			for name, near := range nearMisses(secret) {
				got, _, err := svc.AuthenticateToken(ctx, near)
				if registry.ErrorCode(err) != registry.Unauthorized || got != nil {
					t.Errorf("%s: AuthenticateToken = %v, %v; want unauthorized", name, got, err)
				}
			}
		})
	}
}
