package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Organisations (docs/protocol.md, Organisations): reads are public, but
// for the caller's own list, which needs a token of any scope;
// creating one and changing members need a token with the tokens scope,
// since a membership is a way to publish, as a trusted publisher is, and
// no pack limit (the domain's checkWholeNamespace). Who may change what is
// the domain's (registry.Can).

func (s *Server) createOrg(c *gin.Context) {
	var body wire.OrgRequest
	if err := s.decodeStrict(c, &body, wire.OrgRequestFields, "an organisation has name and display_name"); err != nil {
		s.shared.Fail(c, err)
		return
	}
	o, err := s.svc.CreateOrg(c, account(c), apiToken(c), body.Name, body.DisplayName)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusCreated, wire.OrgResult{OK: true, Org: s.presentOrg(o)})
}

// myOrgs lists the organisations of the token's account, with its role in
// each (pact org list).
func (s *Server) myOrgs(c *gin.Context) {
	ms, err := s.svc.OrgsOf(c, account(c))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.Membership, len(ms))
	for i, m := range ms {
		// OrgsOf names the organisation in Username.
		out[i] = wire.Membership{Name: m.Username, Role: string(m.Role), AddedAt: wire.Time(m.CreatedAt)}
	}
	httpx.JSON(c, http.StatusOK, wire.MembershipList{OK: true, Orgs: out})
}

func (s *Server) showOrg(c *gin.Context) {
	o, err := s.svc.Org(c, c.Param("org"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.OrgResult{OK: true, Org: s.presentOrg(o)})
}

func (s *Server) listMembers(c *gin.Context) {
	o, err := s.svc.Org(c, c.Param("org"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.MemberList{OK: true, Members: presentMembers(o.Members)})
}

func (s *Server) setMember(c *gin.Context) {
	var body wire.MemberRequest
	if err := s.decodeStrict(c, &body, wire.MemberRequestFields, "a membership has role"); err != nil {
		s.shared.Fail(c, err)
		return
	}
	role, err := registry.ParseRole(body.Role)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	ch, err := s.svc.SetMember(c, account(c), apiToken(c), c.Param("org"), c.Param("username"), role)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	removed, revoked := presentRevoked(ch)
	httpx.JSON(c, http.StatusOK, wire.MemberResult{OK: true, Member: presentMember(ch.Member), RemovedTrustedPublishers: removed, RevokedTokens: revoked})
}

func (s *Server) removeMember(c *gin.Context) {
	ch, err := s.svc.RemoveMember(c, account(c), apiToken(c), c.Param("org"), c.Param("username"))
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	removed, revoked := presentRevoked(ch)
	httpx.JSON(c, http.StatusOK, wire.MemberRemoved{OK: true, RemovedTrustedPublishers: removed, RevokedTokens: revoked})
}
