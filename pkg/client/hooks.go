package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// Webhooks (docs/protocol.md, Webhooks).
type (
	Hook         = wire.Hook
	HookDelivery = wire.HookDelivery
	// HookPayload is the body of a delivery, for receivers written in Go.
	HookPayload = wire.HookPayload
)

// HookSpec is a new hook: Owner "" is the caller, Package "" every pack
// of the owner.
type HookSpec struct {
	Owner, Package, URL, Secret string
	Events                      []string
}

// AddHook makes a hook.
func (c *Client) AddHook(ctx context.Context, spec HookSpec) (*Hook, error) {
	req := wire.HookRequest{URL: &spec.URL, Secret: &spec.Secret, Events: spec.Events}
	if spec.Owner != "" {
		req.Owner = &spec.Owner
	}
	if spec.Package != "" {
		req.Package = &spec.Package
	}
	body, err := jsonBody(req)
	if err != nil {
		return nil, err
	}
	var out wire.HookResult
	if err := c.doJSON(ctx, request{method: http.MethodPost, path: routes.Hooks, body: body, withToken: true}, &out); err != nil {
		return nil, err
	}
	return &out.Hook, nil
}

// Hooks lists the hooks of owner ("": the caller's own).
func (c *Client) Hooks(ctx context.Context, owner string) ([]Hook, error) {
	path := routes.Hooks
	if owner != "" {
		path += "?owner=" + url.QueryEscape(owner)
	}
	var out wire.HookList
	if err := c.doJSON(ctx, request{method: http.MethodGet, path: path, withToken: true, repeatable: true}, &out); err != nil {
		return nil, err
	}
	if out.Hooks == nil {
		out.Hooks = []Hook{}
	}
	return out.Hooks, nil
}

// RemoveHook deletes hook id.
func (c *Client) RemoveHook(ctx context.Context, id int64) error {
	return c.doJSON(ctx, request{method: http.MethodDelete, path: routes.Fill(routes.Hook, strconv.FormatInt(id, 10)), withToken: true}, &wire.OK{})
}

// HookDeliveries answers hook id and its newest deliveries, newest first.
func (c *Client) HookDeliveries(ctx context.Context, id int64) (*Hook, []HookDelivery, error) {
	var out wire.HookDeliveryList
	path := routes.Fill(routes.HookDeliveries, strconv.FormatInt(id, 10))
	if err := c.doJSON(ctx, request{method: http.MethodGet, path: path, withToken: true, repeatable: true}, &out); err != nil {
		return nil, nil, err
	}
	if out.Deliveries == nil {
		out.Deliveries = []HookDelivery{}
	}
	return &out.Hook, out.Deliveries, nil
}

// Redeliver queues delivery of hook id again.
func (c *Client) Redeliver(ctx context.Context, id, delivery int64) (*HookDelivery, error) {
	var out wire.HookDeliveryResult
	path := routes.Fill(routes.HookRedeliver, strconv.FormatInt(id, 10), strconv.FormatInt(delivery, 10))
	if err := c.doJSON(ctx, request{method: http.MethodPost, path: path, withToken: true}, &out); err != nil {
		return nil, err
	}
	return &out.Delivery, nil
}
