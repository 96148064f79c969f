// Package routes is the one place that spells pactd's machine paths: the
// server registers these patterns and names them in its authority table,
// and clients fill them in (Fill). Patterns use Gin's syntax: ":name" is
// one path segment, "*name" the rest of the path.
package routes

import (
	"net/url"
	"strings"
)

// APIPrefix begins every path of the JSON API.
const APIPrefix = "/api/"

// The JSON API.
const (
	Packages          = "/api/packages"
	Package           = "/api/packages/:owner/:pack"
	PackageDownloads  = "/api/packages/:owner/:pack/downloads"
	Yank              = "/api/packages/:owner/:pack/versions/:version/yank"
	Unyank            = "/api/packages/:owner/:pack/versions/:version/unyank"
	Deprecate         = "/api/packages/:owner/:pack/deprecate"
	Publish           = "/api/publish"
	PublishSigned     = "/api/publish-signed"
	Me                = "/api/me"
	SSHKeys           = "/api/ssh-keys"
	SSHKey            = "/api/ssh-keys/:id"
	Tokens            = "/api/tokens"
	Token             = "/api/tokens/:id"
	DeviceLogin       = "/api/login/device"
	DeviceLoginToken  = "/api/login/device/token"
	TrustedPublishers = "/api/trusted-publishers"
	TrustedPublisher  = "/api/trusted-publishers/:id"
	OIDCExchange      = "/api/oidc/exchange"
	Releases          = "/api/releases"
	ContractReleases  = "/api/contracts/:owner/:pack/releases"
	ContractRelease   = "/api/contracts/:owner/:pack/releases/:version"
	Orgs              = "/api/orgs"
	Org               = "/api/orgs/:org"
	OrgMembers        = "/api/orgs/:org/members"
	OrgMember         = "/api/orgs/:org/members/:username"
	Hooks             = "/api/hooks"
	Hook              = "/api/hooks/:id"
	HookDeliveries    = "/api/hooks/:id/deliveries"
	HookRedeliver     = "/api/hooks/:id/deliveries/:delivery/redeliver"
)

// Documents, the transparency log and the machine's own paths.
const (
	// Raw serves a document: :file is PACK.pact.md or PACK@VERSION.pact.md.
	Raw = "/raw/:owner/:file"
	// LogDir begins every path of the log; a tile's path is LogDir
	// followed by translog.TilePath.
	LogDir        = "/log/"
	LogCheckpoint = "/log/checkpoint"
	LogKey        = "/log/key"
	LogPolicy     = "/log/policy"
	LogTile       = "/log/tile/*path"
	LogProof      = "/log/proof/:index"
	OpenAPI       = "/openapi.json"
	Healthz       = "/healthz"
	Readyz        = "/readyz"
	Metrics       = "/metrics"
)

// Fill answers pattern with its parameters replaced by values, in order:
// each ":name" by its value path-escaped, a "*name" by its value as it is
// (a path of its own). Fill(Yank, "alice", "widget", "1.0.0") is
// "/api/packages/alice/widget/versions/1.0.0/yank". It panics when the
// count of values is not the count of parameters: a caller's mistake.
func Fill(pattern string, values ...string) string {
	segments := strings.Split(pattern, "/")
	n := 0
	for i, seg := range segments {
		if seg == "" || seg[0] != ':' && seg[0] != '*' {
			continue
		}
		if n == len(values) {
			panic("routes.Fill: too few values for " + pattern)
		}
		if seg[0] == ':' {
			segments[i] = url.PathEscape(values[n])
		} else {
			segments[i] = strings.TrimPrefix(values[n], "/")
		}
		n++
	}
	if n != len(values) {
		panic("routes.Fill: too many values for " + pattern)
	}
	return strings.Join(segments, "/")
}
