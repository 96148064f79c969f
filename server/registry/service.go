package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pact-registry/pact/pkg/packfmt"
)

// Service holds the rules of pact. The server and the commands call it; it
// calls the Store, which nothing else reaches, so no caller can walk around
// a rule.
type Service struct {
	store            Store
	clock            func() time.Time
	maxDocumentBytes int64
	log              *LogSigner // set by InitLog
	checkpoint       checkpointCache
	watch            checkpointWatch                     // the requests waiting for a new checkpoint (translog.go)
	witness          *witnessing                         // witness.go; nil without a witness policy
	witnessed        checkpointCache                     // the witnessed checkpoint served (witness.go)
	oidcIssuers      []string                            // trust.go
	onEvent          func(context.Context, Event)        // audit.go
	checkPassword    func(encoded, password string) bool // Options.CheckPassword
	passwordCost     PasswordCost                        // Options.PasswordCost
	maxDeviceLogins  int                                 // Options.MaxPendingDeviceLogins
	// dummyHash is what a log-in for an unknown account checks its
	// password against, so that it costs what one for a known account
	// does. Made at the first such log-in, not at start: every pactd
	// process (serve, and each admin command) would otherwise spend an
	// argon2 hash, 19 MiB and tens of milliseconds, on it.
	dummyHash      func() string
	tokenRetention time.Duration   // token.go
	counts         countsCache     // counts.go
	downloads      downloadCounter // downloads.go
	hooks          hookSettings    // hook.go
	ceremonyKey    ceremonyKey     // passkey.go
	blobs          *blobs          // blob.go; nil keeps documents in the database
	checkpointWait time.Duration   // translog.go, LogCheckpointCovering
}

// Options are the settings of a Service; the zero value is usable.
type Options struct {
	// Now is the clock; tests replace it. nil means time.Now.
	Now func() time.Time
	// MaxDocumentBytes limits a pack document; 0 means packfmt.DefaultMaxBytes.
	MaxDocumentBytes int64
	// OIDCIssuers are the OpenID Connect issuers whose ID tokens trusted
	// publishers may name (trust.go); none by default.
	OIDCIssuers []string
	// OnEvent, when set, is told of every change once it is stored
	// (audit.go). It runs on the caller's goroutine, so it must be quick;
	// it cannot undo or fail the change.
	OnEvent func(context.Context, Event)
	// TokenRetention is how long expired and revoked tokens are kept
	// before PruneTokens deletes them: 0 means DefaultTokenRetention,
	// negative for ever.
	TokenRetention time.Duration
	// WebhookAllowPrivate lets hooks reach loopback, private and
	// link-local addresses (pactd serve --webhook-allow-private).
	WebhookAllowPrivate bool
	// ResolveHost resolves a hook's host when it is made; nil uses the
	// system's resolver. Tests replace it.
	ResolveHost func(ctx context.Context, host string) ([]netip.Addr, error)
	// Blobs, when set, keeps the documents of new versions (blob.go);
	// rows that still hold their document are served from it.
	Blobs BlobStore
	// BlobCacheBytes bounds the memory for documents read from a blob
	// store that is not a local directory (0: 64 MB).
	BlobCacheBytes int64
	// CheckPassword checks a password against its stored hash at every
	// log-in and password change; nil is CheckPassword (argon2id). Tests
	// wrap it to count the hashing work a request costs.
	CheckPassword func(encoded, password string) bool
	// PasswordCost is the argon2id cost of new password hashes and of the
	// one an unknown account's log-in checks; zero (or one argon2id cannot
	// run: no pass, under 8 KiB) is DefaultPasswordCost,
	// which pactd uses. Tests of pages and routes run under the race
	// detector lower it: there every hash at the default cost took about
	// 0.1 s of CPU and faulted in 19 MiB, at every sign-up and log-in.
	PasswordCost PasswordCost
	// BlobsPublicURL, when set with Blobs, is where the blob store's
	// blobs are public (a CDN or the bucket's own address): immutable
	// answers redirect there (PublicBlobURL).
	BlobsPublicURL string
	// MaxPendingDeviceLogins bounds the device logins waiting at once in
	// the whole registry; 0 is MaxPendingDeviceLogins, which pactd uses.
	// The flood tests fill a lower one unless they soak (internal/soak).
	MaxPendingDeviceLogins int
	// CheckpointWait is how long GET /log/checkpoint?wait=1 holds a
	// request for a checkpoint that covers it (LogCheckpointCovering);
	// 0 is CheckpointWaitLimit.
	CheckpointWait time.Duration
}

