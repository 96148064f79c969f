package packfmt

import "strings"

const (
	maxSlugLen    = 64
	maxVersionLen = 64
)

// Slug derives the pack_slug from a pack name: lower-cased, every run of
// characters outside [a-z0-9] turned into one '-', trimmed of '-', at most 64
// characters. Only ASCII letters are lower-cased; any other letter counts as
// a separator, so look-alike letters (such as the Kelvin sign) can never
// produce the slug of a different name.
func Slug(name string) string {
	slug := make([]byte, 0, min(len(name), maxSlugLen))
	pendingDash := false
	for i := 0; i < len(name) && len(slug) < maxSlugLen; i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			pendingDash = true
			continue
		}
		if pendingDash && len(slug) > 0 {
			slug = append(slug, '-')
			if len(slug) == maxSlugLen {
				break
			}
		}
		pendingDash = false
		slug = append(slug, c)
	}
	return strings.TrimRight(string(slug), "-")
}

// ValidVersion reports whether v is 1-64 characters of [0-9A-Za-z._+-].
func ValidVersion(v string) bool {
	if len(v) == 0 || len(v) > maxVersionLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == '+', c == '-':
		default:
			return false
		}
	}
	return true
}
