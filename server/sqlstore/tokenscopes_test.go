package sqlstore_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/sqlstore"
)

// A dump of format version 2 holds tokens without scopes: restored, they
// keep every scope and every pack, as the migration leaves tokens made
// before it. Scopes in such a dump are refused: version 2 had none.
func TestRestoreVersion2TokensKeepFullPower(t *testing.T) {
	hash := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	v2 := func(extra string) string {
		return strings.Join([]string{
			`{"format":"pact-dump","version":2,"created_at":"2026-02-03T05:00:00Z","source":"sqlite"}`,
			`{"type":"account","id":1,"email":"alice@example.com","username":"alice","password_hash":"","created_at":"2026-02-03T04:05:06Z"}`,
			`{"type":"token","id":7,"account_id":1,"name":"old","hash":"` + hash + `","created_at":"2026-02-03T04:05:06Z","last_used_at":null,"expires_at":null,"revoked_at":null` + extra + `}`,
			`{"type":"end","counts":{"accounts":1,"tokens":1,"ssh_keys":0,"packages":0,"versions":0,"nonces":0,"sessions":0}}`,
		}, "\n") + "\n"
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{})
			if _, err := s.Restore(context.Background(), strings.NewReader(v2(`,"scopes":"publish"`))); err == nil ||
				!strings.Contains(err.Error(), "not part of format version 2") {
				t.Fatalf("Restore of a version 2 dump with scopes: %v, want it refused", err)
			}
			if _, err := s.Restore(context.Background(), strings.NewReader(v2(""))); err != nil {
				t.Fatalf("Restore of a version 2 dump: %v", err)
			}
			tok, err := s.TokenByID(context.Background(), 7)
			if err != nil {
				t.Fatalf("TokenByID: %v", err)
			}
			if tok.Scopes != nil || tok.Packages != nil || !tok.FullPower() {
				t.Errorf("restored token has scopes %q and packages %q, want nil and nil (full power)", tok.Scopes, tok.Packages)
			}
			if !strings.Contains(string(dump(t, s)), `"scopes":null,"packages":null`) {
				t.Errorf("dumped again, the token does not carry null scopes and packages")
			}
		})
	}
}

// A token stored before migration 0004 keeps every scope and every pack.
func TestMigrationKeepsOlderTokensFullPower(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			hash := "X'" + hex.EncodeToString([]byte("0123456789abcdef0123456789abcdef")) + "'"
			if b.name == "postgres" {
				hash = `'\x` + hex.EncodeToString([]byte("0123456789abcdef0123456789abcdef")) + `'::bytea`
			}
			const ts = `'2026-02-03 04:05:06+00:00'`
			err := sqlstore.MigrateTo(context.Background(), dsn, 2,
				`INSERT INTO accounts (id, email, username, created_at) VALUES (1, 'alice@example.com', 'alice', `+ts+`)`,
				`INSERT INTO tokens (id, account_id, name, hash, created_at) VALUES (5, 1, 'old', `+hash+`, `+ts+`)`)
			if err != nil {
				t.Fatalf("storing a token under the schema before scopes: %v", err)
			}
			s := open(t, dsn, sqlstore.Options{})
			tok, err := s.TokenByID(context.Background(), 5)
			if err != nil {
				t.Fatalf("TokenByID: %v", err)
			}
			if tok.Scopes != nil || tok.Packages != nil || tok.Name != "old" {
				t.Errorf("migrated token = %+v, want nil scopes and packages (every scope, every pack)", tok)
			}
		})
	}
}
