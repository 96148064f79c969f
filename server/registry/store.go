package registry

import (
	"context"
	"time"
)

// Store is everything pact keeps. Implementations: server/sqlstore (SQLite
// and PostgreSQL). internal/storetest is the conformance suite every
// implementation must pass. Errors are *Error values (NotFound, Conflict, ...)
// or plain errors for faults (mapped to 500/503).
type Store interface {
	// Transactor runs the domain's changes (Tx, tx.go): every rule of a
	// change is the domain's, read and written through a Tx.
	Transactor
	AccountStore
	TokenStore
	SSHKeyStore
	PackageStore
	SessionStore
	DeviceLoginStore
	LogStore
	WitnessStore
	TrustStore
	ReleaseStore
	OrgStore
	HookStore
	DownloadStore
	PasskeyStore
	DocumentStore
	// Ping checks that the database answers (readiness).
	Ping(ctx context.Context) error
	// Generation changes whenever a write through this Store may have
	// changed what its reads return. ok is false when the Store cannot
	// tell, because other processes write to its database unseen.
	Generation() (generation uint64, ok bool)
	// DocumentCache counts the reads of its in-memory cache of
	// documents, for pactd's metrics.
	DocumentCache() CacheStats
	Close() error
}

// CacheStats are an in-memory cache's reads since it started, and what it
// holds: operators size a cache by its hit rate (docs/operations.md,
// Metrics).
type CacheStats struct {
	Hits, Misses    uint64
	Bytes, MaxBytes int64
}

type AccountStore interface {
	// CreateAccount sets a.ID and stores a. Conflict when the username or
	// email is taken (case-insensitively).
	CreateAccount(ctx context.Context, a *Account) error
	AccountByID(ctx context.Context, id int64) (*Account, error)
	AccountByUsername(ctx context.Context, username string) (*Account, error)
	AccountByEmail(ctx context.Context, email string) (*Account, error)
	// ListAccounts lists accounts by id, from the first with an id above
	// f.AfterID, at most f.Limit of them, with counts of what each holds
	// (tokens and sessions as active at f.Now).
	ListAccounts(ctx context.Context, f AccountFilter) ([]AccountSummary, error)
	// SetPasswordHash replaces an account's password hash; NotFound when
	// the account does not exist.
	SetPasswordHash(ctx context.Context, accountID int64, hash string) error
	// SetAccountDisabled disables an account at *at, or enables it when
	// at is nil. Disabling a disabled account keeps the first time.
	// NotFound when the account does not exist.
	SetAccountDisabled(ctx context.Context, accountID int64, at *time.Time) error
}

// TokenFilter selects a page of ListTokens.
type TokenFilter struct {
	Before int64 // only IDs below it; 0: from the newest
	Limit  int   // at most this many; 0: every one
	// ActiveAt, when set, keeps only the tokens active then; nil lists
	// the expired and revoked ones too (until PruneTokens deletes them).
	ActiveAt *time.Time
}

// JTISpend is the jti of an ID token to spend: Issuer's JTI, valid until
// ExpiresAt; the jtis that expired before Now are forgotten.
type JTISpend struct {
	Issuer, JTI    string
	ExpiresAt, Now time.Time
}

// AccountFilter selects a page of ListAccounts.
type AccountFilter struct {
	AfterID int64
	Limit   int
	Now     time.Time
}

type TokenStore interface {
	// CreateToken sets t.ID and stores t, its Scopes and Packages
	// included: nil stays nil (every scope, every pack) and an empty
	// Scopes stays empty. A token exchanged for an ID token is stored by
	// CreateExchangedToken (trust.go), through a Tx.
	CreateToken(ctx context.Context, t *Token) error
	// TokenHolder finds a token by the SHA-256 of its text, revoked or
	// not, with its account, in one read.
	TokenHolder(ctx context.Context, hash []byte) (*Token, *Account, error)
	// TokenByID finds a token by its id, revoked or not; NotFound otherwise.
	TokenByID(ctx context.Context, id int64) (*Token, error)
	// ListTokens lists a page of an account's tokens, newest (highest ID)
	// first, as f says.
	ListTokens(ctx context.Context, accountID int64, f TokenFilter) ([]Token, error)
	// CountActiveTokens counts an account's tokens active at now (neither
	// revoked nor expired): those exchanged for ID tokens (CI set) when
	// exchanged is true, the others when it is false.
	CountActiveTokens(ctx context.Context, accountID int64, exchanged bool, now time.Time) (int, error)
	// PruneTokens deletes up to limit tokens that expired or were revoked
	// before the given time, of every account, except the tokens a version
	// was published with (its published_by names them); it answers how many.
	PruneTokens(ctx context.Context, before time.Time, limit int) (int64, error)
	// RevokeToken revokes one of accountID's tokens; NotFound when the
	// token does not exist or belongs to someone else.
	RevokeToken(ctx context.Context, accountID, tokenID int64, at time.Time) error
	TouchToken(ctx context.Context, tokenID int64, at time.Time) error
}

