package server

import (
	"time"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The JSON shapes of the interface. Field names are the wire format: they
// change only together with openapi.json.

type packageJSON struct {
	ID             int64  `json:"id"`
	OwnerSlug      string `json:"owner_slug"`
	PackSlug       string `json:"pack_slug"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	Scheme         string `json:"scheme"`
	Version        string `json:"version"`
	SHA256         string `json:"sha256"`
	URL            string `json:"url"`
	RawURL         string `json:"raw_url"`
	InstallCommand string `json:"install_command"`
	VersionsURL    string `json:"versions_url"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
}

// Response envelopes: "ok" first, so a person reading curl output sees it.
type packageListJSON struct {
	OK         bool          `json:"ok"`
	Packages   []packageJSON `json:"packages"`
	NextCursor *string       `json:"next_cursor"`
}

type packageDetailJSON struct {
	OK       bool          `json:"ok"`
	Package  packageJSON   `json:"package"`
	Versions []versionJSON `json:"versions"`
}

type publishedJSON struct {
	OK      bool        `json:"ok"`
	Package packageJSON `json:"package"`
	Auth    string      `json:"auth,omitempty"` // "ssh-signature" on /api/publish-signed
	Created bool        `json:"created"`
}

type meJSON struct {
	OK   bool     `json:"ok"`
	User userJSON `json:"user"`
}

type keyListJSON struct {
	OK   bool      `json:"ok"`
	Keys []keyJSON `json:"keys"`
}

type keyAddedJSON struct {
	OK  bool    `json:"ok"`
	Key keyJSON `json:"key"`
}

type signatureJSON struct {
	Fingerprint string `json:"fingerprint"`
	Timestamp   int64  `json:"timestamp"`
	Nonce       string `json:"nonce"`
	Signature   string `json:"signature"`
	// The name and description lines exactly as signed; null, with
	// signed_lines_known false, for versions signed before they were kept.
	SignedLinesKnown  bool    `json:"signed_lines_known"`
	SignedName        *string `json:"signed_name"`
	SignedDescription *string `json:"signed_description"`
	PublicKey         *string `json:"public_key"` // null when unknown
}

type versionJSON struct {
	Version     string         `json:"version"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Scheme      string         `json:"scheme"`
	SHA256      string         `json:"sha256"`
	Size        int64          `json:"size"`
	CreatedAt   string         `json:"created_at"`
	RawURL      string         `json:"raw_url"`
	Signature   *signatureJSON `json:"signature"`
}

type keyJSON struct {
	ID          int64   `json:"id"`
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Fingerprint string  `json:"fingerprint"`
	PublicKey   string  `json:"public_key"`
	CreatedAt   string  `json:"created_at"`
	LastUsedAt  *string `json:"last_used_at"`
}

type userJSON struct {
	ID        int64  `json:"id"`
	Email     string `json:"email"`
	Username  string `json:"username"`
	CreatedAt string `json:"created_at"`
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func optionalTimestamp(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

func (s *Server) presentPackage(p *registry.Package) packageJSON {
	raw := s.shared.URLs.Raw(p.OwnerSlug, p.PackSlug)
	return packageJSON{
		ID: p.ID, OwnerSlug: p.OwnerSlug, PackSlug: p.PackSlug, Name: p.Name, Description: p.Description,
		Scheme: p.Scheme, Version: p.Version, SHA256: p.SHA256,
		URL:            s.shared.URLs.Package(p.OwnerSlug, p.PackSlug),
		RawURL:         raw,
		InstallCommand: httpx.InstallCommand(raw, p.PackSlug),
		VersionsURL:    s.cfg.BaseURL + "/api/packages/" + p.OwnerSlug + "/" + p.PackSlug,
		CreatedAt:      timestamp(p.CreatedAt),
		UpdatedAt:      timestamp(p.UpdatedAt),
	}
}

func (s *Server) presentVersion(p *registry.Package, v *registry.Version) versionJSON {
	out := versionJSON{
		Version: v.Version, Name: v.Name, Description: v.Description, Scheme: v.Scheme, SHA256: v.SHA256,
		Size: v.Size, CreatedAt: timestamp(v.CreatedAt), RawURL: s.shared.URLs.VersionRaw(p.OwnerSlug, p.PackSlug, v.Version),
	}
	if pv := v.Provenance; pv != nil {
		sig := &signatureJSON{Fingerprint: pv.Fingerprint, Timestamp: pv.Timestamp, Nonce: pv.Nonce, Signature: pv.Signature,
			SignedLinesKnown: pv.SignedLinesKnown}
		if pv.SignedLinesKnown {
			sig.SignedName, sig.SignedDescription = &pv.SignedName, &pv.SignedDescription
		}
		if pv.PublicKey != "" {
			sig.PublicKey = &pv.PublicKey
		}
		out.Signature = sig
	}
	return out
}

func presentKey(k *registry.SSHKey) keyJSON {
	return keyJSON{ID: k.ID, Name: k.Name, Type: k.Type, Fingerprint: k.Fingerprint, PublicKey: k.PublicKey,
		CreatedAt: timestamp(k.CreatedAt), LastUsedAt: optionalTimestamp(k.LastUsedAt)}
}

func presentUser(a *registry.Account) userJSON {
	return userJSON{ID: a.ID, Email: a.Email, Username: a.Username, CreatedAt: timestamp(a.CreatedAt)}
}
