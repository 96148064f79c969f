package clip

import (
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"héllo", 5, "héllo"}, // six bytes, five characters
		{"héllo", 2, "hé…"},
		{"日本語のテキスト", 3, "日本語…"},
		{"a\xffb", 2, "a\xff…"}, // invalid bytes count one each
	} {
		if got := Text(tc.in, tc.n); got != tc.want {
			t.Errorf("Text(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	// Never a split character, whatever n.
	s := "ééééé"
	for n := range 6 {
		if got := Text(s, n); !utf8.ValidString(got) {
			t.Errorf("Text(%q, %d) = %q is not valid UTF-8", s, n, got)
		}
	}
}
