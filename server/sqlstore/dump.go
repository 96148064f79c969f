package sqlstore

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// A dump is JSON lines: a header, then one record per row, then an end
// record with the counts. It is the same whatever engine wrote it, so a dump
// of SQLite restores into PostgreSQL and back. Binary columns (document
// content, token and session hashes) are base64, so every byte survives.
//
//	{"format":"pact-dump","version":3,"created_at":"...","source":"sqlite"}
//	{"type":"account","id":1,"email":"alice@example.com",...}
//	...
//	{"type":"end","counts":{"accounts":1,...}}
//
// Version 2 added the signed lines and public key of signed versions, and
// keeps spent nonces by key fingerprint instead of key id. Restore still
// reads versions 1 and 2 (see restore.go).
//
// Version 3 added yanks (yanked_at and yank_reason of versions),
// deprecations (deprecated of packages), and the scopes and packages of
// tokens (null in older dumps: every scope, every pack), accounts'
// disabled_at and sessions' last_seen_at, user_agent and ip; restoring an older
// dump leaves nothing yanked or deprecated. Version 3 also added the
// transparency log (dump_translog.go) and each version's log_index, and
// later, without changing the version, packages' trusted_publishing_only
// (written only when on).
//
// The logins of the command line waiting in device_logins are not dumped:
// none lasts longer than ten minutes, and a restored registry starts
// without any (pact login begins again). Nor are the deliveries of
// webhooks waiting in hook_deliveries (dump_hooks.go).
const (
	DumpFormat  = "pact-dump"
	DumpVersion = 3
	// dumpVersion1 is the oldest format Restore reads.
	dumpVersion1 = 1
	// dumpVersion3 is the first with yanks, deprecations, token scopes,
	// disabled accounts and what sessions show.
	dumpVersion3 = 3
)

type dumpHeader struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	Source    string    `json:"source"` // the engine dumped: sqlite or postgres
}

// endRecord closes a dump; a file without it was cut short.
type endRecord struct {
	Type   string       `json:"type"`
	Counts BackupCounts `json:"counts"`
}

const endType = "end"

// BackupCounts says how many rows of each kind a dump or restore moved.
type BackupCounts struct {
	Accounts int64 `json:"accounts"`
	Tokens   int64 `json:"tokens"`
	SSHKeys  int64 `json:"ssh_keys"`
	Packages int64 `json:"packages"`
	Versions int64 `json:"versions"`
	Nonces   int64 `json:"nonces"`
	Sessions int64 `json:"sessions"`
	// The transparency log (version 3).
	LogEntries     int64 `json:"log_entries"`
	LogHashes      int64 `json:"log_hashes"`
	LogCheckpoints int64 `json:"log_checkpoints"`
	// Trusted publishing (dump_trust.go; version 3 dumps made before it
	// have none).
	TrustedPublishers int64 `json:"trusted_publishers"`
	SpentJTIs         int64 `json:"spent_jtis"`
	// Releases (dump_releases.go; version 3 dumps made before them have
	// none).
	Releases int64 `json:"releases"`
	// Organisations' members (dump_orgs.go).
	OrgMembers int64 `json:"org_members"`
	// Webhooks (dump_hooks.go), without their queue of deliveries.
	Hooks int64 `json:"hooks"`
	// Download counts (dump_downloads.go).
	Downloads int64 `json:"downloads"`
	// Passkeys and unused recovery codes (dump_passkeys.go).
	Passkeys      int64 `json:"passkeys"`
	RecoveryCodes int64 `json:"recovery_codes"`
}

func (c BackupCounts) String() string {
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = fmt.Sprintf("%s: %d", t.plural, *t.count(&c))
	}
	return strings.Join(parts, ", ")
}

// record is one row of a table as it travels in a dump.
type record interface {
	// dest points at the fields in column order, for Scan.
	dest() []any
	// args are the fields in column order, for INSERT.
	args() []any
	// normalize puts times in UTC, as the store hands them out.
	normalize()
	setType(string)
	getID() int64
}

// table describes one table of the dump. tables lists them parents first,
// so a restore meets every row after the rows it refers to.
type table struct {
	name    string // SQL table
	typ     string // the record's "type"
	plural  string // for messages
	columns string
	order   string // deterministic on both engines (see byteOrder)
	hasID   bool   // an identity/autoincrement id whose sequence restore sets
	new     func() record
	count   func(*BackupCounts) *int64
}

