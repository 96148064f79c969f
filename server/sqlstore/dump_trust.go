package sqlstore

import (
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
}

func (r *trustedPublisherRecord) dest() []any {
	return []any{&r.ID, &r.AccountID, &r.Issuer, &r.Packages, &r.Claims, &r.CreatedAt}
}
func (r *trustedPublisherRecord) args() []any {
	return []any{r.ID, r.AccountID, r.Issuer, r.Packages, r.Claims, r.CreatedAt.UTC()}
}
func (r *trustedPublisherRecord) normalize()   { r.CreatedAt = r.CreatedAt.UTC() }
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
