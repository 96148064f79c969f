// Package wire holds the JSON bodies of pact's REST interface, once: the
// server encodes its answers and decodes its requests with these types, and
// pkg/client decodes the answers and encodes the requests with the same
// ones. The OpenAPI document (server/openapi/openapi.json) describes the same
// shapes, and a test there compares every schema with the struct of the
// same name field by field: names, required (never omitempty), types and
// null. A field changes here and in openapi.json together.
//
// The package is pure: no HTTP, no store, no server code.
package wire

import "time"

// Times are whole seconds in UTC on the wire (RFC 3339: 2026-01-02T15:04:05Z);
// the server presents every time through Time.

// Time is t as the wire carries it: UTC, whole seconds.
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// OptionalTime is Time for a time that may be unknown; nil encodes as null.
func OptionalTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	w := Time(*t)
	return &w
}

// Every answer starts with "ok", so a person reading curl output sees it
// first: true in a success, false in an error.

// OK is a success that carries nothing else (GET /healthz, GET /readyz,
// DELETE /api/ssh-keys/{id}).
type OK struct {
	OK bool `json:"ok"`
}

// Error is every error answer: {"ok": false, "error": "message"}.
type Error struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
	// Code, on the few answers a client acts on without reading Error,
	// says which: the refusals of a device login's poll
	// (DeviceAuthorizationPending, …); absent on every other error.
	Code string `json:"code,omitempty"`
}

// Package is one (owner_slug, pack_slug), described by its latest version.
// Every URL is built from the server's base URL.
type Package struct {
	ID             int64     `json:"id"`
	OwnerSlug      string    `json:"owner_slug"`
	PackSlug       string    `json:"pack_slug"`
	Name           string    `json:"name"`
	Description    string    `json:"description"`
	Scheme         string    `json:"scheme"`
	Version        string    `json:"version"` // the latest version: the highest not yanked, not the last published; "" when every version is yanked
	SHA256         string    `json:"sha256"`  // hex digest of the latest raw document; "" when every version is yanked
	URL            string    `json:"url"`
	RawURL         string    `json:"raw_url"`
	InstallCommand string    `json:"install_command"`
	VersionsURL    string    `json:"versions_url"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
	// Deprecated is the owner's deprecation message: "" when the package
	// is not deprecated.
	Deprecated string `json:"deprecated"`
	// TrustedPublishingOnly is true when only tokens exchanged through a
	// trusted publisher may publish the package: token and SSH-signed
	// publishes are refused.
	TrustedPublishingOnly bool `json:"trusted_publishing_only"`
	// Downloads is how many times the package's raw documents were
	// downloaded, as the server has flushed its counts so far.
	Downloads int64 `json:"downloads"`
}

// FullName is "owner/pack", the name people type.
func (p *Package) FullName() string { return p.OwnerSlug + "/" + p.PackSlug }

// Version is one immutable published document of a package.
type Version struct {
	Version     string     `json:"version"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Scheme      string     `json:"scheme"`
	SHA256      string     `json:"sha256"`
	Size        int64      `json:"size"`
	CreatedAt   time.Time  `json:"created_at"`
	RawURL      string     `json:"raw_url"`
	Signature   *Signature `json:"signature"` // null for versions published with a token
	// Yanked versions are never the latest, but their exact address still
	// serves them; YankReason is the owner's reason, "" when none was
	// given or the version is not yanked.
	Yanked     bool   `json:"yanked"`
	YankReason string `json:"yank_reason"`
	// LogIndex is the version's entry in the transparency log
	// (/log/tile/entries/...); null only while the log is being built.
	LogIndex *int64 `json:"log_index"`
	// CI is the CI job that published the version with a token from
	// trusted publishing; null otherwise.
	CI *CI `json:"ci"`
	// ReleaseURL is the version's release in the API
	// (docs/protocol.md, Releases); null when none was registered.
	ReleaseURL *string `json:"release_url"`
	// PublishedBy is the account that published the version and how;
	// null for versions published before it was kept.
	PublishedBy *PublishedBy `json:"published_by"`
}

// Signature is the provenance of a version published by SSH signature, kept
// so anyone can verify it again with ssh-keygen -Y verify.
type Signature struct {
	Fingerprint string `json:"fingerprint"`
	Timestamp   int64  `json:"timestamp"`
	Nonce       string `json:"nonce"`
	Signature   string `json:"signature"` // armored SSHSIG
	// SignedName and SignedDescription are the name and description lines
	// exactly as signed; null (and SignedLinesKnown false) for versions
	// signed before the server kept them.
	SignedLinesKnown  bool    `json:"signed_lines_known"`
	SignedName        *string `json:"signed_name"`
	SignedDescription *string `json:"signed_description"`
	// PublicKey is the signer's authorized_keys line; null when unknown.
	PublicKey *string `json:"public_key"`
}

// User is an account, as GET /api/me shows the token's.
type User struct {
	ID        int64     `json:"id"`
	Email     string    `json:"email"`
	Username  string    `json:"username"`
	CreatedAt time.Time `json:"created_at"`
}

// Key is an SSH public key registered for signed publishing.
type Key struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	Type        string     `json:"type"`        // ssh-ed25519 or ssh-rsa
	Fingerprint string     `json:"fingerprint"` // SHA256:..., as ssh-keygen -lf prints
	PublicKey   string     `json:"public_key"`  // "type base64", no comment
	CreatedAt   time.Time  `json:"created_at"`
	LastUsedAt  *time.Time `json:"last_used_at"` // null when never used
}

