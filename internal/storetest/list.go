package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// catalogue publishes 45 packages from three owners, one version each, one
// minute apart, and returns their "owner/pack" names newest first together
// with the publish inputs by name.
func catalogue(t *testing.T, s registry.Store) (newestFirst []string, inputs map[string]registry.PublishInput) {
	t.Helper()
	owners := []*registry.Account{createAccount(t, s, "alice"), createAccount(t, s, "bob"), createAccount(t, s, "carol")}
	schemes := []string{"skill", "agent", "", "skill", "prompt"}
	inputs = map[string]registry.PublishInput{}
	for i := range 45 {
		owner := owners[i%3]
		in := input(owner, fmt.Sprintf("pack-%02d", i), "1.0.0", "body", at(i))
		in.Scheme = schemes[i%5]
		in.Name = fmt.Sprintf("Pack %02d", i)
		var words []string
		if i%2 == 0 {
			words = append(words, "Alpha")
		}
		if i%3 == 0 {
			words = append(words, "gamma")
		}
		if i%4 == 0 {
			in.Name += " Beta"
		}
		in.Description = strings.Join(append(words, "tools"), " ")
		publish(t, s, in)
		name := owner.Username + "/" + in.PackSlug
		newestFirst = append([]string{name}, newestFirst...)
		inputs[name] = in
	}
	return newestFirst, inputs
}

// matches is the model of a PackageFilter (without paging); the order of
// a search is searchModel's.
func matches(in registry.PublishInput, f registry.PackageFilter) bool {
	if f.Owner != "" && !strings.EqualFold(in.OwnerSlug, f.Owner) {
		return false
	}
	if f.Scheme != "" && in.Scheme != f.Scheme {
		return false
	}
	return searchMatches(in, f.Query)
}

func names(packages []registry.Package) []string {
	out := []string{}
	for _, p := range packages {
		out = append(out, p.OwnerSlug+"/"+p.PackSlug)
	}
	return out
}

