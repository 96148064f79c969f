// Package registry is the domain of pact: accounts, tokens, SSH keys,
// packages and their immutable versions, and the rules that govern them.
// It imports no HTTP and no SQL; stores implement its interfaces and the
// server adapts HTTP to its Service.
package registry

import "time"

// Account is a user of the registry. Username is the owner_slug of every
// package the account publishes.
type Account struct {
	ID           int64
	Email        string
	Username     string
	PasswordHash string // encoded argon2id (HashPassword); empty means password login is disabled
	CreatedAt    time.Time
	// DisabledAt is when the operator disabled the account (pactd user
	// disable); nil while it is enabled. A disabled account cannot log
	// in, and its tokens and signed publishes are refused.
	DisabledAt *time.Time
	// Kind is KindUser or KindOrg (org.go); an organisation has no email
	// or password, and a DisplayName.
	Kind        string
	DisplayName string
	// RequireSecondFactor: for a user, a log-in with the password needs
	// a passkey or a recovery code too; for an organisation, its members
	// need their own on to manage it in the dashboard (passkey.go).
	RequireSecondFactor bool
}

// AccountSummary is an account with counts of what it holds, for the
// operator's list (pactd user list).
type AccountSummary struct {
	Account
	ActiveTokens int64 // neither revoked nor expired
	SSHKeys      int64
	Packages     int64
	Sessions     int64 // not expired
}

// Token is an API token. Only the SHA-256 of the secret is ever stored.
type Token struct {
	ID         int64
	AccountID  int64
	Name       string
	Hash       []byte // sha256 of the full token text
	CreatedAt  time.Time
	LastUsedAt *time.Time
	ExpiresAt  *time.Time
	RevokedAt  *time.Time
	// Scopes the token holds; nil holds every scope, present and future
	// (tokens made before scopes, or without choosing), an empty list
	// none. See scope.go and docs/protocol.md, Token scopes.
	Scopes []Scope
	// Packages limits the publish and yank scopes to packs matching one of
	// these path.Match globs; nil: every pack.
	Packages []string
	// CI is the CI job a token was exchanged for (trust.go); nil for
	// every other token.
	CI *CIIdentity
	// TrustedPublishers are the ids of the trusted publishers whose
	// match gave a token exchanged for an ID token (trust.go), so that
	// removing them can revoke it; nil for every other token.
	TrustedPublishers []int64
}

// Active reports whether the token may authenticate at now.
func (t *Token) Active(now time.Time) bool {
	if t.RevokedAt != nil {
		return false
	}
	return t.ExpiresAt == nil || now.Before(*t.ExpiresAt)
}

// SSHKey is a public key registered for signed publishing.
type SSHKey struct {
	ID          int64
	AccountID   int64
	Name        string
	Type        string // ssh-ed25519 or ssh-rsa
	Fingerprint string // SHA256:... exactly as ssh-keygen -lf prints
	PublicKey   string // "type base64", no comment
	CreatedAt   time.Time
	LastUsedAt  *time.Time
}