// PackageList answers GET /api/packages: one page, newest latest version first.
type PackageList struct {
	OK       bool      `json:"ok"`
	Packages []Package `json:"packages"`
	// NextCursor fetches the following page; null on the last page.
	NextCursor *string `json:"next_cursor"`
	// Suggestions are slugs near the words of a search whose first page
	// found fewer than three packages, the nearest first (docs/protocol.md,
	// "Search"); absent otherwise.
	Suggestions []string `json:"suggestions,omitempty"`
}

// PackageDetail answers GET /api/packages/{owner}/{pack}: the package and
// all its versions, newest first.
type PackageDetail struct {
	OK       bool      `json:"ok"`
	Package  Package   `json:"package"`
	Versions []Version `json:"versions"`
	// LogHead is the log index of the package's newest pack-state entry,
	// which states its latest version, yanked versions and deprecation
	// (docs/protocol.md, Package state); null when the log holds none.
	LogHead *int64 `json:"log_head"`
}

// FindVersion returns the version named v, or nil.
func (d *PackageDetail) FindVersion(v string) *Version {
	for i := range d.Versions {
		if d.Versions[i].Version == v {
			return &d.Versions[i]
		}
	}
	return nil
}

// PublishResult answers POST /api/publish. Created is false when the same
// version with the same content existed already (a harmless retry).
type PublishResult struct {
	OK      bool    `json:"ok"`
	Package Package `json:"package"`
	Created bool    `json:"created"`
	// Warnings say what the name lost on its way to the slug: characters
	// without a slug form, a cut. Never null: [] when nothing was lost.
	Warnings []string `json:"warnings"`
	// LogIndex is the transparency log entry of the version published (or
	// of the identical one that existed).
	LogIndex *int64 `json:"log_index"`
	// Published is the version published, or the identical one that
	// existed: Package describes the latest version, which an older
	// version or a pre-release does not replace.
	Published PublishedVersion `json:"published"`
}

// PublishedVersion is the version a publish answers with: its fields as
// in Version.
type PublishedVersion struct {
	Version   string    `json:"version"`
	SHA256    string    `json:"sha256"`
	Size      int64     `json:"size"`
	CreatedAt time.Time `json:"created_at"`
	LogIndex  *int64    `json:"log_index"`
}

// SignedPublishResult answers POST /api/publish-signed.
type SignedPublishResult struct {
	OK      bool    `json:"ok"`
	Package Package `json:"package"`
	Auth    string  `json:"auth"` // AuthSSHSignature
	Created bool    `json:"created"`
	// Warnings as in PublishResult; never null.
	Warnings []string `json:"warnings"`
	// LogIndex and Published as in PublishResult.
	LogIndex  *int64           `json:"log_index"`
	Published PublishedVersion `json:"published"`
}

// AuthSSHSignature is the auth of every SignedPublishResult.
const AuthSSHSignature = "ssh-signature"

// MeResult answers GET /api/me.
type MeResult struct {
	OK   bool `json:"ok"`
	User User `json:"user"`
	// Token is the token the request was made with.
	Token MeToken `json:"token"`
}

// MeToken is what GET /api/me says of the token it was asked with: what a
// client shows of its stored credentials (pact auth status).
type MeToken struct {
	Name string `json:"name"`
	// Scopes and Packages as in Token: null for every scope, every pack.
	Scopes    *[]string  `json:"scopes"`
	Packages  *[]string  `json:"packages"`
	ExpiresAt *time.Time `json:"expires_at"` // null: never expires
}

// KeyList answers GET /api/ssh-keys: the caller's keys.
type KeyList struct {
	OK   bool  `json:"ok"`
	Keys []Key `json:"keys"`
}

// KeyResult answers POST /api/ssh-keys: the key just registered.
type KeyResult struct {
	OK  bool `json:"ok"`
	Key Key  `json:"key"`
}

// Request bodies. Optional fields are pointers, so the server tells an
// absent field from an empty one, and omitempty, so a client leaves out
// what it does not set; required fields the server must see to be present
// are pointers too, always set by clients.

// PublishRequest is the JSON body of POST /api/publish.
type PublishRequest struct {
	Content     Bytes   `json:"content"` // the whole pack document
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
	// Owner is the user or organisation to publish into; absent for the
	// caller's own namespace.
	Owner *string `json:"owner,omitempty"`
}

// SignedPublishRequest is the body of POST /api/publish-signed. It repeats
// PublishRequest's fields rather than embedding it: encoding/json names an
// embedded struct's Go type in its errors, which users must not see.
type SignedPublishRequest struct {
	Content     Bytes   `json:"content"`
	Timestamp   *int64  `json:"timestamp"` // Unix seconds, as signed
	Nonce       *string `json:"nonce"`
	Fingerprint *string `json:"fingerprint"`
	Signature   *string `json:"signature"` // armored SSHSIG, namespace pact
	Name        *string `json:"name,omitempty"`
	Description *string `json:"description,omitempty"`
}

// SSHKeyRequest is the body of POST /api/ssh-keys.
type SSHKeyRequest struct {
	PublicKey *string `json:"public_key"` // one authorized_keys line
	Name      *string `json:"name,omitempty"`
}

// The fields of POST /api/publish sent as multipart/form-data. When both
// file and content are sent, file wins.
const (
	FormFile        = "file" // a *.pact.md upload; its file name may name the pack
	FormContent     = "content"
	FormName        = "name"
	FormDescription = "description"
	FormOwner       = "owner"
)

// Optional is a pointer to s, or nil when s is empty: an optional request
// field a client leaves out unless it is set.
func Optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