// NewService returns the service of pact over store.
func NewService(store Store, opts Options) *Service {
	retention := opts.TokenRetention
	if retention == 0 {
		retention = DefaultTokenRetention
	}
	s := &Service{store: store, clock: opts.Now, maxDocumentBytes: opts.MaxDocumentBytes,
		oidcIssuers: append([]string(nil), opts.OIDCIssuers...), onEvent: opts.OnEvent, checkPassword: opts.CheckPassword,
		tokenRetention: retention, hooks: hookSettings{allowPrivate: opts.WebhookAllowPrivate, resolve: opts.ResolveHost}}
	s.blobs = newBlobs(opts.Blobs, opts.BlobCacheBytes, opts.BlobsPublicURL)
	s.checkpointWait = opts.CheckpointWait
	if s.checkpointWait <= 0 {
		s.checkpointWait = CheckpointWaitLimit
	}
	if s.hooks.resolve == nil {
		s.hooks.resolve = resolveHost
	}
	if s.checkPassword == nil {
		s.checkPassword = CheckPassword
	}
	s.maxDeviceLogins = opts.MaxPendingDeviceLogins
	if s.maxDeviceLogins <= 0 {
		s.maxDeviceLogins = MaxPendingDeviceLogins
	}
	s.passwordCost = opts.PasswordCost
	if s.passwordCost.Passes < 1 || s.passwordCost.MemoryKiB < 8*argonThreads {
		s.passwordCost = DefaultPasswordCost
	}
	s.dummyHash = sync.OnceValue(func() string {
		h, _ := s.passwordCost.hash("pact-dummy-password-for-timing")
		return h
	})
	return s
}

