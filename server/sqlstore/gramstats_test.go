package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// A search keeps its trigrams' estimates a while: the same words, or
// words of the same trigrams, read no probes again; a word with one new
// trigram reads that one. Estimates kept from when "quokka" was in two
// packages do not change what a search finds once 300 more have it: every
// match, newest first, by cursors; and a package published right after a
// search that found nothing is found by the next one, though its trigrams
// are still estimated in no package. With the estimates kept for no time
// every search reads them all, and a bulk load forgets them.
func TestSearchEstimatesKeptAWhile(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, 50, func(i int) string {
				if i%25 == 7 {
					return "about quokka"
				}
				return "about nothing"
			})
			svc := registry.NewService(s, registry.Options{})
			probed := -1
			sqlstore.OnGramProbes(t, func(n int) { probed = n })
			search := func(q string) []string {
				t.Helper()
				probed = -1
				return searchPage(t, svc, q, 10)
			}
			want := []string{"pack-032", "pack-007"}
			for _, c := range []struct {
				q      string
				probed int
			}{{"quokka", 4}, {"quokka", 0}, {"okka", 0}, {"quokkas", 1}} {
				found := search(c.q)
				if c.q != "quokkas" && !slices.Equal(found, want) {
					t.Errorf("%q found %q, want %q", c.q, found, want)
				}
				if probed != c.probed {
					t.Errorf("%q read the probes of %d trigrams, want %d", c.q, probed, c.probed)
				}
			}

			owner, err := s.AccountByUsername(ctx, "owner")
			if err != nil {
				t.Fatal(err)
			}
			for i := range 300 {
				name := fmt.Sprintf("pack-%03d", 50+i)
				content := []byte("# " + name + "\n")
				if _, _, err := s.Publish(ctx, registry.PublishInput{OwnerID: owner.ID, OwnerSlug: "owner", PackSlug: name, Name: name,
					Description: "more quokka", Version: "1.0.0", Content: content, SHA256: sha(content),
					Now: time.Date(2026, 2, 1, 0, 0, i, 0, time.UTC)}.Ready()); err != nil {
					t.Fatal(err)
				}
			}
			if found := search("wombat"); len(found) != 0 {
				t.Fatalf("wombat found %q before any package has it", found)
			}
			content := []byte("# wombat\n")
			if _, _, err := s.Publish(ctx, registry.PublishInput{OwnerID: owner.ID, OwnerSlug: "owner", PackSlug: "wombat", Name: "wombat",
				Description: "a burrow", Version: "1.0.0", Content: content, SHA256: sha(content),
				Now: time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC)}.Ready()); err != nil {
				t.Fatal(err)
			}
			if found := search("wombat"); !slices.Equal(found, []string{"wombat"}) || probed != 0 {
				t.Errorf("published after a search that found nothing, estimated in no package: found %q (probes of %d trigrams read), want it found with the kept estimates", found, probed)
			}

			all := newestWhere(350, func(i int) bool { return i >= 50 || i%25 == 7 })
			if found, _, _ := followSearchUpTo(t, svc, "quokka", 1000); !slices.Equal(found, all) {
				t.Errorf("with estimates from before 300 publishes: found %d packages, want %d, newest first", len(found), len(all))
			}
			if probed != 0 {
				t.Errorf("after the publishes, within the estimates' time: read the probes of %d trigrams, want 0", probed)
			}

			content = []byte("# late\n")
			if err := s.Seed(ctx, registry.ReadyAll([]registry.PublishInput{{OwnerID: owner.ID, OwnerSlug: "owner", PackSlug: "late", Name: "late",
				Description: "late quokka", Version: "1.0.0", Content: content, SHA256: sha(content),
				Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}})); err != nil {
				t.Fatal(err)
			}
			if found := search("quokka"); len(found) == 0 || found[0] != "late" {
				t.Errorf("after a bulk load: found %q first, want \"late\"", found)
			}
			if probed != 4 {
				t.Errorf("after a bulk load: read the probes of %d trigrams, want 4", probed)
			}

			sqlstore.SetGramStatsTTL(t, 0)
			search("quokka")
			if probed != 4 {
				t.Errorf("with estimates kept for no time: read the probes of %d trigrams, want 4", probed)
			}
		})
	}
}
