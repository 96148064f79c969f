package packfmt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

const (
	maxSlugLen    = 64
	maxVersionLen = 64
	// maxReportedDropped bounds the characters one warning lists, so a name
	// of many foreign letters gives a short warning.
	maxReportedDropped = 16
)

// baseLetters are the letters canonical decomposition leaves alone although
// readers see a Latin base letter in them. Kept small on purpose: anything
// else without a decomposition is dropped, and a warning says so.
var baseLetters = map[rune]string{
	'ø': "o", 'Ø': "o",
	'ß': "ss", 'ẞ': "ss",
	'æ': "ae", 'Æ': "ae",
	'œ': "oe", 'Œ': "oe",
	'đ': "d", 'Đ': "d",
	'ł': "l", 'Ł': "l",
	'ı': "i",
}

// Slug derives the pack_slug from a pack name; see SlugOf.
func Slug(name string) string {
	slug, _ := SlugOf(name)
	return slug
}

// SlugOf derives the pack_slug from a pack name and says what the name lost
// on the way. Letters with diacritics become their base letters (canonical
// decomposition without the nonspacing marks, plus the baseLetters table);
// ASCII letters are lower-cased; every run of other characters becomes one
// '-'; the result is trimmed of '-' and cut to 64 characters. Only
// canonical decompositions count, never compatibility ones, so a look-alike
// such as a fullwidth or mathematical letter is dropped, not read as the
// letter it imitates.
//
// warnings name the letters, digits and symbols outside ASCII that had no
// slug form and were dropped, and a cut; ASCII punctuation and spaces are
// separators by design and are not reported.
func SlugOf(name string) (slug string, warnings []string) {
	strip := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)))
	var b strings.Builder
	var dropped []rune
	seen := map[rune]bool{}
	cache := map[rune]string{}
	pendingDash := false
	emit := func(s string) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
				pendingDash = true
				continue
			}
			if pendingDash && b.Len() > 0 {
				b.WriteByte('-')
			}
			pendingDash = false
			b.WriteByte(c)
		}
	}
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		i += size
		switch {
		case r < utf8.RuneSelf:
			emit(string(rune(r)))
			continue
		case unicode.Is(unicode.M, r):
			// A combining mark belongs to the letter before it: it
			// neither separates nor counts as dropped on its own.
			continue
		}
		folded, ok := baseLetters[r]
		if !ok {
			// Names repeat their letters; folding each kind once keeps a
			// long name of foreign letters cheap.
			if folded, ok = cache[r]; !ok {
				folded, _, _ = transform.String(strip, string(r))
				cache[r] = folded
			}
		}
		if hasASCIIAlnum(folded) {
			emit(folded)
			continue
		}
		pendingDash = true
		if (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsSymbol(r)) && !seen[r] {
			seen[r] = true
			dropped = append(dropped, r)
		}
	}
	full := b.String()
	slug = full
	if len(slug) > maxSlugLen {
		slug = strings.TrimRight(slug[:maxSlugLen], "-")
	}
	if len(dropped) > 0 {
		warnings = append(warnings, droppedWarning(dropped))
	}
	if len(full) > maxSlugLen && slug != "" {
		warnings = append(warnings, fmt.Sprintf("the slug was cut to %d characters", len(slug)))
	}
	return slug, warnings
}

func hasASCIIAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			return true
		}
	}
	return false
}

func droppedWarning(dropped []rune) string {
	more := ""
	if len(dropped) > maxReportedDropped {
		dropped, more = dropped[:maxReportedDropped], " (and more)"
	}
	chars := strconv.Quote(string(dropped))
	if len(dropped) == 1 {
		return fmt.Sprintf("the name's character %s has no slug form and was dropped", chars)
	}
	return fmt.Sprintf("the name's characters %s%s have no slug form and were dropped", chars, more)
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