// Now is the service's clock in UTC, so that what the server times
// (sessions, throttles) moves with the clock tests set.
func (s *Service) Now() time.Time {
	if s.clock != nil {
		return s.clock().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) now() time.Time { return s.Now() }

// MaxBytes is the document size limit in force.
func (s *Service) MaxBytes() int64 {
	if s.maxDocumentBytes > 0 {
		return s.maxDocumentBytes
	}
	return packfmt.DefaultMaxBytes
}

// Ping checks that the store answers (readiness).
func (s *Service) Ping(ctx context.Context) error { return s.store.Ping(ctx) }

// Generation changes whenever a write made through this service may have
// changed what reads answer. ok is false when the store cannot tell (other
// processes write to its database): then no answer may be kept for later.
func (s *Service) Generation() (generation uint64, ok bool) { return s.store.Generation() }

// DocumentCache counts the reads of the store's cache of documents.
func (s *Service) DocumentCache() CacheStats { return s.store.DocumentCache() }

// PublishRequest is a document to publish and the optional overrides that
// came with it.
type PublishRequest struct {
	Content     []byte
	Name        string // may be owner/pack: the owner part names the namespace
	Description string
	FileName    string // of a multipart upload; the last-resort name
	// Owner is the namespace to publish into (docs/protocol.md,
	// Organisations): "" for the caller's own.
	Owner string
	// Token is the API token a publish came with, whose publish scope
	// must allow the pack; nil for a signed publish or an admin.
	Token *Token
}

// Publish parses a document and stores it as a version of a package of
// req.Owner (default: actor's own namespace), which actor must be allowed
// to publish into (Can). created is false when an identical version
// existed already.
func (s *Service) Publish(ctx context.Context, actor *Account, req PublishRequest) (*Package, bool, error) {
	owner, name, err := s.resolveOwner(ctx, actor, req.Owner, req.Name)
	if err != nil {
		return nil, false, err
	}
	req.Name = name
	in, err := s.preparePublish(owner, req)
	if err != nil {
		return nil, false, err
	}
	in.PublisherID = actor.ID
	if req.Token != nil {
		if err := Permit(req.Token, OpPublish, actor.Username, owner.Username, in.PackSlug); err != nil {
			return nil, false, err
		}
		in.CI = req.Token.CI
		in.TokenID = req.Token.ID
	}
	if err := s.keepDocument(ctx, &in); err != nil {
		return nil, false, err
	}
	pkg, created, err := PublishVersion(ctx, s.store, in)
	if err != nil {
		return nil, false, err
	}
	pkg.Warnings = in.Warnings
	if created && s.auditing() {
		via := ""
		if req.Token != nil {
			via = fmt.Sprintf("token %d, %s", req.Token.ID, req.Token.Name)
		}
		s.emit(ctx, publishEvent(actor.Username, pkg, in.Version, via))
	}
	return pkg, created, nil
}

func (s *Service) preparePublish(owner *Account, req PublishRequest) (PublishInput, error) {
	if len(req.Content) == 0 {
		return PublishInput{}, Errorf(Invalid, "content is required: send the pack document as `content` or as the multipart field `file`")
	}
	pack, err := packfmt.Parse(req.Content, packfmt.Options{
		Name: req.Name, Description: req.Description, FileName: req.FileName, MaxBytes: s.MaxBytes(),
	})
	if errors.Is(err, packfmt.ErrTooLarge) {
		return PublishInput{}, Errorf(TooLarge, "document is larger than the limit of %d bytes", s.MaxBytes())
	}
	if err != nil {
		return PublishInput{}, Errorf(Invalid, "%s", err.Error())
	}
	// The labels are checked as derived, whether the request or the
	// document's yaml block gave them.
	if err := checkLabel("name", pack.Name, 200, false); err != nil {
		return PublishInput{}, err
	}
	if err := checkLabel("description", pack.Description, 2000, true); err != nil {
		return PublishInput{}, err
	}
	if err := checkLabel("scheme", pack.Scheme, 200, false); err != nil {
		return PublishInput{}, err
	}
	if IsLatestAlias(pack.Version) {
		return PublishInput{}, Errorf(Invalid, "version %q is reserved: @latest names the latest version of every package", pack.Version)
	}
	sum := sha256.Sum256(req.Content)
	return PublishInput{
		OwnerID:     owner.ID,
		OwnerSlug:   owner.Username,
		PackSlug:    pack.Slug,
		Name:        pack.Name,
		Description: pack.Description,
		Scheme:      pack.Scheme,
		Version:     pack.Version,
		Content:     req.Content,
		SHA256:      hex.EncodeToString(sum[:]),
		Now:         s.now(),
		Warnings:    pack.Warnings,
	}, nil
}

// ListQuery is a request for one page of the package list.
type ListQuery struct {
	Limit  int    // 0 means DefaultListLimit
	Cursor string // next_cursor of the previous page
	Query  string
	Owner  string
	Scheme string
}

const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// ListPackages returns one page, the package whose latest version was
// published last first, and the cursor of the
// next page ("" on the last page).
func (s *Service) ListPackages(ctx context.Context, q ListQuery) ([]Package, string, error) {
	limit := q.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	if limit < 1 || limit > MaxListLimit {
		return nil, "", Errorf(Invalid, "limit must be between 1 and %d", MaxListLimit)
	}
	if err := checkSearch(q.Query); err != nil {
		return nil, "", err
	}
	f := PackageFilter{Limit: limit + 1, Query: q.Query, Owner: q.Owner, Scheme: q.Scheme}
	search := strings.TrimSpace(q.Query) != ""
	if search {
		if err := decodeSearchCursor(q, &f); err != nil {
			return nil, "", err
		}
	} else {
		before, err := decodeCursor(q.Cursor)
		if err != nil {
			return nil, "", err
		}
		f.Before = before
	}
	pkgs, err := s.store.ListPackages(ctx, f)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(pkgs) > limit {
		pkgs = pkgs[:limit]
		if search {
			next = encodeSearchCursor(q, pkgs[limit-1])
		} else {
			next = encodeCursor(pkgs[limit-1].LatestVersionID)
		}
	}
	return pkgs, next, nil
}

// PackageCursor is the cursor of the page of q's list that follows p, for
// a page that ends at p before its limit (the server bounds a page's bytes
// too).
func PackageCursor(q ListQuery, p *Package) string {
	if strings.TrimSpace(q.Query) != "" {
		return encodeSearchCursor(q, *p)
	}
	return encodeCursor(p.LatestVersionID)
}

// The cursor is opaque to clients; it wraps the keyset position so that a
// deep page costs what the first one does.
func encodeCursor(before int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1:" + strconv.FormatInt(before, 10)))
}

func decodeCursor(cursor string) (int64, error) {
	if cursor == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	bad := Errorf(Invalid, "cursor is not valid: pass next_cursor of the previous page unchanged")
	if err != nil || len(raw) < 4 || string(raw[:3]) != "v1:" {
		return 0, bad
	}
	n, err := strconv.ParseInt(string(raw[3:]), 10, 64)
	if err != nil || n <= 0 {
		return 0, bad
	}
	return n, nil
}

// PackageDetail returns a package and its versions, newest first.
func (s *Service) PackageDetail(ctx context.Context, owner, pack string) (*Package, []Version, error) {
	p, err := s.store.PackageBySlug(ctx, owner, pack)
	if err != nil {
		return nil, nil, err
	}
	versions, err := s.store.ListVersions(ctx, p.ID)
	if err != nil {
		return nil, nil, err
	}
	return p, versions, nil
}

// Package answers a package without its versions; NotFound when there is
// none.
func (s *Service) Package(ctx context.Context, owner, pack string) (*Package, error) {
	return s.store.PackageBySlug(ctx, strings.ToLower(owner), strings.ToLower(pack))
}

// Document returns the raw document of a version ("" or "latest" for the
// latest).
func (s *Service) Document(ctx context.Context, owner, pack, version string) (*Version, error) {
	if IsLatestAlias(version) {
		version = ""
	}
	v, err := s.store.VersionDocument(ctx, owner, pack, version)
	if err != nil {
		return nil, err
	}
	return s.withDocument(ctx, v)
}

// RawDocument is Document with only what a raw answer shows (Store's
// RawDocument): the document, its digest and size, and its yank. The
// Version is read-only: it may be the one the store's cache keeps. A
// document on the blob store comes without its bytes (InBlobStore):
// OpenDocument opens it.
func (s *Service) RawDocument(ctx context.Context, owner, pack, version string) (*Version, error) {
	if IsLatestAlias(version) {
		version = ""
	}
	return s.store.RawDocument(ctx, owner, pack, version)
}

// NonceWindow is how long spent nonces are remembered: twice the accepted
// clock skew, so a nonce cannot be replayed while its timestamp is valid.
const NonceWindow = 2 * 300 * time.Second

// PruneNonces forgets nonces whose timestamps can no longer be accepted.
func (s *Service) PruneNonces(ctx context.Context) (int64, error) {
	return s.store.PruneNonces(ctx, s.now().Add(-NonceWindow))
}
