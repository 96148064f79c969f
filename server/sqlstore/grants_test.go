package sqlstore_test

import (
	"context"
	"testing"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// Trusted publishers stored before their maker was kept: a user's own were
// made by the user; an organisation's have no known maker, so no member's
// removal takes them. Both last until removed.
func TestMigrationGivesAUsersTrustedPublishersTheirMaker(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			const ts = `'2026-02-03 04:05:06+00:00'`
			err := sqlstore.MigrateTo(context.Background(), dsn, 13,
				`INSERT INTO accounts (id, email, username, created_at) VALUES (1, 'alice@example.com', 'alice', `+ts+`)`,
				`INSERT INTO accounts (id, email, username, created_at, kind) VALUES (2, '', 'acme', `+ts+`, 'org')`,
				`INSERT INTO org_members (org_id, account_id, role, created_at) VALUES (2, 1, 'owner', `+ts+`)`,
				`INSERT INTO trusted_publishers (id, account_id, issuer, packages, claims, created_at)
VALUES (1, 1, 'https://gitlab.com', 'widget', '{"project_path":"alice/widget"}', `+ts+`)`,
				`INSERT INTO trusted_publishers (id, account_id, issuer, packages, claims, created_at)
VALUES (2, 2, 'https://gitlab.com', '*', '{"project_path":"acme/widget"}', `+ts+`)`,
			)
			if err != nil {
				t.Fatalf("storing rows under schema 13: %v", err)
			}
			s := open(t, dsn, sqlstore.Options{})
			own, err := s.ListTrustedPublishers(context.Background(), 1)
			if err != nil || len(own) != 1 || own[0].CreatedBy == nil || *own[0].CreatedBy != (registry.Maker{AccountID: 1, Username: "alice"}) || own[0].ExpiresAt != nil {
				t.Errorf("alice's trusted publishers: %+v, %v; want made by alice, lasting", own, err)
			}
			org, err := s.ListTrustedPublishers(context.Background(), 2)
			if err != nil || len(org) != 1 || org[0].CreatedBy != nil || org[0].ExpiresAt != nil {
				t.Errorf("acme's trusted publishers: %+v, %v; want no maker, lasting", org, err)
			}
		})
	}
}
