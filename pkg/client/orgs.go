package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/pact-registry/pact/pkg/wire"
)

// Organisations (docs/protocol.md, Organisations).
type (
	Org    = wire.Org
	Member = wire.Member
)

// CreateOrg makes the organisation name, with the caller as its owner.
func (c *Client) CreateOrg(ctx context.Context, name, displayName string) (*Org, error) {
	body, err := jsonBody(wire.OrgRequest{Name: name, DisplayName: displayName})
	if err != nil {
		return nil, err
	}
	var out wire.OrgResult
	if err := c.doJSON(ctx, request{method: http.MethodPost, path: "/api/orgs", body: body, withToken: true}, &out); err != nil {
		return nil, err
	}
	return &out.Org, nil
}

// Org answers the organisation name; it needs no token.
func (c *Client) Org(ctx context.Context, name string) (*Org, error) {
	var out wire.OrgResult
	err := c.doJSON(ctx, request{method: http.MethodGet, path: "/api/orgs/" + url.PathEscape(name), repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	if out.Org.Members == nil {
		out.Org.Members = []Member{}
	}
	return &out.Org, nil
}

// SetOrgMember gives username role (owner or maintainer) in org.
func (c *Client) SetOrgMember(ctx context.Context, org, username, role string) (*Member, error) {
	body, err := jsonBody(wire.MemberRequest{Role: role})
	if err != nil {
		return nil, err
	}
	var out wire.MemberResult
	path := "/api/orgs/" + url.PathEscape(org) + "/members/" + url.PathEscape(username)
	if err := c.doJSON(ctx, request{method: http.MethodPut, path: path, body: body, withToken: true, repeatable: true}, &out); err != nil {
		return nil, err
	}
	return &out.Member, nil
}

// RemoveOrgMember removes username from org.
func (c *Client) RemoveOrgMember(ctx context.Context, org, username string) error {
	path := "/api/orgs/" + url.PathEscape(org) + "/members/" + url.PathEscape(username)
	return c.doJSON(ctx, request{method: http.MethodDelete, path: path, withToken: true}, nil)
}
