package packfmt

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestSlug(t *testing.T) {
	tests := []struct {
		name, in, want string
		warnings       []string
	}{
		// The ASCII rules.
		{"words", "Hello World", "hello-world", nil},
		{"already a slug", "hello-world", "hello-world", nil},
		{"digits kept", "Go 1.26 Tools", "go-1-26-tools", nil},
		{"runs of separators become one dash", "a__b..c  -- d", "a-b-c-d", nil},
		{"leading and trailing separators trimmed", "  --Hello!--  ", "hello", nil},
		{"ASCII punctuation is a separator, not a loss", "C++ & notes.md", "c-notes-md", nil},
		{"punctuation only", "!!!", "", nil},
		{"empty", "", "", nil},
		{"tabs and newlines", "a\tb\nc", "a-b-c", nil},
		{"64 characters kept", strings.Repeat("a", 64), strings.Repeat("a", 64), nil},
		{"cut at 64 characters", strings.Repeat("a", 100), strings.Repeat("a", 64),
			[]string{"the slug was cut to 64 characters"}},
		{"dash at the cut is trimmed", strings.Repeat("a", 63) + " b", strings.Repeat("a", 63),
			[]string{"the slug was cut to 63 characters"}},
		{"cut counts slug characters, not input", "!!" + strings.Repeat("ab ", 30), strings.TrimSuffix(strings.Repeat("ab-", 21), "-") + "-a",
			[]string{"the slug was cut to 64 characters"}},
		{"trailing separators are no cut", strings.Repeat("a", 64) + "!!!", strings.Repeat("a", 64), nil},

		// Diacritics fold to their base letters.
		{"umlauts and a stroke", "Ünïcødé", "unicode", nil},
		{"French", "Crème Brûlée", "creme-brulee", nil},
		{"accent in a word", "Café au lait", "cafe-au-lait", nil},
		{"combining mark written apart", "Cafe\u0301", "cafe", nil},
		{"combining mark alone is no separator", "a\u0301b", "ab", nil},
		{"capital with dot above", "\u0130stanbul", "istanbul", nil},
		{"Kelvin sign decomposes canonically to K", "\u212Aelvin", "kelvin", nil},
		{"Angstrom sign decomposes canonically to A", "\u212Bngstr\u00f6m", "angstrom", nil},
		{"Vietnamese stacked marks", "Tiếng Việt", "tieng-viet", nil},
		{"Polish", "Łódź", "lodz", nil},

		// The table of letters decomposition leaves alone.
		{"o with stroke", "Ørsted søvn", "orsted-sovn", nil},
		{"sharp s", "Straße", "strasse", nil},
		{"capital sharp s", "STRAẞE", "strasse", nil},
		{"ae ligature", "Æther æble", "aether-aeble", nil},
		{"oe ligature", "Œuvre cœur", "oeuvre-coeur", nil},
		{"d with stroke", "Đurđevac", "durdevac", nil},
		{"dotless i", "Kırmızı", "kirmizi", nil},

		// What has no slug form is dropped, and said so.
		{"CJK dropped", "中文 docs", "docs",
			[]string{`the name's characters "中文" have no slug form and were dropped`}},
		{"one character dropped", "Ωmega", "mega",
			[]string{`the name's character "Ω" has no slug form and was dropped`}},
		{"dropped characters are a separator", "a中b", "a-b",
			[]string{`the name's character "中" has no slug form and was dropped`}},
		{"each dropped character named once", "x中中文中", "x",
			[]string{`the name's characters "中文" have no slug form and were dropped`}},
		{"emoji dropped", "🚀 launch", "launch",
			[]string{`the name's character "🚀" has no slug form and was dropped`}},
		{"fullwidth look-alike is not its ASCII letter", "ａbc", "bc",
			[]string{`the name's character "ａ" has no slug form and was dropped`}},
		{"emoji only", "🚀🚀", "",
			[]string{`the name's character "🚀" has no slug form and was dropped`}},
		{"unicode spaces and punctuation are separators", "a\u00a0b\u2014c", "a-b-c", nil},
		{"invisible format characters are separators", "a\u200bb", "a-b", nil},
		{"long list of dropped characters is shortened", "z αβγδεζηθικλμνξοπρ", "z",
			[]string{`the name's characters "αβγδεζηθικλμνξοπ" (and more) have no slug form and were dropped`}},
		{"dropped and cut together", "中" + strings.Repeat("b", 70), strings.Repeat("b", 64),
			[]string{`the name's character "中" has no slug form and was dropped`, "the slug was cut to 64 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings := SlugOf(tt.in)
			if got != tt.want {
				t.Errorf("SlugOf(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !slices.Equal(warnings, tt.warnings) {
				t.Errorf("SlugOf(%q) warnings = %q, want %q", tt.in, warnings, tt.warnings)
			}
			if s := Slug(tt.in); s != got {
				t.Errorf("Slug(%q) = %q, SlugOf gave %q", tt.in, s, got)
			}
			if len(got) > 64 {
				t.Errorf("Slug(%q) is %d characters, want at most 64", tt.in, len(got))
			}
			if Slug(got) != got {
				t.Errorf("slug %q is not its own slug", got)
			}
		})
	}
}

// TestSlugASCIIUnchanged checks that names of ASCII alone keep the slug the
// rules before diacritic folding gave them, so no existing package moves.
func TestSlugASCIIUnchanged(t *testing.T) {
	for c := 0; c < 128; c++ {
		for _, in := range []string{string(rune(c)), "a" + string(rune(c)) + "b", string(rune(c)) + "Z9"} {
			if got, want := Slug(in), asciiSlug(in); got != want {
				t.Errorf("Slug(%q) = %q, the ASCII rules give %q", in, got, want)
			}
			if _, warnings := SlugOf(in); warnings != nil {
				t.Errorf("SlugOf(%q) warns %q for an ASCII name", in, warnings)
			}
		}
	}
}

// asciiSlug is the slug rule for ASCII names as it stood before letters with
// diacritics were folded.
func asciiSlug(name string) string {
	slug := make([]byte, 0, 64)
	pendingDash := false
	for i := 0; i < len(name) && len(slug) < 64; i++ {
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
			if len(slug) == 64 {
				break
			}
		}
		pendingDash = false
		slug = append(slug, c)
	}
	return strings.TrimRight(string(slug), "-")
}

