package api

import (
	"bytes"
	"encoding/json"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Presenters turn domain values into the wire types of pkg/wire, which
// are the JSON of the interface.

func (s *Server) presentPackage(p *registry.Package) wire.Package {
	raw := s.shared.URLs.Raw(p.OwnerSlug, p.PackSlug)
	return wire.Package{
		ID: p.ID, OwnerSlug: p.OwnerSlug, PackSlug: p.PackSlug, Name: p.Name, Description: p.Description,
		Scheme: p.Scheme, Version: p.Version, SHA256: p.SHA256,
		URL:                   s.shared.URLs.Package(p.OwnerSlug, p.PackSlug),
		RawURL:                raw,
		InstallCommand:        httpx.InstallCommand(raw, p.PackSlug),
		VersionsURL:           s.cfg.BaseURL + "/api/packages/" + p.OwnerSlug + "/" + p.PackSlug,
		CreatedAt:             wire.Time(p.CreatedAt),
		UpdatedAt:             wire.Time(p.UpdatedAt),
		Deprecated:            p.Deprecated,
		TrustedPublishingOnly: p.TrustedPublishingOnly,
		Downloads:             p.Downloads,
	}
}

// presentDownloads is a package's download counts on the wire.
func presentDownloads(d *registry.Downloads) wire.PackageDownloads {
	out := wire.PackageDownloads{OK: true, Total: d.Total, Versions: make(map[string]int64, len(d.Versions)),
		Days: make([]wire.DownloadDay, len(d.Days))}
	for _, v := range d.Versions {
		out.Versions[v.Version] = v.Count
	}
	for i, day := range d.Days {
		out.Days[i] = wire.DownloadDay{Date: day.Day.String(), Count: day.Count}
	}
	return out
}

func (s *Server) presentVersion(p *registry.Package, v *registry.Version) wire.Version {
	out := wire.Version{
		Version: v.Version, Name: v.Name, Description: v.Description, Scheme: v.Scheme, SHA256: v.SHA256,
		Size: v.Size, CreatedAt: wire.Time(v.CreatedAt), RawURL: s.shared.URLs.VersionRaw(p.OwnerSlug, p.PackSlug, v.Version),
		Yanked: v.Yanked(), YankReason: v.YankReason,
		LogIndex: v.LogIndex,
	}
	if pv := v.Provenance; pv != nil {
		sig := &wire.Signature{Fingerprint: pv.Fingerprint, Timestamp: pv.Timestamp, Nonce: pv.Nonce, Signature: pv.Signature,
			SignedLinesKnown: pv.SignedLinesKnown}
		if pv.SignedLinesKnown {
			sig.SignedName, sig.SignedDescription = &pv.SignedName, &pv.SignedDescription
		}
		if pv.PublicKey != "" {
			sig.PublicKey = &pv.PublicKey
		}
		out.Signature = sig
	}
	if v.HasRelease {
		u := s.releaseURL(p.OwnerSlug, p.PackSlug, v.Version)
		out.ReleaseURL = &u
	}
	if ci := v.CI; ci != nil {
		out.CI = &wire.CI{Issuer: ci.Issuer, Repository: ci.Repository, Workflow: ci.Workflow, Ref: ci.Ref, SHA: ci.SHA, RunID: ci.RunID}
	}
	if pb := v.Publisher; pb != nil {
		by := &wire.PublishedBy{Username: pb.Username, Auth: "token"}
		switch {
		case v.Provenance != nil:
			by.Auth = wire.AuthSSHSignature
		case v.CI != nil:
			by.Auth = "oidc"
		}
		if v.TokenID != 0 {
			id := v.TokenID
			by.TokenID = &id
		}
		out.PublishedBy = by
	}
	return out
}

// presentPublished is the version a publish names (registry.Package's
// Published).
func presentPublished(p *registry.Package) wire.PublishedVersion {
	v := p.Published
	return wire.PublishedVersion{Version: v.Version, SHA256: v.SHA256, Size: v.Size, CreatedAt: wire.Time(v.CreatedAt), LogIndex: v.LogIndex}
}

func (s *Server) presentOrg(o *registry.Org) wire.Org {
	return wire.Org{Name: o.Account.Username, DisplayName: o.Account.DisplayName, URL: s.cfg.BaseURL + "/" + o.Account.Username,
		Packages: o.Packages, Members: presentMembers(o.Members), CreatedAt: wire.Time(o.Account.CreatedAt)}
}

func presentMembers(ms []registry.Member) []wire.Member {
	out := make([]wire.Member, len(ms))
	for i, m := range ms {
		out[i] = presentMember(&m)
	}
	return out
}

func presentMember(m *registry.Member) wire.Member {
	return wire.Member{Username: m.Username, Role: string(m.Role), AddedAt: wire.Time(m.CreatedAt)}
}

func presentKey(k *registry.SSHKey) wire.Key {
	return wire.Key{ID: k.ID, Name: k.Name, Type: k.Type, Fingerprint: k.Fingerprint, PublicKey: k.PublicKey,
		CreatedAt: wire.Time(k.CreatedAt), LastUsedAt: wire.OptionalTime(k.LastUsedAt)}
}

func presentUser(a *registry.Account) wire.User {
	return wire.User{ID: a.ID, Email: a.Email, Username: a.Username, CreatedAt: wire.Time(a.CreatedAt)}
}

// presentWarnings gives a publish's warnings as a list that is never null,
// so clients can read it without a nil check.
func presentWarnings(p *registry.Package) []string {
	if p.Warnings == nil {
		return []string{}
	}
	return p.Warnings
}

func presentToken(t *registry.Token) wire.Token {
	out := wire.Token{ID: t.ID, Name: t.Name, CreatedAt: wire.Time(t.CreatedAt), ExpiresAt: wire.OptionalTime(t.ExpiresAt),
		LastUsedAt: wire.OptionalTime(t.LastUsedAt), Revoked: t.RevokedAt != nil, RevokedAt: wire.OptionalTime(t.RevokedAt)}
	if t.Scopes != nil {
		scopes := make([]string, len(t.Scopes))
		for i, sc := range t.Scopes {
			scopes[i] = string(sc)
		}
		out.Scopes = &scopes
	}
	if t.Packages != nil {
		packages := append([]string{}, t.Packages...)
		out.Packages = &packages
	}
	return out
}

// presentCreatedToken is a token just made, with its secret: the answer
// of POST /api/tokens and of a device login's collection.
func presentCreatedToken(t *registry.Token, secret string) wire.CreatedToken {
	p := presentToken(t)
	return wire.CreatedToken{OK: true, ID: p.ID, Name: p.Name, Scopes: p.Scopes, Packages: p.Packages,
		CreatedAt: p.CreatedAt, ExpiresAt: p.ExpiresAt, LastUsedAt: p.LastUsedAt, Revoked: p.Revoked, RevokedAt: p.RevokedAt, Token: secret}
}

func presentTrustedPublisher(p *registry.TrustedPublisher) wire.TrustedPublisher {
	claims := p.Claims
	if claims == nil {
		claims = map[string]string{}
	}
	w := wire.TrustedPublisher{ID: p.ID, Issuer: p.Issuer, Packages: append([]string{}, p.Packages...), Claims: claims,
		NamesOnly: p.NamesOnly(), CreatedAt: wire.Time(p.CreatedAt), ExpiresAt: wire.OptionalTime(p.ExpiresAt)}
	if m := p.CreatedBy; m != nil {
		w.CreatedBy = &wire.Maker{Username: m.Username}
		if m.TokenID != 0 {
			id := m.TokenID
			w.CreatedBy.TokenID = &id
		}
	}
	return w
}

// presentRevoked is what a member change took away, [] when nothing.
func presentRevoked(ch *registry.MemberChange) ([]wire.TrustedPublisher, []int64) {
	removed := make([]wire.TrustedPublisher, len(ch.RemovedTrustedPublishers))
	for i := range ch.RemovedTrustedPublishers {
		removed[i] = presentTrustedPublisher(&ch.RemovedTrustedPublishers[i])
	}
	return removed, append([]int64{}, ch.RevokedTokens...)
}

// presentReleaseSummary is r as a list shows it: its artifacts counted.
func (s *Server) presentReleaseSummary(r *registry.Release) wire.ReleaseSummary {
	out := wire.ReleaseSummary{
		ContractID: r.ContractID(), Version: r.Version, ContractDigest: r.ContractDigest(),
		ArtifactIndexURL: r.ArtifactIndexURL, ArtifactCount: r.ArtifactCount,
		ReleaseDigest: "sha256:" + r.SHA256, CreatedAt: wire.Time(r.CreatedAt), LogIndex: r.LogIndex,
		URL:     s.releaseURL(r.Owner, r.Pack, r.Version),
		HTMLURL: s.shared.URLs.Package(r.Owner, r.Pack) + "@" + r.Version,
	}
	if r.ContractURL != "" {
		out.ContractURL = &r.ContractURL
	}
	if r.SourceGitCommit != "" {
		out.SourceGitCommit = &r.SourceGitCommit
	}
	return out
}

func (s *Server) presentRelease(r *registry.Release) wire.Release {
	out := wire.Release{
		ContractID: r.ContractID(), Version: r.Version, ContractDigest: r.ContractDigest(),
		ArtifactIndexURL: r.ArtifactIndexURL, Artifacts: make([]map[string]any, 0, len(r.Artifacts)),
		ReleaseDigest: "sha256:" + r.SHA256, CreatedAt: wire.Time(r.CreatedAt), LogIndex: r.LogIndex,
		URL:     s.releaseURL(r.Owner, r.Pack, r.Version),
		HTMLURL: s.shared.URLs.Package(r.Owner, r.Pack) + "@" + r.Version,
	}
	if r.ContractURL != "" {
		out.ContractURL = &r.ContractURL
	}
	if r.SourceGitCommit != "" {
		out.SourceGitCommit = &r.SourceGitCommit
	}
	for _, raw := range r.Artifacts {
		// Numbers stay as sent: json.Number marshals its own text.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var a map[string]any
		if dec.Decode(&a) == nil {
			out.Artifacts = append(out.Artifacts, a)
		}
	}
	return out
}
