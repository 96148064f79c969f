package server

import (
	"strconv"
	"time"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// appendPackageList appends the JSON of a package list answer: byte for byte
// what encoding/json makes of wire.PackageList{OK: true, Packages:
// presentPackage(each), NextCursor: next} (TestPackageListJSONIsEncodingJSON
// compares them on hostile values). The list is the API's most requested
// answer after the raw documents; reflection over wire.Package and the four
// URL strings each package needed were a fifth of a deep page's CPU.
func (s *Server) appendPackageList(b []byte, pkgs []registry.Package, next string) []byte {
	b = append(b, `{"ok":true,"packages":[`...)
	for i := range pkgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.appendPackage(b, &pkgs[i])
	}
	b = append(b, `],"next_cursor":`...)
	if next == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, next)
	}
	return append(b, '}')
}

// appendPackage appends the JSON of s.presentPackage(p).
func (s *Server) appendPackage(b []byte, p *registry.Package) []byte {
	base := s.shared.URLs.Base
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	b = appendField(b, "owner_slug", p.OwnerSlug)
	b = appendField(b, "pack_slug", p.PackSlug)
	b = appendField(b, "name", p.Name)
	b = appendField(b, "description", p.Description)
	b = appendField(b, "scheme", p.Scheme)
	b = appendField(b, "version", p.Version)
	b = appendField(b, "sha256", p.SHA256)
	// url: URLs.Package; raw_url: URLs.Raw; install_command:
	// httpx.InstallCommand; versions_url: presentPackage's.
	b = append(b, `,"url":`...)
	b = appendJSONString(b, base, "/", p.OwnerSlug, "/", p.PackSlug)
	b = append(b, `,"raw_url":`...)
	b = appendJSONString(b, base, "/raw/", p.OwnerSlug, "/", p.PackSlug, ".pact.md")
	b = append(b, `,"install_command":`...)
	b = appendJSONString(b, "curl -fsSL ", base, "/raw/", p.OwnerSlug, "/", p.PackSlug, ".pact.md -o ", p.PackSlug, ".pact.md")
	b = append(b, `,"versions_url":`...)
	b = appendJSONString(b, s.cfg.BaseURL, "/api/packages/", p.OwnerSlug, "/", p.PackSlug)
	b = append(b, `,"created_at":`...)
	b = appendJSONTime(b, p.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendJSONTime(b, p.UpdatedAt)
	b = appendField(b, "deprecated", p.Deprecated)
	return append(b, '}')
}

func appendField(b []byte, name, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendJSONString(b, value)
}

// appendJSONTime is the JSON of wire.Time(t) (time.Time's MarshalJSON).
func appendJSONTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = wire.Time(t).AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendJSONString appends the concatenation of parts as one JSON string,
// escaped as encoding/json escapes (HTML characters, U+2028 and U+2029 as
// \u escapes, invalid UTF-8 as U+FFFD). ASCII parts are escaped one by one,
// each escape being decided by one byte; otherwise the concatenation is
// escaped as one string, since a part may end inside a UTF-8 sequence.
func appendJSONString(b []byte, parts ...string) []byte {
	b = append(b, '"')
	ascii := true
	for _, p := range parts {
		if !httpx.IsASCII(p) {
			ascii = false
			break
		}
	}
	if !ascii && len(parts) > 1 {
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		joined := make([]byte, 0, n)
		for _, p := range parts {
			joined = append(joined, p...)
		}
		b = httpx.AppendEscaped(b, string(joined), true)
	} else {
		for _, p := range parts {
			b = httpx.AppendEscaped(b, p, true)
		}
	}
	return append(b, '"')
}
