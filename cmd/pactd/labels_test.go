package main_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// The admin commands store labels through the same rules as the web: a
// token name or email with a control character or a bidirectional
// override is refused, naming the field, and nothing is stored.
func TestAdminCommandsRefuseHostileLabels(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		migrated(t, dsn)
		r := pactd(t, nil, "long enough\n", "user", "create", "--db", dsn, "--email", "alice@example.com", "--username", "alice", "--password-stdin")
		if r.code != 0 {
			t.Fatalf("user create: %d %s", r.code, r.stderr)
		}
		cases := []struct {
			name  string
			stdin string
			args  []string
			want  string
		}{
			{"token name with an escape sequence", "", []string{"token", "create", "--db", dsn, "--user", "alice", "--name", "ci\x1b[2J"},
				"token name must not contain control characters or bidirectional formatting characters: found U+001B at character 3"},
			{"token name with a right-to-left override", "", []string{"token", "create", "--db", dsn, "--user", "alice", "--name", "ci\u202Edm"},
				"token name must not contain control characters"},
			{"email with a right-to-left override", "long enough\n", []string{"user", "create", "--db", dsn, "--email", "a\u202Eb@example.com", "--username", "mallory", "--password-stdin"},
				"email must not contain control characters"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := pactd(t, nil, tc.stdin, tc.args...)
				if r.code != 1 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
					t.Errorf("code %d (want 1), stdout %q (want none), stderr %q (want it to hold %q)", r.code, r.stdout, r.stderr, tc.want)
				}
				if strings.ContainsAny(r.stderr, "\x1b\u202E") {
					t.Errorf("stderr repeats the hostile character: %q", r.stderr)
				}
			})
		}
		ctx := context.Background()
		store, err := sqlstore.Open(ctx, dsn, sqlstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		alice, err := store.AccountByUsername(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if tokens, err := store.ListTokens(ctx, alice.ID, registry.TokenFilter{}); err != nil || len(tokens) != 0 {
			t.Errorf("tokens %+v, %v; want none", tokens, err)
		}
		if _, err := store.AccountByUsername(ctx, "mallory"); registry.ErrorCode(err) != registry.NotFound {
			t.Errorf("the account with a hostile email exists: %v", err)
		}
	})
}
