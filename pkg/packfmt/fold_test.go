package packfmt

import (
	"slices"
	"testing"
)

func TestFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Widget CLI", "widget cli"},
		{"Café Crème", "cafe creme"},
		{"Straße", "strasse"},
		{"Ærø Łódź", "aero lodz"},
		{"Ünïcödé", "unicode"},
		{"Ελληνικά", "ελληνικα"}, // kept, lower case, without its accent
		{"日本語", "日本語"},
		{"한국어", "한국어"},
		{"e\u0301", "e"}, // a combining accent goes
	} {
		if got := Fold(c.in); got != c.want {
			t.Errorf("Fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The fold of a name agrees with its slug wherever the slug keeps a letter.
func TestFoldAgreesWithSlug(t *testing.T) {
	for _, name := range []string{"Café Crème", "Straße-Ærø", "Ünïcödé Łódź", "pg_saver 2.0"} {
		if got, want := Slug(Fold(name)), Slug(name); got != want {
			t.Errorf("Slug(Fold(%q)) = %q, Slug = %q", name, got, want)
		}
	}
}

func TestSearchWords(t *testing.T) {
	got := SearchWords("alice/pg-saver: Nightly DB backup, v2.0 (Crème)")
	want := []string{"alice", "pg", "saver", "nightly", "db", "backup", "v2", "0", "creme"}
	if !slices.Equal(got, want) {
		t.Errorf("SearchWords = %q, want %q", got, want)
	}
}
