package storetest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// relevanceSet is a corpus of handwritten packages and the searches people
// type, with what must come first (relevance.json; its _about says how it
// is read). Every engine must rank it so.
//
//go:embed relevance.json
var relevanceSet []byte

type relevanceCorpus struct {
	Packages []struct {
		Owner, Slug, Name, Description string
	}
	Queries []struct {
		Q       string
		Top     []string
		TopSet  []string `json:"top_set"`
		Absent  []string
		Suggest string
		Why     string
	}
}

func (su suite) testRelevance(t *testing.T) {
	var corpus relevanceCorpus
	if err := json.Unmarshal(relevanceSet, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus.Packages) < 200 || len(corpus.Queries) < 40 {
		t.Fatalf("the relevance set has %d packages and %d queries", len(corpus.Packages), len(corpus.Queries))
	}
	s := su.store(t)
	svc := registry.NewService(s, registry.Options{})
	accounts := map[string]*registry.Account{}
	for i, p := range corpus.Packages {
		if accounts[p.Owner] == nil {
			accounts[p.Owner] = createAccount(t, s, p.Owner)
		}
		in := input(accounts[p.Owner], p.Slug, "1.0.0", p.Owner+"/"+p.Slug, at(i))
		in.Name, in.Description = p.Name, p.Description
		publish(t, s, in)
	}
	for _, c := range corpus.Queries {
		page, _, err := svc.ListPackages(ctx(), registry.ListQuery{Query: c.Q, Limit: registry.MaxListLimit})
		if err != nil {
			t.Fatalf("q=%q: %v", c.Q, err)
		}
		got := names(page)
		why := fmt.Sprintf("q=%q (%s)\n got %q", c.Q, c.Why, got[:min(len(got), 8)])
		if len(c.Top) > 0 && (len(got) < len(c.Top) || !slices.Equal(got[:len(c.Top)], c.Top)) {
			t.Errorf("%s\nwant first %q", why, c.Top)
		}
		if n := len(c.TopSet); n > 0 {
			first := slices.Clone(got[:min(n, len(got))])
			want := slices.Clone(c.TopSet)
			slices.Sort(first)
			slices.Sort(want)
			if !slices.Equal(first, want) {
				t.Errorf("%s\nwant first, in any order, %q", why, c.TopSet)
			}
		}
		for _, a := range c.Absent {
			if slices.Contains(got, a) {
				t.Errorf("%s\nwant no %s", why, a)
			}
		}
		if c.Suggest != "" {
			suggestions, err := svc.Suggestions(ctx(), registry.ListQuery{Query: c.Q}, page)
			if err != nil {
				t.Fatalf("q=%q: suggestions: %v", c.Q, err)
			}
			if len(suggestions) == 0 || suggestions[0] != c.Suggest {
				t.Errorf("q=%q (%s): suggestions %q, want %q first", c.Q, c.Why, suggestions, c.Suggest)
			}
		}
	}
}
