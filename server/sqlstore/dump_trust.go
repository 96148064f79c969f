package sqlstore

import (
	"context"
	"database/sql"
	"time"
)

// Trusted publishers and spent ID token jtis in a dump (format version 3,
// added without changing the version: a dump without them restores with
// none, which is what a registry had before them). A restored registry
// keeps refusing the ID tokens exchanged before the dump.

func init() {
	tables = append(tables,
		table{"trusted_publishers", "trusted_publisher", "trusted publishers", trustedPublisherColumns, `id`, true,
			func() record { return new(trustedPublisherRecord) }, func(c *BackupCounts) *int64 { return &c.TrustedPublishers }},
		table{"oidc_jtis", "oidc_jti", "spent ID token jtis", `issuer, jti, expires_at`, `issuer, jti`, false,
			func() record { return new(jtiRecord) }, func(c *BackupCounts) *int64 { return &c.SpentJTIs }},
	)
}

type trustedPublisherRecord struct {
	typed
	ID        int64     `json:"id"`
	AccountID int64     `json:"account_id"`
	Issuer    string    `json:"issuer"`
	Packages  string    `json:"packages"` // globs separated by single spaces
	Claims    string    `json:"claims"`   // a JSON object of strings
	CreatedAt time.Time `json:"created_at"`
	// ExpiresAt, CreatedBy (an account id) and CreatedByToken (a token
	// id) say until when it lasts and who made it; absent when null, as
	// in dumps made before they were kept.
	ExpiresAt      *time.Time `json:"expires_at,omitempty"`
	CreatedBy      *int64     `json:"created_by,omitempty"`
	CreatedByToken *int64     `json:"created_by_token,omitempty"`
}

func (r *trustedPublisherRecord) dest() []any {
	return []any{&r.ID, &r.AccountID, &r.Issuer, &r.Packages, &r.Claims, &r.CreatedAt, &r.ExpiresAt, &r.CreatedBy, &r.CreatedByToken}
}
func (r *trustedPublisherRecord) args() []any {
	return []any{r.ID, r.AccountID, r.Issuer, r.Packages, r.Claims, r.CreatedAt.UTC(), nullableUTC(r.ExpiresAt), nullable(r.CreatedBy),
		nullable(r.CreatedByToken)}
}
func (r *trustedPublisherRecord) normalize() {
	r.CreatedAt = r.CreatedAt.UTC()
	utcPtr(r.ExpiresAt)
}
func (r *trustedPublisherRecord) getID() int64 { return r.ID }

type jtiRecord struct {
	typed
	Issuer    string    `json:"issuer"`
	JTI       string    `json:"jti"`
	ExpiresAt time.Time `json:"expires_at"`
}

func (r *jtiRecord) dest() []any  { return []any{&r.Issuer, &r.JTI, &r.ExpiresAt} }
func (r *jtiRecord) args() []any  { return []any{r.Issuer, r.JTI, r.ExpiresAt.UTC()} }
func (r *jtiRecord) normalize()   { r.ExpiresAt = r.ExpiresAt.UTC() }
func (r *jtiRecord) getID() int64 { return 0 }

// fillTrustMakers gives the trusted publishers of a dump made before their
// maker was kept what the migration that keeps it gives them
// (0014_grants_within_their_maker.sql): a user's own were made by the user.
func (s *Store) fillTrustMakers(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE trusted_publishers SET created_by = account_id
WHERE created_by IS NULL AND account_id IN (SELECT id FROM accounts WHERE kind = 'user')`)
	return s.fault("restore: the makers of trusted publishers", err)
}