var tables = []table{
	{"accounts", "account", "accounts", `id, email, username, password_hash, created_at, disabled_at, kind, display_name, require_second_factor`, `id`, true,
		func() record { return new(accountRecord) }, func(c *BackupCounts) *int64 { return &c.Accounts }},
	{"tokens", "token", "tokens", `id, account_id, name, hash, created_at, last_used_at, expires_at, revoked_at, scopes, packages, ci, trusted_publishers`, `id`, true,
		func() record { return new(tokenRecord) }, func(c *BackupCounts) *int64 { return &c.Tokens }},
	{"ssh_keys", "ssh_key", "SSH keys", `id, account_id, name, type, fingerprint, public_key, created_at, last_used_at`, `id`, true,
		func() record { return new(sshKeyRecord) }, func(c *BackupCounts) *int64 { return &c.SSHKeys }},
	{"packages", "package", "packages", `id, owner_id, pack_slug, name, description, scheme, version, sha256, latest_version_id, created_at, updated_at,
deprecated, trusted_publishing_only, downloads, log_head`, `id`, true,
		func() record { return new(packageRecord) }, func(c *BackupCounts) *int64 { return &c.Packages }},
	{"versions", "version", "versions", `id, package_id, version, name, description, scheme, sha256, size, content, created_at,
key_id, key_fingerprint, signed_timestamp, nonce, signature, signed_name, signed_description, public_key,
yanked_at, yank_reason, log_index, ci, publisher_id, token_id`, `id`, true,
		func() record { return new(versionRecord) }, func(c *BackupCounts) *int64 { return &c.Versions }},
	{"nonces", "nonce", "nonces", `fingerprint, nonce, spent_at`, `fingerprint, nonce`, false,
		func() record { return new(nonceRecord) }, func(c *BackupCounts) *int64 { return &c.Nonces }},
	{"sessions", "session", "sessions", `id, account_id, hash, created_at, expires_at, last_seen_at, user_agent, ip`, `id`, true,
		func() record { return new(sessionRecord) }, func(c *BackupCounts) *int64 { return &c.Sessions }},
}

func tableOf(typ string) (table, bool) {
	for _, t := range tables {
		if t.typ == typ {
			return t, true
		}
	}
	return table{}, false
}

type typed struct {
	Type string `json:"type"`
}

func (r *typed) setType(t string) { r.Type = t }

