package server

import (
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
		URL:            s.shared.URLs.Package(p.OwnerSlug, p.PackSlug),
		RawURL:         raw,
		InstallCommand: httpx.InstallCommand(raw, p.PackSlug),
		VersionsURL:    s.cfg.BaseURL + "/api/packages/" + p.OwnerSlug + "/" + p.PackSlug,
		CreatedAt:      wire.Time(p.CreatedAt),
		UpdatedAt:      wire.Time(p.UpdatedAt),
		Deprecated:     p.Deprecated,
	}
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
