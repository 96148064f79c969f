package api

import (
	"strconv"
	"time"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// appendPackageList appends the JSON of a package list answer: byte for byte
// what encoding/json makes of wire.PackageList{OK: true, Packages:
// presentPackage(each), NextCursor: next, Suggestions: suggestions} (TestPackageListJSONIsEncodingJSON
// compares them on hostile values). The list is the API's most requested
// answer after the raw documents; reflection over wire.Package and the four
// URL strings each package needed were a fifth of a deep page's CPU.
// The page ends after the packages that fit in MaxListPageBytes, with the
// cursor of q's list from the last one (a package's strings may take
// 19 KB escaped, so 100 of them could pass it).
func (s *Server) appendPackageList(b []byte, pkgs []registry.Package, next string, q registry.ListQuery, suggestions []string) []byte {
	// The two bases, escaped once for the page when both are ASCII: every
	// package's four links start with one of them.
	var bases *[2][]byte
	var scratch [256]byte
	var escaped [2][]byte
	if httpx.IsASCII(s.shared.URLs.Base) && httpx.IsASCII(s.cfg.BaseURL) {
		escaped[0] = httpx.AppendEscaped(scratch[:0], s.shared.URLs.Base, true)
		escaped[1] = httpx.AppendEscaped(escaped[0][len(escaped[0]):], s.cfg.BaseURL, true)
		bases = &escaped
	}
	b = append(b, `{"ok":true,"packages":[`...)
	start := len(b)
	for i := range pkgs {
		mark := len(b)
		if i > 0 {
			b = append(b, ',')
		}
		b = s.appendPackage(b, &pkgs[i], bases)
		if i > 0 && len(b)-start > MaxListPageBytes-listEnvelopeBytes {
			b = b[:mark]
			next = registry.PackageCursor(q, &pkgs[i-1])
			break
		}
	}
	b = append(b, `],"next_cursor":`...)
	if next == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, next)
	}
	if len(suggestions) > 0 {
		b = append(b, `,"suggestions":[`...)
		for i, slug := range suggestions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, slug)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendPackage appends the JSON of s.presentPackage(p). bases, when not
// nil, are URLs.Base and the configured base URL, escaped and ASCII.
func (s *Server) appendPackage(b []byte, p *registry.Package, bases *[2][]byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	b = append(b, `,"owner_slug":`...)
	o := len(b)
	b = appendJSONString(b, p.OwnerSlug)
	owner := b[o+1 : len(b)-1] // escaped, without its quotes
	b = append(b, `,"pack_slug":`...)
	k := len(b)
	b = appendJSONString(b, p.PackSlug)
	pack := b[k+1 : len(b)-1]
	b = appendField(b, "name", p.Name)
	b = appendField(b, "description", p.Description)
	b = appendField(b, "scheme", p.Scheme)
	b = appendField(b, "version", p.Version)
	b = appendField(b, "sha256", p.SHA256)
	// url: URLs.Package; raw_url: URLs.Raw; install_command:
	// httpx.InstallCommand; versions_url: presentPackage's.
	if bases != nil && httpx.IsASCII(p.OwnerSlug) && httpx.IsASCII(p.PackSlug) {
		// Every part is ASCII, as valid slugs are, and the escape of an
		// ASCII concatenation is the concatenation of the parts' escapes:
		// the slugs' escaped bytes, written above, are copied. owner and
		// pack stay readable when b grows: append copies, it never
		// changes the old array.
		base, api := bases[0], bases[1]
		b = append(b, `,"url":"`...)
		b = appendLink(b, base, "/", owner, pack, "")
		b = append(b, `","raw_url":"`...)
		b = appendLink(b, base, "/raw/", owner, pack, ".pact.md")
		b = append(b, `","install_command":"curl -fsSL `...)
		b = appendLink(b, base, "/raw/", owner, pack, ".pact.md -o ")
		b = append(b, pack...)
		b = append(b, `.pact.md","versions_url":"`...)
		b = appendLink(b, api, "/api/packages/", owner, pack, "")
		b = append(b, '"')
	} else {
		base := s.shared.URLs.Base
		b = append(b, `,"url":`...)
		b = appendJSONString(b, base, "/", p.OwnerSlug, "/", p.PackSlug)
		b = append(b, `,"raw_url":`...)
		b = appendJSONString(b, base, "/raw/", p.OwnerSlug, "/", p.PackSlug, ".pact.md")
		b = append(b, `,"install_command":`...)
		b = appendJSONString(b, "curl -fsSL ", base, "/raw/", p.OwnerSlug, "/", p.PackSlug, ".pact.md -o ", p.PackSlug, ".pact.md")
		b = append(b, `,"versions_url":`...)
		b = appendJSONString(b, s.cfg.BaseURL, "/api/packages/", p.OwnerSlug, "/", p.PackSlug)
	}
	b = append(b, `,"created_at":`...)
	b = appendJSONTime(b, p.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendJSONTime(b, p.UpdatedAt)
	b = appendField(b, "deprecated", p.Deprecated)
	b = append(b, `,"trusted_publishing_only":`...)
	b = strconv.AppendBool(b, p.TrustedPublishingOnly)
	b = append(b, `,"downloads":`...)
	b = strconv.AppendInt(b, p.Downloads, 10)
	return append(b, '}')
}

// appendLink appends base, prefix, owner, "/", pack and suffix: escaped
// parts, and literals that need no escape.
func appendLink(b, base []byte, prefix string, owner, pack []byte, suffix string) []byte {
	b = append(b, base...)
	b = append(b, prefix...)
	b = append(b, owner...)
	b = append(b, '/')
	b = append(b, pack...)
	return append(b, suffix...)
}

func appendField(b []byte, name, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendJSONString(b, value)
}

// appendJSONTime is the JSON of wire.Time(t) (time.Time's MarshalJSON):
// a UTC time to the second, "2006-01-02T15:04:05Z", written digit by digit
// for the years RFC 3339 allows.
func appendJSONTime(b []byte, t time.Time) []byte {
	t = wire.Time(t)
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		b = append(b, '"')
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	hour, minute, second := t.Clock()
	return append(b, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+second/10), byte('0'+second%10), 'Z', '"')
}

// appendJSONString appends the concatenation of parts as one JSON string,
// escaped as encoding/json escapes (HTML characters, U+2028 and U+2029 as
// \u escapes, invalid UTF-8 as U+FFFD). ASCII parts are escaped one by one,
// each escape being decided by one byte; otherwise the concatenation is
// escaped as one string, since a part may end inside a UTF-8 sequence.
func appendJSONString(b []byte, parts ...string) []byte {
	b = append(b, '"')
	if len(parts) == 1 {
		b = httpx.AppendEscaped(b, parts[0], true)
		return append(b, '"')
	}
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
