package shared

import (
	"context"
	"net/url"
	"strings"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/pkg/client"
)

// ParsePackRef splits OWNER/PACK[@VERSION].
func ParsePackRef(ref string) (owner, pack, version string, err error) {
	owner, pack, version, ok := splitPackRef(ref)
	if !ok || owner == "" {
		return "", "", "", cmdutil.UsageErrorf("%q is not OWNER/PACK or OWNER/PACK@VERSION", ref)
	}
	return owner, pack, version, nil
}

// ParseMyPackRef splits [OWNER/]PACK[@VERSION]; owner is "" when left out,
// for the token's account (OwnerOrMe).
func ParseMyPackRef(ref string) (owner, pack, version string, err error) {
	owner, pack, version, ok := splitPackRef(ref)
	if !ok {
		return "", "", "", cmdutil.UsageErrorf("%q is not PACK, OWNER/PACK or OWNER/PACK@VERSION", ref)
	}
	return owner, pack, version, nil
}

// splitPackRef splits [OWNER/]PACK[@VERSION]; owner is "" when left out,
// ok false when ref is not of that form.
func splitPackRef(ref string) (owner, pack, version string, ok bool) {
	name, version, hasVersion := strings.Cut(ref, "@")
	owner, pack, hasOwner := strings.Cut(name, "/")
	if !hasOwner {
		owner, pack = "", name
	}
	if pack == "" || (hasOwner && owner == "") || strings.Contains(pack, "/") || (hasVersion && version == "") {
		return "", "", "", false
	}
	return owner, pack, version, true
}

// IsURL says whether a pack reference is a page address.
func IsURL(ref string) bool {
	return strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://")
}

// ParsePageURL reads the address of a package's page,
// SCHEME://HOST/OWNER/PACK[@VERSION], into the registry's address and the
// package.
func ParsePageURL(ref string) (host, owner, pack, version string, err error) {
	u, perr := url.Parse(ref)
	path := ""
	if perr == nil {
		path = strings.Trim(u.Path, "/")
	}
	if perr != nil || u.Host == "" || u.User != nil || strings.Count(path, "/") != 1 {
		return "", "", "", "", cmdutil.UsageErrorf("%q is not the address of a package page (https://HOST/OWNER/PACK[@VERSION])", ref)
	}
	owner, pack, version, err = ParsePackRef(path)
	if err != nil {
		return "", "", "", "", cmdutil.UsageErrorf("%q is not the address of a package page (https://HOST/OWNER/PACK[@VERSION])", ref)
	}
	return u.Scheme + "://" + u.Host, owner, pack, version, nil
}

// ParseVersionRef splits [OWNER/]PACK@VERSION; owner is "" when left out.
// The version must be named: @latest moves as versions are yanked.
func ParseVersionRef(ref string) (owner, pack, version string, err error) {
	name, version, hasVersion := strings.Cut(ref, "@")
	owner, pack, hasOwner := strings.Cut(name, "/")
	if !hasOwner {
		owner, pack = "", name
	}
	if !hasVersion || version == "" || pack == "" || (hasOwner && owner == "") || strings.Contains(pack, "/") {
		return "", "", "", cmdutil.UsageErrorf("%q is not PACK@VERSION or OWNER/PACK@VERSION", ref)
	}
	if strings.EqualFold(version, "latest") {
		return "", "", "", cmdutil.UsageErrorf("name the version exactly: @latest moves as versions are yanked")
	}
	return owner, pack, version, nil
}

// ClientAndOwner is the factory's client and owner, or, when owner is "",
// the username of the token's account.
func ClientAndOwner(ctx context.Context, f *cmdutil.Factory, owner string) (*client.Client, string, error) {
	c, err := f.Client()
	if err != nil {
		return nil, "", err
	}
	owner, err = OwnerOrMe(ctx, c, owner)
	return c, owner, err
}

// OwnerOrMe is owner, or the username of the token's account when it is "".
func OwnerOrMe(ctx context.Context, c *client.Client, owner string) (string, error) {
	if owner != "" {
		return owner, nil
	}
	me, err := c.Me(ctx)
	if err != nil {
		return "", err
	}
	return me.Username, nil
}