// TestBaseLettersFold checks every entry of the table is needed (canonical
// decomposition gives no ASCII letter for it) and folds to lower-case ASCII.
func TestBaseLettersFold(t *testing.T) {
	for r, base := range baseLetters {
		if got := Slug(string(r)); got != base {
			t.Errorf("Slug(%q) = %q, want %q", r, got, base)
		}
		if d := norm.NFD.String(string(r)); hasASCIIAlnum(d) {
			t.Errorf("%q decomposes to %q already: the table entry is not needed", r, d)
		}
	}
}

func TestValidVersion(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"semver", "1.0.0", true},
		{"two parts", "1.0", true},
		{"single digit", "1", true},
		{"pre-release and build", "1.0.0-rc.1+build_5", true},
		{"letters", "v2", true},
		{"date", "2026.01.31", true},
		{"64 characters", strings.Repeat("9", 64), true},
		{"65 characters", strings.Repeat("9", 65), false},
		{"empty", "", false},
		{"space", "1 0", false},
		{"slash", "1/0", false},
		{"colon", "1:0", false},
		{"non-ASCII digit", "١", false},
		{"non-ASCII letter", "1.0-ü", false},
		{"newline", "1.0\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidVersion(tt.in); got != tt.want {
				t.Errorf("ValidVersion(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseWarnings(t *testing.T) {
	doc := "```yaml pact:pack\nname: 中文 Crème\nversion: 1\n```\n"
	pack, err := Parse([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`the name's characters "中文" have no slug form and were dropped`}
	if pack.Slug != "creme" || !slices.Equal(pack.Warnings, want) {
		t.Errorf("Parse: slug %q, warnings %q; want %q, %q", pack.Slug, pack.Warnings, "creme", want)
	}
	// A name given when publishing is slugged the same way.
	pack, err = Parse([]byte(doc), Options{Name: "Crème Brûlée"})
	if err != nil {
		t.Fatal(err)
	}
	if pack.Slug != "creme-brulee" || pack.Warnings != nil {
		t.Errorf("Parse with a name: slug %q, warnings %q; want %q and none", pack.Slug, pack.Warnings, "creme-brulee")
	}
}
