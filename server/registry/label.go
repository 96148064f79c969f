package registry

import (
	"fmt"
	"unicode/utf8"
)

// Labels are the short texts people give to things: package names,
// descriptions and schemes, SSH key and token names, email addresses. Every
// list, page and terminal shows them, so they hold printable text only: a
// control character (an escape sequence reaching a terminal, a carriage
// return that overwrites what was printed before) or a bidirectional
// override (text that displays in another order than it reads) would let
// one person's label deceive everyone who reads it. Every route that stores
// a label goes through checkLabel.

// checkLabel refuses a label that is not valid UTF-8, holds a character
// that is not printable text (see forbiddenInLabel), or is longer than max
// characters. A description may span lines, so it may hold line feeds.
func checkLabel(field, value string, max int, lines bool) error {
	if !utf8.ValidString(value) {
		return Errorf(Invalid, "%s must be valid UTF-8", field)
	}
	for i, r := range value {
		if r == '\n' && lines {
			continue
		}
		if forbiddenInLabel(r) {
			what := "control characters"
			if lines {
				what = "control characters other than line breaks"
			}
			return Errorf(Invalid, "%s must not contain %s or bidirectional formatting characters: found %s at character %d",
				field, what, runeName(r), utf8.RuneCountInString(value[:i])+1)
		}
	}
	if utf8.RuneCountInString(value) > max {
		return Errorf(Invalid, "%s must be at most %d characters", field, max)
	}
	return nil
}

// forbiddenInLabel reports the C0 and C1 control characters and DEL, and the
// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069).
func forbiddenInLabel(r rune) bool {
	switch {
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// runeName shows a character by its code point, never raw: the message
// that names it is printed too.
func runeName(r rune) string {
	return fmt.Sprintf("U+%04X", r)
}
