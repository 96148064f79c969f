package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// Release is a registered release of a version (docs/protocol.md,
// Releases).
type (
	Release        = wire.Release
	ReleaseRequest = wire.ReleaseRequest
	ReleaseResult  = wire.ReleaseResult
	ReleaseList    = wire.ReleaseList
	// ReleaseSummary is a release as lists show it: its artifacts
	// counted (GetRelease answers them).
	ReleaseSummary = wire.ReleaseSummary
)

func releasesPath(owner, pack string) string {
	return routes.Fill(routes.ContractReleases, owner, pack)
}

// RegisterRelease registers a release. Repeating it is safe: the identical
// release again changes nothing (Created false).
func (c *Client) RegisterRelease(ctx context.Context, req ReleaseRequest) (*ReleaseResult, error) {
	if req.Artifacts == nil {
		req.Artifacts = []map[string]any{}
	}
	body, err := jsonBody(req)
	if err != nil {
		return nil, err
	}
	var out ReleaseResult
	err = c.doJSON(ctx, request{method: http.MethodPost, path: routes.Releases, body: body, withToken: true, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ListReleases returns one page of owner/pack's releases, newest first,
// each with its artifact count; limit 0 is the server's default, cursor ""
// the first page. A page may hold fewer than limit and still have a
// NextCursor: pages are bounded in bytes too.
func (c *Client) ListReleases(ctx context.Context, owner, pack string, limit int, cursor string) (*ReleaseList, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out ReleaseList
	err := c.doJSON(ctx, request{method: http.MethodGet, path: releasesPath(owner, pack), query: q, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	if out.Releases == nil {
		out.Releases = []ReleaseSummary{}
	}
	return &out, nil
}

// GetRelease returns the release of owner/pack's version ("latest" for
// the latest version).
func (c *Client) GetRelease(ctx context.Context, owner, pack, version string) (*Release, error) {
	var out wire.ReleaseDetail
	path := releasesPath(owner, pack) + "/" + url.PathEscape(version)
	if err := c.doJSON(ctx, request{method: http.MethodGet, path: path, repeatable: true}, &out); err != nil {
		return nil, err
	}
	return &out.Release, nil
}
