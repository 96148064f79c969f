package storetest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pact-registry/pact/pkg/packfmt"
	"github.com/pact-registry/pact/server/registry"
)

// searchQuery is the model of how a search reads its query
// (docs/protocol.md, "Search"): a one-word "owner/slug" names the owner;
// each word is a phrase of the index's words; the exact key is the rest as
// a slug.
type searchQuery struct {
	owner string
	words [][]string
	key   string
}

func modelQuery(query string) searchQuery {
	var q searchQuery
	text := query
	if fields := strings.Fields(query); len(fields) == 1 {
		if owner, rest, ok := strings.Cut(fields[0], "/"); ok && packfmt.Slug(owner) == strings.ToLower(owner) && owner != "" {
			q.owner, text = strings.ToLower(owner), rest
		}
	}
	for _, f := range strings.Fields(text) {
		if w := packfmt.SearchWords(f); len(w) > 0 {
			q.words = append(q.words, w)
		}
	}
	q.key = packfmt.Slug(text)
	return q
}

// hasPhrase says whether words holds phrase as consecutive words, the
// phrase's last word as a prefix when prefix is set.
func hasPhrase(words, phrase []string, prefix bool) bool {
	for i := 0; i+len(phrase) <= len(words); i++ {
		ok := true
		for j, p := range phrase {
			w := words[i+j]
			if !(w == p || prefix && j == len(phrase)-1 && strings.HasPrefix(w, p)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// inColumns says whether every word of q is in one of the columns.
func (q searchQuery) inColumns(columns ...[]string) bool {
	for i, w := range q.words {
		if !slices.ContainsFunc(columns, func(c []string) bool { return hasPhrase(c, w, i == len(q.words)-1) }) {
			return false
		}
	}
	return true
}

// searchRank is the model of a search: the rank in which query finds in,
// or -1 when it does not.
func searchRank(in registry.PublishInput, query string) int {
	q := modelQuery(query)
	if q.owner != "" && !strings.EqualFold(in.OwnerSlug, q.owner) || len(q.words) == 0 && q.owner == "" {
		return -1
	}
	owner := packfmt.SearchWords(in.OwnerSlug)
	name := packfmt.SearchWords(in.PackSlug + " " + in.Name)
	description := packfmt.SearchWords(in.Description)
	switch {
	case q.key != "" && in.PackSlug == q.key && (len(q.words) > 0 || q.owner != ""):
		return registry.SearchExact
	case q.inColumns(owner, name):
		return registry.SearchName
	case q.inColumns(owner, name, description):
		return registry.SearchOther
	}
	return -1
}

// searchMatches is the model of which packages a search finds.
func searchMatches(in registry.PublishInput, query string) bool {
	return strings.TrimSpace(query) == "" || searchRank(in, query) >= 0
}

// listModel is what ListPackages returns for f without paging, all being
// newest first; for a search, as ranked (searchResult) names, each rank's
// in alphabetical order: the engine's relevance orders a rank.
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
	for i, name := range want {
		want[i] = fmt.Sprintf("%d %s", searchRank(inputs[name], f.Query), name)
	}
	slices.Sort(want)
	return want
}

// searchResult is a search's answer as listModel gives it for a search.
func searchResult(pkgs []registry.Package) []string {
	out := []string{}
	for _, p := range pkgs {
		out = append(out, fmt.Sprintf("%d %s/%s", p.SearchRank, p.OwnerSlug, p.PackSlug))
	}
	slices.Sort(out)
	return out
}

// searchOrdered checks that pkgs come in a search's order: rank, score
// (lower first), newest latest version.
func searchOrdered(t *testing.T, what string, pkgs []registry.Package) {
	t.Helper()
	for i := 1; i < len(pkgs); i++ {
		a, b := pkgs[i-1], pkgs[i]
		if cmp.Or(cmp.Compare(a.SearchRank, b.SearchRank), cmp.Compare(a.SearchScore, b.SearchScore), cmp.Compare(b.LatestVersionID, a.LatestVersionID)) >= 0 {
			t.Errorf("%s: %s/%s (rank %d, score %g) before %s/%s (rank %d, score %g)", what,
				a.OwnerSlug, a.PackSlug, a.SearchRank, a.SearchScore, b.OwnerSlug, b.PackSlug, b.SearchRank, b.SearchScore)
		}
	}
}

// nextSearchPage sets f to start after last.
func nextSearchPage(f *registry.PackageFilter, last registry.Package) {
	f.Rank, f.Score, f.Before = last.SearchRank, last.SearchScore, last.LatestVersionID
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
	// Each rank's packages (as "rank owner/slug", in alphabetical
	// order): the engine's relevance orders a rank, which searchOrdered
	// checks against the scores.
	cases := []struct {
		query string
		want  []string
	}{
		{"widget", []string{"0 alice/widget", "0 bob/widget", "1 alice/widget-a", "1 bob/widget-cli", "1 carol/my-widget",
			"1 carol/widgets", "1 widget/tools", "2 alice/gadget"}},
		{"WIDGET", []string{"0 alice/widget", "0 bob/widget", "1 alice/widget-a", "1 bob/widget-cli", "1 carol/my-widget",
			"1 carol/widgets", "1 widget/tools", "2 alice/gadget"}},
		{"widget cli", []string{"0 bob/widget-cli"}},
		{"widget-c", []string{"1 bob/widget-cli"}},
		{"alice/widget", []string{"0 alice/widget", "1 alice/widget-a", "2 alice/gadget"}},
		{"alice/", []string{"1 alice/gadget", "1 alice/widget", "1 alice/widget-a"}},
		{"bob/widget-cli", []string{"0 bob/widget-cli"}},
		{"ice/wid", []string{}},
		{"my widget", []string{"0 carol/my-widget"}},
		{"command", []string{"2 bob/widget-cli"}},
		{"dave", []string{"1 dave/unrelated"}},
		{"widget works", []string{"2 alice/gadget"}},
		{"widget zebra", []string{}},
		// folded as slugs fold, on both sides (docs/protocol.md, "Search")
		{"ÜNÏCØDÉ", []string{"2 erin/umlaut"}},
		{"unicode", []string{"2 erin/umlaut"}},
		{"ümlaut STRAßE", []string{"2 erin/umlaut"}},
		{"umlaut strasse", []string{"2 erin/umlaut"}},
		{"ÜMLAUT", []string{"0 erin/umlaut"}},
		{"UMLAUT", []string{"0 erin/umlaut"}},
		{"ERIN/UML", []string{"1 erin/umlaut"}},
		// the last word is a prefix, as typed
		{"my", []string{"1 carol/my-widget"}},
		{"wi", []string{"1 alice/widget", "1 alice/widget-a", "1 bob/widget", "1 bob/widget-cli", "1 carol/my-widget",
			"1 carol/widgets", "1 widget/tools", "2 alice/gadget"}},
		{"to", []string{"1 widget/tools", "2 dave/unrelated"}},
		{"a", []string{"1 alice/gadget", "1 alice/widget", "1 alice/widget-a", "2 carol/my-widget", "2 widget/tools"}},
		{"!!", []string{}},
	}
	t.Run("ranks", func(t *testing.T) {
		s := setup(t)
		inputs := map[string]registry.PublishInput{}
		for i, p := range packs {
			in := input(&registry.Account{Username: p.owner}, p.slug, "1.0.0", "", at(i))
			in.Name, in.Description = p.name, p.description
			inputs[p.owner+"/"+p.slug] = in
		}
		for _, c := range cases {
			got, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 50, Query: c.query})
			if err != nil {
				t.Fatalf("q=%q: %v", c.query, err)
			}
			if !slices.Equal(searchResult(got), c.want) {
				t.Errorf("q=%q: got %q\nwant %q", c.query, searchResult(got), c.want)
			}
			searchOrdered(t, "q="+c.query, got)
			// The model of the other tests agrees.
			var all []string
			for name := range inputs {
				all = append(all, name)
			}
			if model := listModel(all, inputs, registry.PackageFilter{Query: c.query}); !slices.Equal(model, c.want) {
				t.Errorf("q=%q: the model says %q", c.query, model)
			}
		}
	})
	t.Run("pages across ranks", func(t *testing.T) {
		s := setup(t)
		for _, c := range cases {
			whole, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 50, Query: c.query})
			if err != nil {
				t.Fatalf("q=%q: %v", c.query, err)
			}
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
					nextSearchPage(&f, shown[len(shown)-1])
				}
				if want := names(whole); !slices.Equal(seen, want) {
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
	t.Run("a search follows a package's new latest version", func(t *testing.T) {
		// alice/gadget's new version, with the same text, moves it to the
		// front of the list; in the search its rank and score stay.
		s := setup(t)
		alice, err := s.AccountByUsername(ctx(), "alice")
		if err != nil {
			t.Fatal(err)
		}
		before, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 50, Query: "works"})
		if err != nil || len(before) != 1 {
			t.Fatalf("q=works: %q, %v", names(before), err)
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
		if want := cases[0].want; !slices.Equal(searchResult(got), want) {
			t.Errorf("q=widget after a new version of alice/gadget: got %q\nwant %q", searchResult(got), want)
		}
		after, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 50, Query: "works"})
		if err != nil || len(after) != 1 || after[0].Version != "2.0.0" || after[0].SearchScore != before[0].SearchScore {
			t.Errorf("q=works after a new version: %+v, %v; want version 2.0.0 with score %g", after, err, before[0].SearchScore)
		}
	})
	t.Run("too many words", func(t *testing.T) {
		s := setup(t)
		_, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10, Query: strings.Repeat("w ", 17)})
		wantCode(t, "17 words", err, registry.Invalid)
	})
}
