package client

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// Logging in through the browser (docs/protocol.md), RFC 8628's device
// authorization grant: StartDeviceLogin begins a login whose user code the
// user approves on the registry's page, and WaitDeviceLogin polls until
// it is decided.

// DeviceLogin is a login waiting for its approval in the browser: the
// codes, the page that approves it, and how long and how often to poll.
type DeviceLogin = wire.DeviceLogin

// StartDeviceLogin begins a login of the command line; name is the name
// of the token it makes ("" for the registry's default), scopes the scopes
// it asks for, which the approval page ticks first (none: the user ticks
// them); the user decides both when approving. Needs no token.
func (c *Client) StartDeviceLogin(ctx context.Context, name string, scopes ...string) (*DeviceLogin, error) {
	body, err := jsonBody(wire.DeviceLoginRequest{Name: wire.Optional(name), Scopes: scopes})
	if err != nil {
		return nil, err
	}
	var out DeviceLogin
	// Repeated when it fails in passing: a login begun twice costs a row
	// that expires unused.
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.DeviceLogin, body: body, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitDeviceLogin polls the login every login.Interval seconds until the
// user decides: it answers the token of an approval, or the registry's
// refusal, an *APIError whose Code is wire.DeviceAccessDenied (denied) or
// wire.DeviceExpiredToken (not approved in time). Told to slow down, it
// waits 5 seconds longer from then on, as RFC 8628 says. A poll that fails
// in passing (no answer, a fault of the registry) is tried again at the
// next interval while the login lasts. It ends with ctx.
func (c *Client) WaitDeviceLogin(ctx context.Context, login *DeviceLogin) (*CreatedToken, error) {
	interval := time.Duration(login.Interval) * time.Second
	if interval <= 0 {
		interval = 5 * time.Second
	}
	deadline := c.now().Add(time.Duration(login.ExpiresIn) * time.Second)
	body, err := jsonBody(wire.DeviceTokenRequest{DeviceCode: login.DeviceCode})
	if err != nil {
		return nil, err
	}
	for {
		if err := c.sleep(ctx, interval); err != nil {
			return nil, err
		}
		var out CreatedToken
		// Not repeated within a poll: the token is given once, so a
		// second attempt after a lost answer would only hear
		// expired_token.
		err := c.doJSON(ctx, request{method: http.MethodPost, path: routes.DeviceLoginToken, body: body}, &out)
		var apiErr *APIError
		var transport *transportError
		switch {
		case err == nil:
			return &out, nil
		case errors.As(err, &apiErr) && apiErr.Code == wire.DeviceAuthorizationPending:
		case errors.As(err, &apiErr) && apiErr.Code == wire.DeviceSlowDown:
			interval += 5 * time.Second
		case (errors.As(err, &transport) || StatusCode(err) >= 500) && c.now().Before(deadline):
		default:
			return nil, err
		}
	}
}