type accountRecord struct {
	typed
	ID           int64     `json:"id"`
	Email        string    `json:"email"`
	Username     string    `json:"username"`
	PasswordHash string    `json:"password_hash"`
	CreatedAt    time.Time `json:"created_at"`
	// DisabledAt (version 3) is null while the account is enabled, and
	// absent from older dumps.
	DisabledAt *time.Time `json:"disabled_at"`
	// Kind is "org" for an organisation and absent for a user, as in
	// dumps made before organisations; DisplayName is an organisation's
	// (dump_orgs.go).
	Kind        string `json:"kind,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	// RequireSecondFactor (dump_passkeys.go) is written only when on.
	RequireSecondFactor bool `json:"require_second_factor,omitempty"`
}

func (r *accountRecord) dest() []any {
	return []any{&r.ID, &r.Email, &r.Username, &r.PasswordHash, &r.CreatedAt, &r.DisabledAt, &r.Kind, &r.DisplayName, &r.RequireSecondFactor}
}
func (r *accountRecord) args() []any {
	kind := r.Kind
	if kind == "" {
		kind = "user"
	}
	return []any{r.ID, r.Email, r.Username, r.PasswordHash, r.CreatedAt.UTC(), nullable(r.DisabledAt), kind, r.DisplayName, r.RequireSecondFactor}
}
func (r *accountRecord) normalize() {
	r.CreatedAt = r.CreatedAt.UTC()
	if r.Kind == "user" {
		r.Kind = "" // a user's record stays as it was before organisations
	}
	utcPtr(r.DisabledAt)
}
func (r *accountRecord) getID() int64 { return r.ID }

type tokenRecord struct {
	typed
	ID         int64      `json:"id"`
	AccountID  int64      `json:"account_id"`
	Name       string     `json:"name"`
	Hash       []byte     `json:"hash"` // SHA-256 of the token; the token itself is never stored
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
	// Scopes and Packages are the columns as stored: words separated by
	// spaces, null for every scope or every pack (version 3; absent from
	// older dumps, whose tokens keep every scope).
	Scopes   *string `json:"scopes"`
	Packages *string `json:"packages"`
	// CI is the CI job of a token from trusted publishing, a JSON object
	// (dump_trust.go); null or absent for every other token.
	CI *string `json:"ci,omitempty"`
	// TrustedPublishers are the ids of the trusted publishers such a
	// token was exchanged through, separated by spaces (dump_trust.go);
	// absent for every other token, and in dumps made before they were kept.
	TrustedPublishers *string `json:"trusted_publishers,omitempty"`
}

func (r *tokenRecord) dest() []any {
	return []any{&r.ID, &r.AccountID, &r.Name, &r.Hash, &r.CreatedAt, &r.LastUsedAt, &r.ExpiresAt, &r.RevokedAt, &r.Scopes, &r.Packages, &r.CI,
		&r.TrustedPublishers}
}
func (r *tokenRecord) args() []any {
	return []any{r.ID, r.AccountID, r.Name, r.Hash, r.CreatedAt.UTC(), nullable(r.LastUsedAt), nullable(r.ExpiresAt), nullable(r.RevokedAt),
		nullable(r.Scopes), nullable(r.Packages), nullable(r.CI), nullable(r.TrustedPublishers)}
}
func (r *tokenRecord) normalize() {
	r.CreatedAt = r.CreatedAt.UTC()
	utcPtr(r.LastUsedAt)
	utcPtr(r.ExpiresAt)
	utcPtr(r.RevokedAt)
}
func (r *tokenRecord) getID() int64 { return r.ID }

type sshKeyRecord struct {
	typed
	ID          int64      `json:"id"`
	AccountID   int64      `json:"account_id"`
	Name        string     `json:"name"`
	KeyType     string     `json:"key_type"`
	Fingerprint string     `json:"fingerprint"`
	PublicKey   string     `json:"public_key"`
	CreatedAt   time.Time  `json:"created_at"`
	LastUsedAt  *time.Time `json:"last_used_at"`
}

func (r *sshKeyRecord) dest() []any {
	return []any{&r.ID, &r.AccountID, &r.Name, &r.KeyType, &r.Fingerprint, &r.PublicKey, &r.CreatedAt, &r.LastUsedAt}
}
func (r *sshKeyRecord) args() []any {
	return []any{r.ID, r.AccountID, r.Name, r.KeyType, r.Fingerprint, r.PublicKey, r.CreatedAt.UTC(), nullable(r.LastUsedAt)}
}
func (r *sshKeyRecord) normalize() {
	r.CreatedAt = r.CreatedAt.UTC()
	utcPtr(r.LastUsedAt)
}
func (r *sshKeyRecord) getID() int64 { return r.ID }

type packageRecord struct {
	typed
	ID              int64     `json:"id"`
	OwnerID         int64     `json:"owner_id"`
	PackSlug        string    `json:"pack_slug"`
	Name            string    `json:"name"`
	Description     string    `json:"description"`
	Scheme          string    `json:"scheme"`
	Version         string    `json:"version"`
	SHA256          string    `json:"sha256"`
	LatestVersionID int64     `json:"latest_version_id"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	// Deprecated is the deprecation message, "" when none (version 3;
	// absent from older dumps).
	Deprecated string `json:"deprecated"`
	// TrustedPublishingOnly is the package's setting (version 3, added
	// without changing the version): absent when off, as in dumps made
	// before it, which restore with it off.
	TrustedPublishingOnly bool `json:"trusted_publishing_only,omitempty"`
	// Downloads is the package's total of downloads (version 3, added
	// without changing the version, with dump_downloads.go): absent when
	// 0, as in dumps made before download counts.
	Downloads int64 `json:"downloads,omitempty"`
	// LogHead is the log index of the package's newest pack-state entry
	// (version 3, added without changing the version): absent in dumps
	// made before pack-state entries, whose restore appends a first one
	// (backfillPackStates).
	LogHead *int64 `json:"log_head,omitempty"`
}

func (r *packageRecord) dest() []any {
	return []any{&r.ID, &r.OwnerID, &r.PackSlug, &r.Name, &r.Description, &r.Scheme, &r.Version, &r.SHA256,
		&r.LatestVersionID, &r.CreatedAt, &r.UpdatedAt, &r.Deprecated, &r.TrustedPublishingOnly, &r.Downloads, &r.LogHead}
}
func (r *packageRecord) args() []any {
	return []any{r.ID, r.OwnerID, r.PackSlug, r.Name, r.Description, r.Scheme, r.Version, r.SHA256,
		r.LatestVersionID, r.CreatedAt.UTC(), r.UpdatedAt.UTC(), r.Deprecated, r.TrustedPublishingOnly, r.Downloads, r.LogHead}
}
func (r *packageRecord) normalize() {
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
}
func (r *packageRecord) getID() int64 { return r.ID }

