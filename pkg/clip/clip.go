// Package clip shortens text for messages and table cells without cutting
// a UTF-8 character in two.
package clip

import "unicode/utf8"

// Text answers s when it holds at most n characters (runes), else its first
// n characters followed by "…".
func Text(s string, n int) string {
	if len(s) <= n {
		return s // at most n bytes: at most n runes
	}
	i := 0
	for count := 0; i < len(s); count++ {
		if count == n {
			return s[:i] + "…"
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s
}