func (su suite) testListPackages(t *testing.T) {
	filters := []struct {
		name   string
		filter registry.PackageFilter
	}{
		{"everything", registry.PackageFilter{}},
		{"owner", registry.PackageFilter{Owner: "bob"}},
		{"owner in other case", registry.PackageFilter{Owner: "Bob"}},
		{"unknown owner", registry.PackageFilter{Owner: "dave"}},
		{"scheme", registry.PackageFilter{Scheme: "skill"}},
		{"unknown scheme", registry.PackageFilter{Scheme: "none"}},
		{"word in the description", registry.PackageFilter{Query: "alpha"}},
		{"word in the name", registry.PackageFilter{Query: "beta"}},
		{"word in other case", registry.PackageFilter{Query: "GAMMA"}},
		{"part of a word", registry.PackageFilter{Query: "amm"}},
		{"every word must match", registry.PackageFilter{Query: "alpha gamma"}},
		{"words may match name and description", registry.PackageFilter{Query: "  beta   gamma "}},
		{"a word that matches nothing", registry.PackageFilter{Query: "alpha zebra"}},
		{"all filters", registry.PackageFilter{Owner: "alice", Scheme: "skill", Query: "alpha"}},
		{"exact slug", registry.PackageFilter{Query: "pack-07"}},
		{"exact slug from words", registry.PackageFilter{Query: "Pack 07"}},
		{"slug prefix", registry.PackageFilter{Query: "pack-1"}},
		{"slug prefix and other matches", registry.PackageFilter{Query: "pack"}},
		{"owner/slug", registry.PackageFilter{Query: "bob/pack-10"}},
		{"owner/slug prefix", registry.PackageFilter{Query: "bob/pack-1"}},
		{"owner/", registry.PackageFilter{Query: "carol/"}},
		{"part of owner/slug", registry.PackageFilter{Query: "ob/pack-2"}},
		{"owner name", registry.PackageFilter{Query: "carol"}},
		{"part of a slug", registry.PackageFilter{Query: "ck-3"}},
		{"search and scheme", registry.PackageFilter{Query: "pack-2", Scheme: "skill"}},
		{"search and owner", registry.PackageFilter{Query: "pack", Owner: "alice"}},
	}

	t.Run("filters", func(t *testing.T) {
		s := su.store(t)
		all, inputs := catalogue(t, s)
		for _, c := range filters {
			f := c.filter
			f.Limit = 100
			got, err := s.ListPackages(ctx(), f)
			if err != nil {
				t.Fatalf("%s: ListPackages: %v", c.name, err)
			}
			want := listModel(all, inputs, f)
			if f.Query == "" && !slices.Equal(names(got), want) {
				t.Errorf("%s: ListPackages = %q\nwant %q", c.name, names(got), want)
			}
			if f.Query != "" {
				if !slices.Equal(searchResult(got), want) {
					t.Errorf("%s: ListPackages = %q\nwant %q", c.name, searchResult(got), want)
				}
				searchOrdered(t, c.name, got)
			}
		}
	})

	t.Run("listed packages carry their latest fields", func(t *testing.T) {
		s := su.store(t)
		_, inputs := catalogue(t, s)
		got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 100})
		if err != nil {
			t.Fatalf("ListPackages: %v", err)
		}
		for _, p := range got {
			in := inputs[p.OwnerSlug+"/"+p.PackSlug]
			wantPackage(t, "listed "+p.PackSlug, &p, in)
			wantTime(t, p.PackSlug+" UpdatedAt", p.UpdatedAt, in.Now)
		}
	})

	t.Run("a cursor walk sees every package once", func(t *testing.T) {
		s := su.store(t)
		all, inputs := catalogue(t, s)
		for _, c := range filters {
			for _, pageSize := range []int{1, 7, 45} {
				var seen []string
				f := c.filter
				for pages := 0; ; pages++ {
					if pages > 50 {
						t.Fatalf("%s, pages of %d: the walk does not end", c.name, pageSize)
					}
					f.Limit = pageSize + 1 // one more, to learn whether a next page exists
					page, err := s.ListPackages(ctx(), f)
					if err != nil {
						t.Fatalf("%s: ListPackages: %v", c.name, err)
					}
					if len(page) > pageSize+1 {
						t.Fatalf("%s: asked for %d, got %d", c.name, pageSize+1, len(page))
					}
					shown := page[:min(pageSize, len(page))]
					seen = append(seen, names(shown)...)
					if len(page) <= pageSize {
						break
					}
					last := shown[len(shown)-1]
					if f.Query == "" {
						f.Before = last.LatestVersionID
					} else {
						nextSearchPage(&f, last)
					}
				}
				want := listModel(all, inputs, c.filter)
				if c.filter.Query != "" {
					whole, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 100, Query: c.filter.Query, Owner: c.filter.Owner, Scheme: c.filter.Scheme})
					if err != nil {
						t.Fatal(err)
					}
					want = names(whole)
				}
				if !slices.Equal(seen, want) {
					t.Errorf("%s, pages of %d: walk saw %q\nwant %q", c.name, pageSize, seen, want)
				}
			}
		}
	})

	t.Run("limit is applied as given", func(t *testing.T) {
		s := su.store(t)
		all, _ := catalogue(t, s)
		for _, limit := range []int{1, 11, 44, 45, 46} {
			got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: limit})
			if err != nil {
				t.Fatalf("ListPackages(limit %d): %v", limit, err)
			}
			if want := all[:min(limit, len(all))]; !slices.Equal(names(got), want) {
				t.Errorf("limit %d: got %d packages %q", limit, len(got), names(got))
			}
		}
	})

	t.Run("a new version moves its package to the front", func(t *testing.T) {
		s := su.store(t)
		all, inputs := catalogue(t, s)
		oldest := inputs[all[len(all)-1]]
		next := oldest
		next.Version, next.Now = "2.0.0", at(100)
		publish(t, s, next)
		// An identical republish is no publish: the order stays.
		again := inputs[all[len(all)-2]]
		again.Now = at(101)
		if _, created, err := registry.PublishVersion(ctx(), s, again); err != nil || created {
			t.Fatalf("identical republish = created %v, error %v", created, err)
		}
		got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 3})
		if err != nil {
			t.Fatalf("ListPackages: %v", err)
		}
		if want := []string{all[len(all)-1], all[0], all[1]}; !slices.Equal(names(got), want) {
			t.Errorf("ListPackages = %q, want %q", names(got), want)
		}
		if got[0].Version != "2.0.0" {
			t.Errorf("the moved package lists version %s, want 2.0.0", got[0].Version)
		}
	})

	t.Run("query words are text, not patterns", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		packs := []struct{ slug, name, description string }{
			{"percent", "100% pure", "no fillers"},
			{"underscore", "snake_case helper", "names"},
			{"backslash", `back\slash`, "paths"},
			{"plain", "plain pack", "1000 pure things, snakeXcase"},
			{"umlaut", "Über pack", "Größe matters"},
		}
		for i, p := range packs {
			in := input(alice, p.slug, "1.0.0", p.slug, at(i))
			in.Name, in.Description = p.name, p.description
			publish(t, s, in)
		}
		cases := []struct {
			query string
			want  []string
		}{
			// The last word is a prefix: "100" of "1000", "snake" of "snakexcase".
			{"100%", []string{"alice/percent", "alice/plain"}},
			{"1000 pure thing", []string{"alice/plain"}},
			{"100% pure", []string{"alice/percent"}},
			{"snake_case", []string{"alice/underscore"}},
			{"snake_", []string{"alice/underscore", "alice/plain"}},
			{`back\s`, []string{"alice/backslash"}},
			{`back\slash paths`, []string{"alice/backslash"}},
			// A query of no letters or digits finds nothing.
			{"%", []string{}},
			{"_", []string{}},
			{`\`, []string{}},
			{`"`, []string{}},
			{`*`, []string{}},
			{`snake OR case`, []string{}},
			{`"snake" NEAR`, []string{}},
			{`owner:alice`, []string{}},
			{"pure", []string{"alice/percent", "alice/plain"}},
			{"über", []string{"alice/umlaut"}},
			{"ÜBER", []string{"alice/umlaut"}},
			{"größe", []string{"alice/umlaut"}},
		}
		for _, c := range cases {
			got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10, Query: c.query})
			if err != nil {
				t.Fatalf("q=%q: ListPackages: %v", c.query, err)
			}
			if !slices.Equal(names(got), c.want) {
				t.Errorf("q=%q: got %q, want %q", c.query, names(got), c.want)
			}
		}
	})
}
