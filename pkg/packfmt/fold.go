package packfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold folds text for search as slugs fold names (SlugOf): letters lose
// their diacritics ("é" is "e", "ß" is "ss"), and everything is lower case.
// Unlike a slug it keeps what has no ASCII form (a Greek or Japanese word
// stays searchable) and leaves separators alone. The registry folds both
// what it indexes and what is searched with it, so "Crème" finds "creme"
// and "creme" finds "Crème".
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	// Composed again after the marks go: a Hangul syllable decomposes into
	// letters that are no marks, and stays one syllable.
	strip := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(unicode.ToLower(r))
			continue
		case unicode.Is(unicode.Mn, r):
			continue
		}
		if base, ok := baseLetters[r]; ok {
			b.WriteString(base)
			continue
		}
		folded, _, err := transform.String(strip, string(r))
		if err != nil || folded == "" {
			folded = string(r)
		}
		b.WriteString(strings.ToLower(folded))
	}
	return b.String()
}

// SearchWords cuts text into the words a search compares, as the search
// index does: folded (Fold), split at every character that is neither a
// letter nor a digit. "pg-saver" is the words "pg" and "saver".
func SearchWords(text string) []string {
	return strings.FieldsFunc(Fold(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}
