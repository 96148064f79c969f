package storetest

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pact-registry/pact/server/registry"
)

// searchRank is the model of a search's rank (docs/protocol.md, "Search").
func searchRank(in registry.PublishInput, query string) int {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 1 && strings.Contains(words[0], "/") {
		owner, slug, _ := strings.Cut(words[0], "/")
		switch {
		case in.OwnerSlug != owner:
		case in.PackSlug == slug:
			return registry.SearchExact
		case strings.HasPrefix(in.PackSlug, slug):
			return registry.SearchPrefix
		}
		return registry.SearchOther
	}
	key := strings.Join(words, "-")
	switch {
	case in.PackSlug == key:
		return registry.SearchExact
	case strings.HasPrefix(in.PackSlug, key):
		return registry.SearchPrefix
	}
	return registry.SearchOther
}

// searchMatches is the model of which packages a search finds: every word
// occurs in "owner/slug", the name or the description; a query whose words
// are all shorter than three characters finds exact and prefix matches of
// slugs, and the packages of the owner so named.
func searchMatches(in registry.PublishInput, query string) bool {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return true
	}
	texts := []string{in.OwnerSlug + "/" + in.PackSlug, strings.ToLower(in.Name), strings.ToLower(in.Description)}
	short := true
	for _, w := range words {
		if utf8.RuneCountInString(w) >= 3 {
			short = false
		}
		if !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, w) }) {
			return false
		}
	}
	if short && searchRank(in, query) == registry.SearchOther {
		return len(words) == 1 && !strings.Contains(words[0], "/") && in.OwnerSlug == words[0]
	}
	return true
}

// listModel is what ListPackages returns for f without paging: all is
// newest first.
func listModel(all []string, inputs map[string]registry.PublishInput, f registry.PackageFilter) []string {
	want := []string{}
	for _, name := range all {
		if matches(inputs[name], f) {
			want = append(want, name)
		}
	}
	if strings.TrimSpace(f.Query) == "" {
		return want
	}
	// Stable: newest first stays within a rank; prefix matches go by slug.
	slices.SortStableFunc(want, func(a, b string) int {
		ra, rb := searchRank(inputs[a], f.Query), searchRank(inputs[b], f.Query)
		if ra != rb {
			return ra - rb
		}
		if ra == registry.SearchPrefix {
			return strings.Compare(inputs[a].PackSlug, inputs[b].PackSlug)
		}
		return 0
	})
	return want
}

