package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// TrustedPublisher lets CI jobs publish with no stored token
// (docs/protocol.md, Trusted publishing).
type TrustedPublisher = wire.TrustedPublisher

// Maker is who added a trusted publisher: a user, and the token it used.
type Maker = wire.Maker

// ownerQuery names the organisation whose trusted publishers a call
// manages; "" for the account's own.
func ownerQuery(owner string) string {
	if owner == "" {
		return ""
	}
	return "?owner=" + url.QueryEscape(owner)
}

// ListTrustedPublishers returns the trusted publishers of the account, or
// of the organisation owner (of which it must be an owner), oldest first.
func (c *Client) ListTrustedPublishers(ctx context.Context, owner string) ([]TrustedPublisher, error) {
	var out wire.TrustedPublisherList
	err := c.doJSON(ctx, request{method: http.MethodGet, path: routes.TrustedPublishers + ownerQuery(owner), withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	if out.TrustedPublishers == nil {
		out.TrustedPublishers = []TrustedPublisher{}
	}
	return out.TrustedPublishers, nil
}

// AddTrustedPublisher trusts the CI jobs of issuer whose ID tokens carry
// every one of claims to publish the packs packages names, of the account
// or of the organisation owner ("" for the account's own).
func (c *Client) AddTrustedPublisher(ctx context.Context, owner, issuer string, packages []string, claims map[string]string) (*TrustedPublisher, error) {
	body, err := jsonBody(wire.TrustedPublisherRequest{Owner: owner, Issuer: issuer, Packages: packages, Claims: claims})
	if err != nil {
		return nil, err
	}
	var out wire.CreatedTrustedPublisher
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.TrustedPublishers, body: body, withToken: true}, &out)
	if err != nil {
		return nil, err
	}
	return &TrustedPublisher{ID: out.ID, Issuer: out.Issuer, Packages: out.Packages, Claims: out.Claims, NamesOnly: out.NamesOnly,
		CreatedAt: out.CreatedAt, ExpiresAt: out.ExpiresAt, CreatedBy: out.CreatedBy}, nil
}

// RemoveTrustedPublisher removes one of the trusted publishers of the
// account, or of the organisation owner.
func (c *Client) RemoveTrustedPublisher(ctx context.Context, owner string, id int64) error {
	path := routes.Fill(routes.TrustedPublisher, strconv.FormatInt(id, 10)) + ownerQuery(owner)
	return c.doJSON(ctx, request{method: http.MethodDelete, path: path, withToken: true}, nil)
}

// ExchangeIDToken trades a CI job's OpenID Connect ID token for a publish
// token valid for at most 15 minutes, of the user or organisation owner,
// whose trusted publishers alone are then considered ("" for whichever
// account's match). It sends no API token.
func (c *Client) ExchangeIDToken(ctx context.Context, idToken, owner string) (*wire.OIDCExchange, error) {
	body, err := jsonBody(wire.OIDCExchangeRequest{Token: idToken, Owner: owner})
	if err != nil {
		return nil, err
	}
	var out wire.OIDCExchange
	// Not repeated: the ID token's jti is spent by the first attempt.
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.OIDCExchange, body: body}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
