package sqlstore_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// TestRestoreReadsFormatVersion2 loads a dump written before accounts could
// be disabled and sessions said where they came from: the accounts come
// back enabled, the sessions as last seen when they began.
func TestRestoreReadsFormatVersion2WithAccountsEnabled(t *testing.T) {
	v2 := strings.Join([]string{
		`{"format":"pact-dump","version":2,"created_at":"2026-02-03T05:00:00Z","source":"sqlite"}`,
		`{"type":"account","id":1,"email":"alice@example.com","username":"alice","password_hash":"","created_at":"2026-02-03T04:05:06Z"}`,
		`{"type":"session","id":1,"account_id":1,"hash":"c2Vzc2lvbi1oYXNoLTAxMjM0NTY3ODlhYmNkZWYwMTI=","created_at":"2026-02-03T04:05:06Z","expires_at":"2036-02-03T04:05:06Z"}`,
		`{"type":"end","counts":{"accounts":1,"tokens":0,"ssh_keys":0,"packages":0,"versions":0,"nonces":0,"sessions":1}}`,
	}, "\n") + "\n"
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{})
			if _, err := s.Restore(context.Background(), strings.NewReader(v2)); err != nil {
				t.Fatalf("Restore of a version 2 dump: %v", err)
			}
			again := dump(t, s)
			for _, want := range []string{`"version":3`, `"created_at":"2026-02-03T04:05:06Z","disabled_at":null}`,
				`"expires_at":"2036-02-03T04:05:06Z","last_seen_at":"2026-02-03T04:05:06Z","user_agent":"","ip":""}`} {
				if !bytes.Contains(again, []byte(want)) {
					t.Errorf("the dump after restoring version 2 lacks %s:\n%s", want, again)
				}
			}
			acct, err := s.AccountByUsername(context.Background(), "alice")
			if err != nil || acct.DisabledAt != nil {
				t.Errorf("alice after restoring version 2: %+v, %v; want her enabled", acct, err)
			}
		})
	}
	for _, c := range []struct{ name, from, to, message string }{
		{"disabled_at", `"created_at":"2026-02-03T04:05:06Z"}`, `"created_at":"2026-02-03T04:05:06Z","disabled_at":"2026-02-03T04:05:06Z"}`, "disabled_at is not part of format version 2"},
		{"user_agent", `"expires_at":"2036-02-03T04:05:06Z"}`, `"expires_at":"2036-02-03T04:05:06Z","user_agent":"curl/8"}`, "user_agent and ip are not part of format version 2"},
	} {
		t.Run("refuses "+c.name, func(t *testing.T) {
			s := open(t, backends[0].dsn(t), sqlstore.Options{})
			_, err := s.Restore(context.Background(), strings.NewReader(strings.Replace(v2, c.from, c.to, 1)))
			if registry.ErrorCode(err) != registry.Invalid || !strings.Contains(err.Error(), c.message) {
				t.Errorf("Restore of a version 2 dump with %s: %v", c.name, err)
			}
		})
	}
}
