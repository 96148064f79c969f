package packfmt

import (
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"words", "Hello World", "hello-world"},
		{"already a slug", "hello-world", "hello-world"},
		{"digits kept", "Go 1.26 Tools", "go-1-26-tools"},
		{"runs of separators become one dash", "a__b..c  -- d", "a-b-c-d"},
		{"leading and trailing separators trimmed", "  --Hello!--  ", "hello"},
		{"non-ASCII letters are separators", "Café au lait", "caf-au-lait"},
		{"Kelvin sign is not k", "\u212Aelvin", "elvin"},
		{"dotted capital I is not i", "\u0130stanbul", "stanbul"},
		{"emoji only", "🚀🚀", ""},
		{"punctuation only", "!!!", ""},
		{"empty", "", ""},
		{"tabs and newlines", "a\tb\nc", "a-b-c"},
		{"64 characters kept", strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{"cut at 64 characters", strings.Repeat("a", 100), strings.Repeat("a", 64)},
		{"dash at the cut is trimmed", strings.Repeat("a", 63) + " b", strings.Repeat("a", 63)},
		{"cut counts slug characters, not input", "!!" + strings.Repeat("ab ", 30), strings.TrimSuffix(strings.Repeat("ab-", 21), "-") + "-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Slug(tt.in)
			if got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if len(got) > 64 {
				t.Errorf("Slug(%q) is %d characters, want at most 64", tt.in, len(got))
			}
		})
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
