package text

import "testing"

func TestSafeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é, 世界 ✓":      "plain text, é, 世界 ✓",
		"\x1b[31mred\x1b[0m":       `\x1b[31mred\x1b[0m`,
		"a\nb\tc\rd":               `a\nb\tc\rd`,
		"\u009b\u0085\u007f":       `\u009b\u0085\x7f`,
		"\u202e\u2066\u200f\u2028": `\u202e\u2066\u200f\u2028`,
		"bad \xff byte":            `bad \xff byte`,
		`a literal \x1b stays`:     `a literal \x1b stays`,
	} {
		if got := Safe(in); got != want {
			t.Errorf("safeText(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := SafeLines("line\x1b1\n\tcode\x07\n"), "line\\x1b1\n\tcode\\x07\n"; got != want {
		t.Errorf("safeLines = %q, want %q", got, want)
	}
}
