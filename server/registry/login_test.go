package registry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// Logging in as a user who does not exist must cost the same password
// hashing as a wrong password for one who does, or response times would
// tell which usernames exist. The work is counted, not timed: every login
// checks exactly one argon2id hash of the same cost.
func TestLoginCostsTheSameForUnknownUsers(t *testing.T) {
	// At pactd's cost, and at the lower one the tests of pages and routes
	// set (Options.PasswordCost): the unknown account's hash follows it.
	for _, tc := range []struct {
		cost registry.PasswordCost
		want string
	}{
		{registry.PasswordCost{}, "$argon2id$v=19$m=19456,t=2,p=1"},
		{registry.PasswordCost{MemoryKiB: 64, Passes: 1}, "$argon2id$v=19$m=64,t=1,p=1"},
	} {
		t.Run(tc.want, func(t *testing.T) { loginCostsTheSame(t, tc.cost, tc.want) })
	}
}

func loginCostsTheSame(t *testing.T, passwordCost registry.PasswordCost, want string) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, storetest.SQLiteDSN(t), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var checked []string // the cost part of every hash checked
	svc := registry.NewService(store, registry.Options{PasswordCost: passwordCost, CheckPassword: func(encoded, password string) bool {
		checked = append(checked, hashCost(encoded))
		return registry.CheckPassword(encoded, password)
	}})
	if _, err := svc.CreateAccount(ctx, "alice@example.com", "alice", "correct horse"); err != nil {
		t.Fatal(err)
	}
	cost := func(login string) string {
		checked = nil
		if _, err := svc.Login(ctx, login, "wrong password"); registry.ErrorCode(err) != registry.Unauthorized {
			t.Fatalf("Login(%q) with a wrong password: %v", login, err)
		}
		if len(checked) != 1 {
			t.Fatalf("Login(%q) checked %d password hashes, want 1", login, len(checked))
		}
		return checked[0]
	}
	known := cost("alice")
	if known != want {
		t.Fatalf("the known user's hash is of cost %q, want %q", known, want)
	}
	for _, login := range []string{"nobody", "nobody@example.com", "alice@example.org"} {
		if got := cost(login); got != known {
			t.Errorf("Login(%q) checked a hash of cost %q, a known user's costs %q", login, got, known)
		}
	}
	checked = nil
	if acct, err := svc.Login(ctx, "ALICE", "correct horse"); err != nil || acct.Username != "alice" || len(checked) != 1 {
		t.Errorf("Login with the right password = %v, %v after %d checks", acct, err, len(checked))
	}
}

// hashCost is the algorithm, version and parameters of an encoded argon2id
// hash: "$argon2id$v=19$m=19456,t=2,p=1".
func hashCost(encoded string) string {
	parts := strings.Split(encoded, "$")
	if len(parts) < 4 {
		return encoded
	}
	return strings.Join(parts[:4], "$")
}
