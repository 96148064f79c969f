package text

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A registry is another party: whatever it sends (names, descriptions, key
// names, error messages) may hold control characters that a terminal would
// obey (escape sequences that rewrite the screen, set the window title or
// make links; carriage returns that overwrite a line) or bidirectional
// overrides that make text read differently from what it is. pact prints
// such text only through Safe, which shows those characters as
// visible escapes.

// UnsafeRune reports the characters Safe escapes: C0 and C1 controls
// and DEL, the line and paragraph separators, and the bidirectional marks,
// embeddings, overrides and isolates.
func UnsafeRune(r rune) bool {
	switch {
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// Safe returns s with every unsafe character written as a Go escape
// (\x1b, \n, \u202e) and every byte that is not UTF-8 as \xNN, so the text
// stays one line and a terminal shows it rather than obeys it.
func Safe(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || UnsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && UnsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case UnsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// SafeLines is Safe for text of several lines (a document, a message
// of ours that lists things): line feeds and tabs are kept, everything else
// unsafe is escaped.
func SafeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		cells := strings.Split(line, "\t")
		for j, cell := range cells {
			cells[j] = Safe(cell)
		}
		lines[i] = strings.Join(cells, "\t")
	}
	return strings.Join(lines, "\n")
}

// SafeArgs applies Safe to the strings and errors among args, for
// messages whose format is pact's own and whose values may not be.
func SafeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, arg := range args {
		switch v := arg.(type) {
		case string:
			out[i] = Safe(v)
		case error:
			out[i] = Safe(v.Error())
		case fmt.Stringer:
			out[i] = Safe(v.String())
		default:
			out[i] = arg
		}
	}
	return out
}

// escapeJSONText rewrites the unsafe characters that encoding/json leaves
// as they are (C1 controls, DEL, bidirectional formatting) as \uXXXX
// escapes: the same JSON value, but nothing a terminal would obey. Outside
// strings JSON is ASCII, so every such character is inside a string.
func EscapeJSON(data []byte) []byte {
	if !bytes.ContainsFunc(data, func(r rune) bool { return r >= 0x7f && UnsafeRune(r) }) {
		return data
	}
	var b bytes.Buffer
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r >= 0x7f && UnsafeRune(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.Write(data[i : i+size])
		}
		i += size
	}
	return b.Bytes()
}
