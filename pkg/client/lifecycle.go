package client

import (
	"context"
	"net/http"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// YankResult is the answer to a yank or un-yank: the package as it is now
// (its latest version may have moved) and the version.
type YankResult = wire.YankResult

// YankVersion withdraws one version of one of the token's account's
// packages: it is never the latest again and not offered in lists, but its
// exact address still serves it. reason may be "". Yanking is idempotent,
// so a lost answer is retried.
func (c *Client) YankVersion(ctx context.Context, owner, pack, version, reason string) (*YankResult, error) {
	body, err := jsonBody(wire.YankRequest{Reason: wire.Optional(reason)})
	if err != nil {
		return nil, err
	}
	var out YankResult
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.Fill(routes.Yank, owner, pack, version), body: body,
		withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UnyankVersion undoes YankVersion.
func (c *Client) UnyankVersion(ctx context.Context, owner, pack, version string) (*YankResult, error) {
	var out YankResult
	err := c.doJSON(ctx, request{method: http.MethodPost, path: routes.Fill(routes.Unyank, owner, pack, version),
		withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeprecatePackage sets the deprecation message of one of the token's
// account's packages; "" undoes the deprecation. It returns the package.
func (c *Client) DeprecatePackage(ctx context.Context, owner, pack, message string) (*Package, error) {
	body, err := jsonBody(wire.DeprecateRequest{Message: &message})
	if err != nil {
		return nil, err
	}
	var out wire.DeprecateResult
	path := routes.Fill(routes.Deprecate, owner, pack)
	err = c.doJSON(ctx, request{method: http.MethodPost, path: path, body: body, withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out.Package, nil
}

// SetTrustedPublishingOnly turns the trusted-publishing-only setting of
// owner/pack on (only) or off: while it is on, only tokens exchanged
// through a trusted publisher publish the package. Setting a value is
// idempotent, so a lost answer is retried. It returns the package.
func (c *Client) SetTrustedPublishingOnly(ctx context.Context, owner, pack string, only bool) (*Package, error) {
	body, err := jsonBody(wire.PackageSettingsRequest{TrustedPublishingOnly: &only})
	if err != nil {
		return nil, err
	}
	var out wire.PackageSettingsResult
	path := routes.Fill(routes.Package, owner, pack)
	err = c.doJSON(ctx, request{method: http.MethodPatch, path: path, body: body, withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out.Package, nil
}
