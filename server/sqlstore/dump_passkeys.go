package sqlstore

import "time"

// Passkeys in a dump (format version 3, added without changing the
// version): without them a restored registry would lock out every user who
// requires a second factor. The accounts' require_second_factor travels
// with the account; the passkeys and the unused recovery codes (as their
// SHA-256) are these tables. The ceremonies under way are not dumped: none
// lasts longer than five minutes. A dump made before passkeys restores
// with none.

func init() {
	tables = append(tables,
		table{"passkeys", "passkey", "passkeys", `id, account_id, credential_id, public_key, sign_count, transports, name, record, created_at, last_used_at`, `id`, true,
			func() record { return new(passkeyRecord) }, func(c *BackupCounts) *int64 { return &c.Passkeys }},
		table{"recovery_codes", "recovery_code", "recovery codes", `account_id, hash, created_at`, `account_id, hash`, false,
			func() record { return new(recoveryCodeRecord) }, func(c *BackupCounts) *int64 { return &c.RecoveryCodes }},
	)
}

type passkeyRecord struct {
	typed
	ID           int64      `json:"id"`
	AccountID    int64      `json:"account_id"`
	CredentialID []byte     `json:"credential_id"`
	PublicKey    []byte     `json:"public_key"`
	SignCount    int64      `json:"sign_count"`
	Transports   string     `json:"transports"`
	Name         string     `json:"name"`
	Record       string     `json:"record"` // go-webauthn's credential record, JSON
	CreatedAt    time.Time  `json:"created_at"`
	LastUsedAt   *time.Time `json:"last_used_at"`
}

func (r *passkeyRecord) dest() []any {
	return []any{&r.ID, &r.AccountID, &r.CredentialID, &r.PublicKey, &r.SignCount, &r.Transports, &r.Name, &r.Record, &r.CreatedAt, &r.LastUsedAt}
}
func (r *passkeyRecord) args() []any {
	return []any{r.ID, r.AccountID, r.CredentialID, r.PublicKey, r.SignCount, r.Transports, r.Name, r.Record, r.CreatedAt.UTC(), nullableUTC(r.LastUsedAt)}
}
func (r *passkeyRecord) normalize() {
	r.CreatedAt = r.CreatedAt.UTC()
	utcPtr(r.LastUsedAt)
}
func (r *passkeyRecord) getID() int64 { return r.ID }

type recoveryCodeRecord struct {
	typed
	AccountID int64     `json:"account_id"`
	Hash      []byte    `json:"hash"` // SHA-256 of the code; the code itself is never stored
	CreatedAt time.Time `json:"created_at"`
}

func (r *recoveryCodeRecord) dest() []any  { return []any{&r.AccountID, &r.Hash, &r.CreatedAt} }
func (r *recoveryCodeRecord) args() []any  { return []any{r.AccountID, r.Hash, r.CreatedAt.UTC()} }
func (r *recoveryCodeRecord) normalize()   { r.CreatedAt = r.CreatedAt.UTC() }
func (r *recoveryCodeRecord) getID() int64 { return 0 }
