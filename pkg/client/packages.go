package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/wire"
)

// ListOptions filters and pages the package list. Zero values mean "any".
type ListOptions struct {
	// Limit is the page size, 1 to 100; 0 lets the server choose (20).
	Limit int
	// Cursor is the NextCursor of the previous page; "" for the first.
	Cursor string
	// Query keeps packages whose name or description holds every word.
	Query  string
	Owner  string
	Scheme string
}

// ListPackages returns one page of packages, newest latest version first.
func (c *Client) ListPackages(ctx context.Context, opts ListOptions) (*PackageList, error) {
	q := url.Values{}
	if opts.Limit != 0 {
		q.Set("limit", strconv.Itoa(opts.Limit))
	}
	setIf(q, "cursor", opts.Cursor)
	setIf(q, "q", opts.Query)
	setIf(q, "owner", opts.Owner)
	setIf(q, "scheme", opts.Scheme)

	var out wire.PackageList
	err := c.doJSON(ctx, request{method: http.MethodGet, path: routes.Packages, query: q, repeatable: true}, &out)
	if err != nil {
		return nil, err
	}
	list := &PackageList{Packages: out.Packages, Suggestions: out.Suggestions}
	if list.Packages == nil {
		list.Packages = []Package{}
	}
	if out.NextCursor != nil {
		list.NextCursor = *out.NextCursor
	}
	return list, nil
}

// GetPackage returns a package and all its versions, newest first.
func (c *Client) GetPackage(ctx context.Context, owner, pack string) (*PackageDetail, error) {
	var out PackageDetail
	path := routes.Fill(routes.Package, owner, pack)
	if err := c.doJSON(ctx, request{method: http.MethodGet, path: path, repeatable: true}, &out); err != nil {
		return nil, err
	}
	if out.Versions == nil {
		out.Versions = []Version{}
	}
	return &out, nil
}

// GetDownloads returns a package's download counts as the registry has
// flushed them: in all, by version, and for each of the last 90 UTC days.
func (c *Client) GetDownloads(ctx context.Context, owner, pack string) (*PackageDownloads, error) {
	var out PackageDownloads
	path := routes.Fill(routes.PackageDownloads, owner, pack)
	if err := c.doJSON(ctx, request{method: http.MethodGet, path: path, repeatable: true}, &out); err != nil {
		return nil, err
	}
	if out.Versions == nil {
		out.Versions = map[string]int64{}
	}
	if out.Days == nil {
		out.Days = []DownloadDay{}
	}
	return &out, nil
}

// Raw downloads a raw pack document: the latest version when version is "",
// else that version. sha256 is the hex digest the server vouches for (its
// ETag); callers should compare it with the digest of content.
func (c *Client) Raw(ctx context.Context, owner, pack, version string) (content []byte, sha256 string, err error) {
	name := pack
	if version != "" {
		name += "@" + version
	}
	path := routes.Fill(routes.Raw, owner, name+".pact.md")
	resp, err := c.do(ctx, request{method: http.MethodGet, path: path, repeatable: true})
	if err != nil {
		return nil, "", err
	}
	etag := resp.header.Get("ETag")
	etag = strings.TrimPrefix(etag, "W/")
	etag = strings.Trim(etag, `"`)
	if etag == "" {
		return nil, "", fmt.Errorf("the server sent %s without the digest to check it against", path)
	}
	return resp.body, etag, nil
}

func setIf(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}
