package storetest

import (
	"slices"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func (su suite) testSuggestSlugs(t *testing.T) {
	s := su.store(t)
	alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
	for i, p := range []struct {
		owner *registry.Account
		slug  string
	}{{alice, "backup"}, {bob, "postgres-backup"}, {alice, "mysql-backup"}, {bob, "bakery"}, {alice, "kubernetes-deploy"}, {bob, "backup"}} {
		publish(t, s, input(p.owner, p.slug, "1.0.0", p.owner.Username+p.slug, at(i)))
	}
	// A package whose only version is yanked is not listed, nor suggested.
	yank(t, s, publish(t, s, input(alice, "postgres-backups", "1.0.0", "gone", at(10))), "1.0.0", true, "gone", 11)
	for _, c := range []struct {
		query string
		first string
	}{
		{"bakup", "backup"},
		{"postgers", "postgres-backup"},
		{"kubernets", "kubernetes-deploy"},
		{"mysql backp", "mysql-backup"},
	} {
		got, err := s.SuggestSlugs(ctx(), c.query, 5)
		if err != nil {
			t.Fatalf("SuggestSlugs(%q): %v", c.query, err)
		}
		if len(got) == 0 || got[0] != c.first {
			t.Errorf("SuggestSlugs(%q) = %q, want %q first", c.query, got, c.first)
		}
		if len(got) > 5 || slices.Contains(got, "postgres-backups") {
			t.Errorf("SuggestSlugs(%q) = %q: more than 5, or a package with no listed version", c.query, got)
		}
		if n := len(got); n != len(slices.Compact(slices.Clone(got))) {
			t.Errorf("SuggestSlugs(%q) = %q: a slug twice", c.query, got)
		}
	}
	for _, q := range []string{"zz", "qqqqqqqq", "!!!"} {
		if got, err := s.SuggestSlugs(ctx(), q, 5); err != nil || len(got) != 0 {
			t.Errorf("SuggestSlugs(%q) = %q, %v; want none", q, got, err)
		}
	}
	// A misspelt word inside longer slugs: both engines rank by strict
	// word similarity, then by similarity of the whole slug, so the slugs
	// holding the word "backup" come before "bakery".
	t.Run("a word inside longer slugs", func(t *testing.T) {
		s := su.store(t)
		carol := createAccount(t, s, "carol")
		for i, slug := range []string{"bakery", "postgres-backup", "backup-tools", "the-bakers-backup-kit", "pg-saver"} {
			publish(t, s, input(carol, slug, "1.0.0", slug, at(i)))
		}
		want := []string{"backup-tools", "the-bakers-backup-kit", "postgres-backup", "bakery"}
		if got, err := s.SuggestSlugs(ctx(), "bakup", 5); err != nil || !slices.Equal(got, want) {
			t.Errorf("SuggestSlugs(bakup) = %q, %v; want %q", got, err, want)
		}
	})
}