func (su suite) testSearch(t *testing.T) {
	// widgets: slugs and texts chosen so that every rank has members from
	// more than one owner, published oldest first in this order.
	type pack struct{ owner, slug, name, description string }
	packs := []pack{
		{"alice", "widget", "Widget", "the first widget"},
		{"bob", "widget-cli", "Widget CLI", "command line"},
		{"carol", "my-widget", "My widget", "another one"},
		{"bob", "widget", "Widget", "bob's widget"},
		{"alice", "gadget", "Gadget", "works with a widget"},
		{"carol", "widgets", "Widgets", "many"},
		{"widget", "tools", "Tools", "by the account named widget"},
		{"alice", "widget-a", "Widget A", "alpha"},
		{"dave", "unrelated", "Unrelated", "nothing to see"},
		{"erin", "umlaut", "Ümlaut", "Ünïcødé Straße"},
	}
	setup := func(t *testing.T) registry.Store {
		s := su.store(t)
		accounts := map[string]*registry.Account{}
		for i, p := range packs {
			if accounts[p.owner] == nil {
				accounts[p.owner] = createAccount(t, s, p.owner)
			}
			in := input(accounts[p.owner], p.slug, "1.0.0", p.slug+p.owner, at(i))
			in.Name, in.Description = p.name, p.description
			publish(t, s, in)
		}
		return s
	}
	cases := []struct {
		query string
		want  []string
	}{
		// exact (newest first), prefix (by slug), then the others (newest first)
		{"widget", []string{"bob/widget", "alice/widget", "alice/widget-a", "bob/widget-cli", "carol/widgets",
			"widget/tools", "alice/gadget", "carol/my-widget"}},
		{"WIDGET", []string{"bob/widget", "alice/widget", "alice/widget-a", "bob/widget-cli", "carol/widgets",
			"widget/tools", "alice/gadget", "carol/my-widget"}},
		{"widget cli", []string{"bob/widget-cli"}},
		{"widget-c", []string{"bob/widget-cli"}},
		{"alice/widget", []string{"alice/widget", "alice/widget-a"}},
		{"alice/", []string{"alice/gadget", "alice/widget", "alice/widget-a"}},
		{"bob/widget-cli", []string{"bob/widget-cli"}},
		{"ice/wid", []string{"alice/widget-a", "alice/widget"}},
		{"my widget", []string{"carol/my-widget"}},
		{"command", []string{"bob/widget-cli"}},
		{"dave", []string{"dave/unrelated"}},
		{"widget works", []string{"alice/gadget"}},
		{"widget zebra", []string{}},
		// folded as the index folds, ASCII or not (docs/design.md, "Search")
		{"ÜNÏCØDÉ", []string{"erin/umlaut"}},
		{"ümlaut STRAßE", []string{"erin/umlaut"}},
		{"ÜMLAUT", []string{"erin/umlaut"}},
		{"UMLAUT", []string{"erin/umlaut"}},
		{"ERIN/UML", []string{"erin/umlaut"}},
		// shorter than a trigram: slugs and owners only
		{"my", []string{"carol/my-widget"}},
		{"wi", []string{"bob/widget", "alice/widget", "alice/widget-a", "bob/widget-cli", "carol/widgets"}},
		{"to", []string{"widget/tools"}},
		{"a", []string{}},
	}
	t.Run("ranks", func(t *testing.T) {
		s := setup(t)
		for _, c := range cases {
			got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 50, Query: c.query})
			if err != nil {
				t.Fatalf("q=%q: %v", c.query, err)
			}
			if !slices.Equal(names(got), c.want) {
				t.Errorf("q=%q: got %q\nwant %q", c.query, names(got), c.want)
			}
		}
	})
	t.Run("pages across ranks", func(t *testing.T) {
		s := setup(t)
		for _, c := range cases {
			for _, size := range []int{1, 2, 3} {
				var seen []string
				f := registry.PackageFilter{Query: c.query}
				for pages := 0; ; pages++ {
					if pages > 20 {
						t.Fatalf("q=%q: the walk does not end", c.query)
					}
					f.Limit = size + 1
					page, err := s.ListPackages(ctx(), f)
					if err != nil {
						t.Fatalf("q=%q: %v", c.query, err)
					}
					shown := page[:min(size, len(page))]
					seen = append(seen, names(shown)...)
					if len(page) <= size {
						break
					}
					last := shown[len(shown)-1]
					f.Rank, f.AfterSlug, f.Before = last.SearchRank, last.PackSlug, last.SearchKey()
				}
				if want := c.want; !slices.Equal(seen, want) && len(want)+len(seen) > 0 {
					t.Errorf("q=%q, pages of %d: saw %q\nwant %q", c.query, size, seen, want)
				}
			}
		}
	})
	t.Run("the index follows a new latest version", func(t *testing.T) {
		s := setup(t)
		dave, err := s.AccountByUsername(ctx(), "dave")
		if err != nil {
			t.Fatal(err)
		}
		in := input(dave, "unrelated", "2.0.0", "v2", at(100))
		in.Name, in.Description = "Unrelated", "now about zeppelins"
		publish(t, s, in)
		for q, want := range map[string][]string{"zeppelin": {"dave/unrelated"}, "nothing": {}} {
			got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10, Query: q})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), want) {
				t.Errorf("q=%q after a new version: got %q, want %q", q, names(got), want)
			}
		}
	})
	t.Run("other matches keep their order when a package publishes again", func(t *testing.T) {
		// The other matches come newest package first, not by their
		// latest version: alice/gadget's new version (with the same
		// text) moves it to the front of the list, not of the search.
		s := setup(t)
		alice, err := s.AccountByUsername(ctx(), "alice")
		if err != nil {
			t.Fatal(err)
		}
		in := input(alice, "gadget", "2.0.0", "gadget v2", at(100))
		in.Name, in.Description = "Gadget", "works with a widget"
		publish(t, s, in)
		list, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 1})
		if err != nil || len(list) != 1 || list[0].PackSlug != "gadget" {
			t.Fatalf("the list's first package: %q, %v; want alice/gadget", names(list), err)
		}
		got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 50, Query: "widget"})
		if err != nil {
			t.Fatal(err)
		}
		if want := cases[0].want; !slices.Equal(names(got), want) {
			t.Errorf("q=widget after a new version of alice/gadget: got %q\nwant %q", names(got), want)
		}
	})
	t.Run("too many words", func(t *testing.T) {
		s := setup(t)
		_, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10, Query: strings.Repeat("w ", 17)})
		wantCode(t, "17 words", err, registry.Invalid)
	})
}
