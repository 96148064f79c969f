package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// Me returns the account the client's token belongs to.
func (c *Client) Me(ctx context.Context) (*User, error) {
	user, _, err := c.MeAndToken(ctx)
	return user, err
}

// MeToken is what the registry says of the token a request was made with.
type MeToken = wire.MeToken

// MeAndToken returns the account the client's token belongs to and the
// token's name, scopes, packages and expiry; the token is nil from a
// registry too old to say.
func (c *Client) MeAndToken(ctx context.Context) (*User, *MeToken, error) {
	var out struct {
		User  User     `json:"user"`
		Token *MeToken `json:"token"`
	}
	err := c.doJSON(ctx, request{method: http.MethodGet, path: routes.Me, withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, nil, err
	}
	return &out.User, out.Token, nil
}

// ListKeys returns the SSH keys registered for the token's account.
func (c *Client) ListKeys(ctx context.Context) ([]Key, error) {
	var out wire.KeyList
	err := c.doJSON(ctx, request{method: http.MethodGet, path: routes.SSHKeys, withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	if out.Keys == nil {
		out.Keys = []Key{}
	}
	return out.Keys, nil
}

// AddKey registers an SSH public key (one authorized_keys line) for signed
// publishing. name labels it; "" uses the key's comment.
func (c *Client) AddKey(ctx context.Context, publicKey, name string) (*Key, error) {
	body, err := jsonBody(wire.SSHKeyRequest{PublicKey: &publicKey, Name: wire.Optional(name)})
	if err != nil {
		return nil, err
	}
	var out wire.KeyResult
	// Not repeated: a second attempt after a lost answer would be refused
	// as a duplicate (409) although the first one worked.
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.SSHKeys, body: body, withToken: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out.Key, nil
}

// DeleteKey removes one of the account's SSH keys by id.
func (c *Client) DeleteKey(ctx context.Context, id int64) error {
	path := routes.Fill(routes.SSHKey, strconv.FormatInt(id, 10))
	return c.doJSON(ctx, request{method: http.MethodDelete, path: path, withToken: true}, nil)
}

// OwnerKeys returns the authorized_keys text of an owner's registered keys
// (GET /{owner}.keys), one "type base64 name" line per key.
func (c *Client) OwnerKeys(ctx context.Context, owner string) (string, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: "/" + url.PathEscape(owner) + ".keys", repeatable: true})
	if err != nil {
		return "", err
	}
	return string(resp.body), nil
}

// OpenAPI returns the server's OpenAPI 3.0.3 document.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: "/openapi.json", repeatable: true})
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}

// Health reports whether the server process answers (GET /healthz).
func (c *Client) Health(ctx context.Context) error {
	return c.doJSON(ctx, request{method: http.MethodGet, path: "/healthz"}, nil)
}

// Ready reports whether the server can serve requests, its database
// included (GET /readyz); an *APIError with status 503 when it cannot.
func (c *Client) Ready(ctx context.Context) error {
	return c.doJSON(ctx, request{method: http.MethodGet, path: "/readyz"}, nil)
}
