package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

type (
	// Token is an API token as the registry lists it: never its secret.
	Token = wire.Token
	// CreatedToken is a token just made, with its secret in Token.
	CreatedToken = wire.CreatedToken
)

// TokenOptions say what a new token holds.
type TokenOptions struct {
	Name string
	// Scopes: nil for every scope, an empty list for none.
	Scopes []string
	// Packages limit the publish and yank scopes; nil for every pack.
	Packages []string
	// ExpiresInDays: 0 for a token that never expires.
	ExpiresInDays int
}

// TokenListOptions say which tokens ListTokens returns.
type TokenListOptions struct {
	// All adds the expired and revoked tokens the registry still keeps;
	// otherwise only the active ones.
	All bool
}

// ListTokens returns the tokens of the client's account, newest first,
// reading every page of GET /api/tokens.
func (c *Client) ListTokens(ctx context.Context, opts TokenListOptions) ([]Token, error) {
	tokens := []Token{}
	for cursor := ""; ; {
		q := url.Values{"limit": {"100"}}
		if opts.All {
			q.Set("all", "true")
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var out wire.TokenList
		err := c.doJSON(ctx, request{method: http.MethodGet, path: routes.Tokens, query: q, withToken: true, repeatable: true}, &out)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, out.Tokens...)
		if out.NextCursor == nil || len(out.Tokens) == 0 {
			return tokens, nil
		}
		cursor = *out.NextCursor
	}
}

// CreateToken makes a token for the client's account; the answer holds its
// secret, which the registry never shows again.
func (c *Client) CreateToken(ctx context.Context, opts TokenOptions) (*CreatedToken, error) {
	req := wire.TokenRequest{Name: wire.Optional(opts.Name)}
	if opts.Scopes != nil {
		scopes := append([]string{}, opts.Scopes...)
		req.Scopes = &scopes
	}
	if opts.Packages != nil {
		packages := append([]string{}, opts.Packages...)
		req.Packages = &packages
	}
	if opts.ExpiresInDays != 0 {
		days := opts.ExpiresInDays
		req.ExpiresInDays = &days
	}
	body, err := jsonBody(req)
	if err != nil {
		return nil, err
	}
	var out wire.CreatedToken
	// Not repeated: a second attempt after a lost answer would make a
	// second token.
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.Tokens, body: body, withToken: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// RevokeToken revokes one of the account's tokens by id.
func (c *Client) RevokeToken(ctx context.Context, id int64) error {
	path := routes.Fill(routes.Token, strconv.FormatInt(id, 10))
	return c.doJSON(ctx, request{method: http.MethodDelete, path: path, withToken: true}, nil)
}