// DeviceLoginStore keeps the logins of the command line approved in the
// browser (device.go) for the few minutes they last; a login is stored by
// CreateDeviceLogin, through a Tx.
type DeviceLoginStore interface {
	// PendingDeviceLogin finds the login by the hash of its user code
	// while no decision is recorded and it has not expired at now;
	// NotFound otherwise.
	PendingDeviceLogin(ctx context.Context, userHash []byte, now time.Time) (*DeviceLogin, error)
	// DecideDeviceLogin records d for the login of the hash of its user
	// code, when no decision is recorded yet and it has not expired at
	// d.At; NotFound otherwise, so a login is decided once.
	DecideDeviceLogin(ctx context.Context, userHash []byte, d DeviceDecision) error
	// PollDeviceLogin finds the login by the hash of its device code and
	// records a poll at at, unless its last poll was after since
	// (recorded false, nothing written). NotFound when there is none,
	// expired or not.
	PollDeviceLogin(ctx context.Context, deviceHash []byte, at, since time.Time) (d *DeviceLogin, recorded bool, err error)
	// ExchangeDeviceLogin deletes the approved login of the hash of its
	// device code that has not expired at now, and stores t as CreateToken
	// does, in one transaction. NotFound, and nothing stored, when there
	// is no such login: unknown, waiting, denied, expired, or exchanged
	// already, so a login gives one token.
	ExchangeDeviceLogin(ctx context.Context, deviceHash []byte, now time.Time, t *Token) error
	// PruneDeviceLogins deletes the logins that expired at or before the
	// given time, and answers how many.
	PruneDeviceLogins(ctx context.Context, before time.Time) (int64, error)
}

type SSHKeyStore interface {
	// KeyHolder finds a key by its fingerprint, with its account, in one
	// read.
	KeyHolder(ctx context.Context, fingerprint string) (*SSHKey, *Account, error)
	// ListSSHKeys lists an account's keys, oldest first.
	ListSSHKeys(ctx context.Context, accountID int64) ([]SSHKey, error)
	TouchSSHKey(ctx context.Context, keyID int64, at time.Time) error
}

// PublishInput is a validated document ready to be stored.
type PublishInput struct {
	OwnerID     int64
	OwnerSlug   string
	PackSlug    string
	Name        string
	Description string
	Scheme      string
	Version     string
	Content     []byte
	SHA256      string // hex sha256 of Content
	Now         time.Time
	Provenance  *Provenance // set for signed publishes
	CI          *CIIdentity // set for publishes with a token from an ID token
	// PublisherID is the account that publishes (OwnerID's own, or a
	// member's of the organisation OwnerID); TokenID the token it used,
	// 0 for a signed publish.
	PublisherID int64
	TokenID     int64
	// Warnings say what Name lost on its way to PackSlug; the store does
	// not keep them, the publish hands them back on its Package.
	Warnings []string
	// DocumentInBlobStore says that Content was put on the blob store
	// under SHA256 (Service.keepDocument): the row keeps no bytes of it.
	DocumentInBlobStore bool
}

// PackageFilter selects a page of the package list, the package whose
// latest version was published last first. A package whose every version
// is yanked has no latest version and is never listed. With a Query the
// list is a search, in rank order (see SearchExact and docs/protocol.md,
// "Search").
type PackageFilter struct {
	Limit  int
	Before int64  // only packages with LatestVersionID < Before; 0: from the newest
	Query  string // a search: its words must occur in owner/slug, name or description
	Owner  string // owner slug
	Scheme string
	// A search's page starts after the package at (Rank, Score, Before)
	// in rank order: rank, then score (lower is better), then the newest
	// latest version. Before 0 starts at the first page.
	Rank  int
	Score float64
}