// versionRecord carries the document as base64 (Content), so bytes that are
// not printable, CRLF line ends or a byte-order mark come back unchanged.
type versionRecord struct {
	typed
	ID          int64     `json:"id"`
	PackageID   int64     `json:"package_id"`
	Version     string    `json:"version"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Scheme      string    `json:"scheme"`
	SHA256      string    `json:"sha256"`
	Size        int64     `json:"size"`
	Content     []byte    `json:"content"`
	CreatedAt   time.Time `json:"created_at"`
	// Provenance of a signed publish; all null for token publishes. KeyID
	// is null too once the key was deleted.
	KeyID           *int64  `json:"key_id"`
	KeyFingerprint  *string `json:"key_fingerprint"`
	SignedTimestamp *int64  `json:"signed_timestamp"`
	Nonce           *string `json:"nonce"`
	Signature       *string `json:"signature"`
	// The name and description lines exactly as signed and the signer's
	// public key (version 2). Null for versions signed before they were
	// kept; absent from version 1 dumps.
	SignedName        *string `json:"signed_name"`
	SignedDescription *string `json:"signed_description"`
	PublicKey         *string `json:"public_key"`
	// When the version was yanked (null: not yanked) and why (version 3;
	// absent from older dumps).
	YankedAt   *time.Time `json:"yanked_at"`
	YankReason string     `json:"yank_reason"`
	// LogIndex is the version's transparency log entry (version 3).
	LogIndex *int64 `json:"log_index"`
	// CI is the CI job that published the version with a token from
	// trusted publishing, a JSON object (dump_trust.go); null or absent
	// otherwise.
	CI *string `json:"ci,omitempty"`
	// PublisherID and TokenID are who published the version and with
	// which token (dump_orgs.go); null or absent when not known.
	PublisherID *int64 `json:"publisher_id,omitempty"`
	TokenID     *int64 `json:"token_id,omitempty"`
}

func (r *versionRecord) dest() []any {
	return []any{&r.ID, &r.PackageID, &r.Version, &r.Name, &r.Description, &r.Scheme, &r.SHA256, &r.Size, &r.Content,
		&r.CreatedAt, &r.KeyID, &r.KeyFingerprint, &r.SignedTimestamp, &r.Nonce, &r.Signature,
		&r.SignedName, &r.SignedDescription, &r.PublicKey, &r.YankedAt, &r.YankReason, &r.LogIndex, &r.CI, &r.PublisherID, &r.TokenID}
}
func (r *versionRecord) args() []any {
	return []any{r.ID, r.PackageID, r.Version, r.Name, r.Description, r.Scheme, r.SHA256, r.Size, r.Content,
		r.CreatedAt.UTC(), nullable(r.KeyID), nullable(r.KeyFingerprint), nullable(r.SignedTimestamp), nullable(r.Nonce), nullable(r.Signature),
		nullable(r.SignedName), nullable(r.SignedDescription), nullable(r.PublicKey), nullableUTC(r.YankedAt), r.YankReason, nullable(r.LogIndex), nullable(r.CI),
		nullable(r.PublisherID), nullable(r.TokenID)}
}
func (r *versionRecord) normalize() {
	r.CreatedAt = r.CreatedAt.UTC()
	utcPtr(r.YankedAt)
}
func (r *versionRecord) getID() int64 { return r.ID }

// nonceRecord is a spent nonce, remembered by the fingerprint of the key
// that spent it.
type nonceRecord struct {
	typed
	Fingerprint string    `json:"fingerprint"`
	Nonce       string    `json:"nonce"`
	SpentAt     time.Time `json:"spent_at"`
}

func (r *nonceRecord) dest() []any  { return []any{&r.Fingerprint, &r.Nonce, &r.SpentAt} }
func (r *nonceRecord) args() []any  { return []any{r.Fingerprint, r.Nonce, r.SpentAt.UTC()} }
func (r *nonceRecord) normalize()   { r.SpentAt = r.SpentAt.UTC() }
func (r *nonceRecord) getID() int64 { return 0 }

type sessionRecord struct {
	typed
	ID        int64     `json:"id"`
	AccountID int64     `json:"account_id"`
	Hash      []byte    `json:"hash"` // SHA-256 of the cookie value
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	// Version 3: absent from older dumps, whose sessions restore as last
	// seen when they began, with no user agent and no address.
	LastSeenAt *time.Time `json:"last_seen_at"`
	UserAgent  *string    `json:"user_agent"`
	IP         *string    `json:"ip"`
}

func (r *sessionRecord) dest() []any {
	return []any{&r.ID, &r.AccountID, &r.Hash, &r.CreatedAt, &r.ExpiresAt, &r.LastSeenAt, &r.UserAgent, &r.IP}
}
func (r *sessionRecord) args() []any {
	seen := r.CreatedAt
	if r.LastSeenAt != nil {
		seen = *r.LastSeenAt
	}
	return []any{r.ID, r.AccountID, r.Hash, r.CreatedAt.UTC(), r.ExpiresAt.UTC(), seen.UTC(), valueOr(r.UserAgent, ""), valueOr(r.IP, "")}
}
func (r *sessionRecord) normalize() {
	r.CreatedAt, r.ExpiresAt = r.CreatedAt.UTC(), r.ExpiresAt.UTC()
	utcPtr(r.LastSeenAt)
}
func (r *sessionRecord) getID() int64 { return r.ID }

// nullable passes a nil pointer to the driver as NULL, others by value.
func nullable[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// nullableUTC is nullable for a time, in UTC.
func nullableUTC(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC()
}

func valueOr[T any](p *T, otherwise T) T {
	if p == nil {
		return otherwise
	}
	return *p
}

func utcPtr(t *time.Time) {
	if t != nil {
		*t = t.UTC()
	}
}

// byteOrder makes ORDER BY on text compare bytes on both engines, so two
// dumps of the same data are the same file.
func (s *Store) byteOrder(order string) string {
	columns := strings.Split(order, ", ")
	for i, c := range columns {
		if c == "fingerprint" || c == "nonce" {
			columns[i] = s.dialect.bytewise(c)
		}
	}
	return strings.Join(columns, ", ")
}

// Dump writes every row of the database to w in the dump format, from one
// consistent snapshot, reading row by row: memory use does not grow with
// the database. Replicas may keep serving (and writing) meanwhile.
func (s *Store) Dump(ctx context.Context, w io.Writer) (BackupCounts, error) {
	return s.DumpWith(ctx, w, nil)
}

// Documents answers the bytes of a document on the blob store by its
// sha256 and size, checked against them (registry.Service.BlobDocument).
type Documents func(ctx context.Context, sha256 string, size int64) ([]byte, error)

// DumpWith is Dump of a database whose rows may leave their documents on
// a blob store: documents reads them, and the dump carries them as it
// carries the others, so a restore needs no blob store. nil refuses such
// a row.
func (s *Store) DumpWith(ctx context.Context, w io.Writer, documents Documents) (BackupCounts, error) {
	var counts BackupCounts
	tx, err := s.dialect.snapshot(ctx, s.read)
	if err != nil {
		return counts, s.fault("dump", err)
	}
	defer tx.Rollback()

	out := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	header := dumpHeader{Format: DumpFormat, Version: DumpVersion, CreatedAt: time.Now().UTC(), Source: s.dialect.name()}
	if err := enc.Encode(header); err != nil {
		return counts, err
	}
	for _, t := range tables {
		n, err := s.dumpTable(ctx, tx, t, enc, documents)
		if err != nil {
			return counts, err
		}
		*t.count(&counts) = n
	}
	if err := s.dumpLogState(ctx, tx, enc); err != nil {
		return counts, err
	}
	if err := enc.Encode(endRecord{Type: endType, Counts: counts}); err != nil {
		return counts, err
	}
	if err := out.Flush(); err != nil {
		return counts, err
	}
	return counts, s.fault("dump", tx.Commit())
}

func (s *Store) dumpTable(ctx context.Context, tx *sql.Tx, t table, enc *json.Encoder, documents Documents) (int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+t.columns+` FROM `+t.name+` ORDER BY `+s.byteOrder(t.order))
	if err != nil {
		return 0, s.fault("dump "+t.name, err)
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		r := t.new()
		if err := rows.Scan(r.dest()...); err != nil {
			return n, s.fault("dump "+t.name, err)
		}
		r.normalize()
		if v, ok := r.(*versionRecord); ok && len(v.Content) == 0 {
			// No document is empty: this one is on the blob store.
			if documents == nil {
				return n, fmt.Errorf("version %d keeps its document on a blob store: name it (--blobs)", v.ID)
			}
			if v.Content, err = documents(ctx, v.SHA256, v.Size); err != nil {
				return n, fmt.Errorf("version %d: %w", v.ID, err)
			}
		}
		r.setType(t.typ)
		if err := enc.Encode(r); err != nil {
			return n, fmt.Errorf("writing the dump: %w", err)
		}
		n++
	}
	return n, s.fault("dump "+t.name, rows.Err())
}