// Package is one (owner, pack) pair; its fields describe its latest version.
type Package struct {
	ID              int64
	OwnerID         int64
	OwnerSlug       string
	PackSlug        string
	Name            string
	Description     string
	Scheme          string
	Version         string // the latest version, as BecomesLatest decides among those not yanked; "" when every version is yanked
	SHA256          string // hex sha256 of the latest version's document; "" when every version is yanked
	LatestVersionID int64  // the latest version's id; orders the list; 0 when every version is yanked
	CreatedAt       time.Time
	UpdatedAt       time.Time
	// Warnings are set only on the package a publish returns: what the
	// published name lost on its way to the slug. They are never stored.
	Warnings []string
	// Deprecated is the owner's deprecation message; "" when the package
	// is not deprecated (docs/protocol.md, Deprecating a package).
	Deprecated string
	// TrustedPublishingOnly lets only tokens exchanged through a trusted
	// publisher publish the package: token and SSH-signed publishes are
	// refused (docs/protocol.md, Trusted publishing only).
	TrustedPublishingOnly bool
	// Downloads is the package's total of downloads, as flushed so far
	// (downloads.go).
	Downloads int64
	// LogIndex is set only on the package a publish returns: the
	// transparency log entry of the version published (or found identical).
	LogIndex *int64
	// LogHead is set only on the package PackageBySlug answers: the log
	// index of the package's newest pack-state entry, read with the rest
	// of the row; nil when it has none (docs/protocol.md, Package state).
	LogHead *int64
	// Published is set only on the package a publish returns: the version
	// published, or the identical one found, which the package's own
	// fields do not name when it is not the latest. Only ID, PackageID,
	// Version, SHA256, Size, CreatedAt and LogIndex are set.
	Published *Version
	// SearchRank and SearchScore are set by a search (PackageFilter.Query):
	// its rank (SearchExact, SearchName or SearchOther) and, within it,
	// the engine's relevance score, lower being better.
	SearchRank  int
	SearchScore float64
}

// Version is one immutable published document of a package.
type Version struct {
	ID          int64
	PackageID   int64
	Version     string
	Name        string
	Description string
	Scheme      string
	SHA256      string
	Size        int64
	Content     []byte // filled only by calls that say they return content
	CreatedAt   time.Time
	Provenance  *Provenance // nil for token publishes
	// YankedAt is when the owner yanked the version, nil while it is not
	// yanked; YankReason is the owner's reason, possibly "".
	YankedAt   *time.Time
	YankReason string
	LogIndex   *int64 // its transparency log entry; nil only while the log is being built
	// CI is the CI job that published it with a token exchanged for its
	// ID token (trust.go); nil otherwise.
	CI *CIIdentity
	// HasRelease reports whether a release was registered for the
	// version (release.go).
	HasRelease bool
	// Publisher is the account that published it (for an organisation's
	// package, the member; for a trusted publish, the owner the CI job's
	// token was exchanged for), nil for versions published before it was
	// kept; TokenID the token it used, 0 for a signed publish or when not
	// known (docs/protocol.md, Organisations).
	Publisher *Publisher
	TokenID   int64
}

// Publisher names who published a version.
type Publisher struct {
	ID       int64
	Username string
}

// Yanked reports whether the owner withdrew the version: it is never the
// latest, but its exact address still serves it.
func (v *Version) Yanked() bool { return v.YankedAt != nil }

// Provenance records how a signed version was authenticated, so anyone can
// verify it again later with ssh-keygen -Y verify, from the version alone:
// the six signed lines are the header, Timestamp, Nonce, the version's
// SHA256, SignedName and SignedDescription.
type Provenance struct {
	KeyID       int64 // the registered key that signed; 0 once it is deleted
	Fingerprint string
	Timestamp   int64 // Unix seconds, as signed
	Nonce       string
	Signature   string // armored SSHSIG
	// SignedLinesKnown is false for versions stored before the signed
	// lines were kept; their SignedName and SignedDescription are then
	// empty and mean nothing.
	SignedLinesKnown bool
	// SignedName and SignedDescription are the name and description lines
	// exactly as signed, possibly empty while the version's Name and
	// Description (derived from the document) are not.
	SignedName        string
	SignedDescription string
	// PublicKey is the signer's key as an authorized_keys line ("type
	// base64"), kept so the version stays verifiable after the key is
	// deleted or registered again; "" when unknown.
	PublicKey string
}

// Session is a logged-in dashboard session. Only the SHA-256 of the cookie
// value is stored.
type Session struct {
	ID        int64
	AccountID int64
	Hash      []byte
	CreatedAt time.Time
	ExpiresAt time.Time
	// LastSeenAt is when the session was last used, written at most once
	// a minute; UserAgent (at most MaxUserAgentBytes) and IP are the
	// browser's and the client address at log-in, for the owner to tell
	// sessions apart.
	LastSeenAt time.Time
	UserAgent  string
	IP         string
}