// The ranks of a search, best first. Within SearchName and SearchOther the
// engine's relevance decides (Package.SearchScore, lower is better), then
// the newest latest version; within SearchExact the newest latest version.
const (
	SearchExact = 0 // the slug, or owner/slug, is the query
	SearchName  = 1 // every word is in the owner, the slug or the name
	SearchOther = 2 // every word occurs somewhere, the description included
)

type PackageStore interface {
	// ListPackages returns up to f.Limit packages in the filter's order.
	ListPackages(ctx context.Context, f PackageFilter) ([]Package, error)
	// SuggestSlugs returns up to limit slugs of listed packages that are
	// near query, the nearest first, for a search that found little.
	SuggestSlugs(ctx context.Context, query string, limit int) ([]string, error)
	PackageBySlug(ctx context.Context, owner, pack string) (*Package, error)
	// ListVersions lists a package's versions newest first, without Content.
	ListVersions(ctx context.Context, packageID int64) ([]Version, error)
	// VersionDocument returns one version with Content, yanked or not;
	// version "" means the latest. NotFound when the package or version
	// does not exist, or (for "") when every version is yanked.
	VersionDocument(ctx context.Context, owner, pack, version string) (*Version, error)
	// CountPackages counts the packages and the versions the store holds,
	// yanked ones included. It reads every row of an index, so callers keep
	// the answer a while (Service.Counts).
	CountPackages(ctx context.Context) (packages, versions int64, err error)
	// RawDocument is VersionDocument with only what a raw answer shows:
	// ID, PackageID, Version, SHA256, Size, YankedAt, YankReason and
	// Content (the raw path's read, narrower and cached apart). The
	// Version may be shared with the store's cache: callers must not
	// modify it.
	RawDocument(ctx context.Context, owner, pack, version string) (*Version, error)
	// PruneNonces forgets nonces spent before the given time; nothing
	// else forgets them (deleting a key does not).
	PruneNonces(ctx context.Context, before time.Time) (int64, error)
}

// DocumentStore moves documents from the rows of their versions, and full
// log tiles from theirs, to a blob store (blob.go, blobtiles.go): a row
// that keeps no bytes (a zero-length content or data) has them on the blob
// store under its sha256.
type DocumentStore interface {
	// RowDocuments answers up to limit versions whose rows hold their
	// document, by id from the first above after, with only ID, SHA256,
	// Size and Content.
	RowDocuments(ctx context.Context, after int64, limit int) ([]Version, error)
	// DocumentNames calls fn with the sha256 of every version's document,
	// wherever it is kept, in no order; a name may come more than once.
	DocumentNames(ctx context.Context, fn func(sha256 string) error) error
	// RowTiles answers up to limit full log tiles whose rows hold their
	// bytes, by (level, n) from the first after (afterLevel, afterN), with
	// Level, N, Data and Size.
	RowTiles(ctx context.Context, afterLevel int, afterN int64, limit int) ([]FullTile, error)
	// FreeRowTile empties the row of the full tile (level, n), whose bytes
	// are on the blob store under sha256 (size bytes); NotFound when the
	// tile is not stored.
	FreeRowTile(ctx context.Context, level int, n int64, sha256 string, size int64) error
	// TileNames calls fn with the sha256 of every full tile on the blob
	// store, in no order.
	TileNames(ctx context.Context, fn func(sha256 string) error) error
}

type SessionStore interface {
	// SessionByHash returns a session that has not expired at now.
	SessionByHash(ctx context.Context, hash []byte, now time.Time) (*Session, error)
	DeleteSession(ctx context.Context, hash []byte) error
	// TouchSession records when a session was last seen.
	TouchSession(ctx context.Context, sessionID int64, at time.Time) error
	// ListSessions lists an account's sessions that have not expired at
	// now, the most recently seen first, at most limit of them.
	ListSessions(ctx context.Context, accountID int64, now time.Time, limit int) ([]Session, error)
	// DeleteAccountSession deletes one of accountID's sessions; NotFound
	// when it does not exist or belongs to someone else.
	DeleteAccountSession(ctx context.Context, accountID, sessionID int64) error
	// DeleteAccountSessions deletes every session of accountID except the
	// one with id exceptID (0: all of them) and says how many it deleted.
	DeleteAccountSessions(ctx context.Context, accountID, exceptID int64) (int64, error)
}
