package client

import (
	"context"
	"net/http"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// Organisations (docs/protocol.md, Organisations).
type (
	Org    = wire.Org
	Member = wire.Member
	// MemberChange is a membership as it now is, and what demoting an
	// owner took away: the trusted publishers it had added for the
	// organisation, and the tokens exchanged through them.
	MemberChange = wire.MemberResult
	// MemberRemoval is what removing a member took away, as MemberChange.
	MemberRemoval = wire.MemberRemoved
	// Membership is the caller's membership of an organisation.
	Membership = wire.Membership
)

// MyOrgs lists the organisations the token's account is a member of, by
// name, with its role in each.
func (c *Client) MyOrgs(ctx context.Context) ([]Membership, error) {
	var out wire.MembershipList
	if err := c.doJSON(ctx, request{method: http.MethodGet, path: routes.Orgs, withToken: true, repeatable: true}, &out); err != nil {
		return nil, err
	}
	if out.Orgs == nil {
		out.Orgs = []Membership{}
	}
	return out.Orgs, nil
}

// CreateOrg makes the organisation name, with the caller as its owner.
func (c *Client) CreateOrg(ctx context.Context, name, displayName string) (*Org, error) {
	body, err := jsonBody(wire.OrgRequest{Name: name, DisplayName: displayName})
	if err != nil {
		return nil, err
	}
	var out wire.OrgResult
	if err := c.doJSON(ctx, request{method: http.MethodPost, path: routes.Orgs, body: body, withToken: true}, &out); err != nil {
		return nil, err
	}
	return &out.Org, nil
}

// Org answers the organisation name; it needs no token.
func (c *Client) Org(ctx context.Context, name string) (*Org, error) {
	var out wire.OrgResult
	err := c.doJSON(ctx, request{method: http.MethodGet, path: routes.Fill(routes.Org, name), repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	if out.Org.Members == nil {
		out.Org.Members = []Member{}
	}
	return &out.Org, nil
}

// SetOrgMember gives username role (owner or maintainer) in org.
func (c *Client) SetOrgMember(ctx context.Context, org, username, role string) (*MemberChange, error) {
	body, err := jsonBody(wire.MemberRequest{Role: role})
	if err != nil {
		return nil, err
	}
	var out wire.MemberResult
	path := routes.Fill(routes.OrgMember, org, username)
	if err := c.doJSON(ctx, request{method: http.MethodPut, path: path, body: body, withToken: true, repeatable: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveOrgMember removes username from org.
func (c *Client) RemoveOrgMember(ctx context.Context, org, username string) (*MemberRemoval, error) {
	path := routes.Fill(routes.OrgMember, org, username)
	var out wire.MemberRemoved
	if err := c.doJSON(ctx, request{method: http.MethodDelete, path: path, withToken: true}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
