package client

import "time"

// Package is a published pack: one (owner, pack) pair, described by its
// latest version.
type Package struct {
	ID             int64     `json:"id"`
	OwnerSlug      string    `json:"owner_slug"`
	PackSlug       string    `json:"pack_slug"`
	Name           string    `json:"name"`
	Description    string    `json:"description"`
	Scheme         string    `json:"scheme"`
	Version        string    `json:"version"` // the latest published version
	SHA256         string    `json:"sha256"`  // hex digest of the latest raw document
	URL            string    `json:"url"`
	RawURL         string    `json:"raw_url"`
	InstallCommand string    `json:"install_command"`
	VersionsURL    string    `json:"versions_url"`
	CreatedAt      time.Time `json:"created_at"`
	UpdatedAt      time.Time `json:"updated_at"`
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
	Signature   *Signature `json:"signature"` // nil for versions published with a token
}

// Signature is the provenance of a version published by SSH signature, kept
// so anyone can verify it again with ssh-keygen -Y verify.
type Signature struct {
	Fingerprint string `json:"fingerprint"`
	Timestamp   int64  `json:"timestamp"`
	Nonce       string `json:"nonce"`
	Signature   string `json:"signature"` // armored SSHSIG
	// SignedName and SignedDescription are the name and description lines
	// exactly as signed; nil (and SignedLinesKnown false) for versions
	// signed before the server kept them.
	SignedLinesKnown  bool    `json:"signed_lines_known"`
	SignedName        *string `json:"signed_name"`
	SignedDescription *string `json:"signed_description"`
	// PublicKey is the signer's authorized_keys line; nil when unknown.
	PublicKey *string `json:"public_key"`
}

// PackageList is one page of the package list, newest publish first.
type PackageList struct {
	Packages []Package `json:"packages"`
	// NextCursor fetches the following page; "" on the last page.
	NextCursor string `json:"next_cursor"`
}

// PackageDetail is a package with all its versions, newest first.
type PackageDetail struct {
	Package  Package   `json:"package"`
	Versions []Version `json:"versions"`
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

// PublishResult is the answer to a publish.
type PublishResult struct {
	Package Package `json:"package"`
	// Created is false when the same version with the same content was
	// published before (a harmless retry).
	Created bool `json:"created"`
	// Auth is "ssh-signature" for signed publishes, "" otherwise.
	Auth string `json:"auth,omitempty"`
}

// User is the account an API token belongs to.
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
	LastUsedAt  *time.Time `json:"last_used_at"`
}
