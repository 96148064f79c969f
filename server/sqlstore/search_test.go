package sqlstore_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// searchAll walks every page of a search, 7 at a time.
func searchAll(t *testing.T, s *sqlstore.Store, query string) []string {
	t.Helper()
	f := registry.PackageFilter{Query: query}
	var out []string
	for pages := 0; pages < 100; pages++ {
		f.Limit = 8
		page, err := s.ListPackages(context.Background(), f)
		if err != nil {
			t.Fatalf("q=%q: %v", query, err)
		}
		shown := page[:min(7, len(page))]
		for _, p := range shown {
			out = append(out, fmt.Sprintf("%d:%s/%s", p.SearchRank, p.OwnerSlug, p.PackSlug))
		}
		if len(page) <= 7 {
			return out
		}
		last := shown[len(shown)-1]
		f.Rank, f.Score, f.Before = last.SearchRank, last.SearchScore, last.LatestVersionID
	}
	t.Fatalf("q=%q: the walk does not end", query)
	return nil
}

var indexQueries = []string{"pack", "pack-01", "owner-1/pack-012", "called 0042", "ünïcødé", "second", "zeppelin", "pa", "owner-2", "owner-1/"}

// catalogueOf publishes n packages through Publish (the triggers) or, with
// seed, through Seed (the bulk path), and a second version of some.
func catalogueOf(t *testing.T, s *sqlstore.Store, n int, seed bool) {
	t.Helper()
	ctx := context.Background()
	var owners []*registry.Account
	for i := range 3 {
		a := &registry.Account{Email: fmt.Sprintf("o%d@example.com", i), Username: fmt.Sprintf("owner-%d", i), CreatedAt: time.Now()}
		if err := s.CreateAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
		owners = append(owners, a)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var inputs []registry.PublishInput
	for i := range n {
		o := owners[i%3]
		name := fmt.Sprintf("pack-%04d", i)
		content := []byte("# " + name + "\n")
		in := registry.PublishInput{OwnerID: o.ID, OwnerSlug: o.Username, PackSlug: name, Name: name,
			Description: "Called " + name + " Ünïcødé", Scheme: "s", Version: "1.0.0", Content: content, SHA256: sha(content),
			Now: base.Add(time.Duration(i) * time.Second)}
		inputs = append(inputs, in)
	}
	if seed {
		if err := s.Seed(ctx, registry.ReadyAll(inputs)); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, in := range inputs {
			if _, _, err := registry.PublishVersion(ctx, s, in); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < n; i += 10 {
		in := inputs[i]
		in.Version, in.Description, in.Content = "2.0.0", "the second edition", []byte("# 2\n")
		in.SHA256, in.Now = sha(in.Content), base.Add(time.Hour+time.Duration(i)*time.Second)
		if _, _, err := registry.PublishVersion(ctx, s, in); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSearchIndexAfterSeedAndRestore: a bulk load (Seed, Restore) builds
// the index in one pass and turns its triggers back on; a restore rebuilds
// the index the dump leaves out, complete, on either engine.
func TestSearchIndexAfterSeedAndRestore(t *testing.T) {
	ctx := context.Background()
	for _, from := range backends {
		t.Run(from.name, func(t *testing.T) {
			published := open(t, from.dsn(t), sqlstore.Options{})
			catalogueOf(t, published, 120, false)
			seeded := open(t, from.dsn(t), sqlstore.Options{})
			catalogueOf(t, seeded, 120, true)
			wantRows, on, err := sqlstore.SearchIndex(ctx, published)
			if err != nil || !on || wantRows == 0 {
				t.Fatalf("published: %d index rows, triggers on %v, %v", wantRows, on, err)
			}
			if rows, on, err := sqlstore.SearchIndex(ctx, seeded); err != nil || !on || rows != wantRows {
				t.Errorf("seeded: %d index rows, triggers on %v, %v; want %d rows, on", rows, on, err, wantRows)
			}
			for name, s := range map[string]*sqlstore.Store{"published": published, "seeded": seeded} {
				if wrong, err := sqlstore.WrongSearchTexts(ctx, s); wrong != 0 || err != nil {
					t.Errorf("%s: %d packages' searched texts wrong or missing, %v", name, wrong, err)
				}
			}
			for _, q := range indexQueries {
				want := searchAll(t, published, q)
				if got := searchAll(t, seeded, q); !slices.Equal(got, want) {
					t.Errorf("q=%q: seeded store finds %q\nwant %q", q, got, want)
				}
			}
			for _, to := range backends {
				restored := open(t, to.dsn(t), sqlstore.Options{})
				var buf bytes.Buffer
				if _, err := published.Dump(ctx, &buf); err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(buf.Bytes(), []byte("package_texts")) || bytes.Contains(buf.Bytes(), []byte("package_search")) {
					t.Errorf("the dump holds the search index")
				}
				if _, err := restored.Restore(ctx, &buf); err != nil {
					t.Fatalf("Restore into %s: %v", to.name, err)
				}
				if rows, on, err := sqlstore.SearchIndex(ctx, restored); err != nil || !on || rows != wantRows {
					t.Errorf("restored into %s: %d index rows, triggers on %v, %v; want %d rows, on", to.name, rows, on, err, wantRows)
				}
				for _, q := range indexQueries {
					want := searchAll(t, published, q)
					if got := searchAll(t, restored, q); !slices.Equal(got, want) {
						t.Errorf("q=%q: restored into %s finds %q\nwant %q", q, to.name, got, want)
					}
				}
				// The triggers work after the restore: a publish is found at once.
				owner, err := restored.AccountByUsername(ctx, "owner-0")
				if err != nil {
					t.Fatal(err)
				}
				content := []byte("# z\n")
				if _, _, err := registry.PublishVersion(ctx, restored, registry.PublishInput{OwnerID: owner.ID, OwnerSlug: "owner-0", PackSlug: "zeppelin",
					Name: "Zeppelin", Version: "1.0.0", Content: content, SHA256: sha(content), Now: time.Now()}); err != nil {
					t.Fatal(err)
				}
				if got := searchAll(t, restored, "zeppelin"); !slices.Equal(got, []string{"0:owner-0/zeppelin"}) {
					t.Errorf("restored into %s: a new publish is found as %q", to.name, got)
				}
				if wrong, err := sqlstore.WrongSearchTexts(ctx, restored); wrong != 0 || err != nil {
					t.Errorf("restored into %s: %d packages' searched texts wrong or missing, %v", to.name, wrong, err)
				}
			}
		})
	}
}

// TestSearchIndexMigrationIndexesExistingPackages: packages stored before
// the index existed (migration 2), or while it was keyed by latest version
// (migration 8), are found after the upgrade.
func TestSearchIndexMigrationIndexesExistingPackages(t *testing.T) {
	for _, b := range backends {
		for _, from := range []int64{2, 8} {
			t.Run(fmt.Sprintf("%s from %d", b.name, from), func(t *testing.T) {
				dsn := b.dsn(t)
				err := sqlstore.MigrateTo(context.Background(), dsn, from,
					`INSERT INTO accounts (id, email, username, created_at) VALUES (7, 'a@example.com', 'alice', '2026-01-01 00:00:00')`,
					`INSERT INTO packages (id, owner_id, pack_slug, name, description, scheme, version, sha256, latest_version_id, created_at, updated_at)
VALUES (3, 7, 'old-pack', 'Old Pack', 'stored before the index', '', '1.0.0', 'ab', 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00')`,
					`INSERT INTO versions (id, package_id, version, name, description, scheme, sha256, size, content, created_at)
VALUES (5, 3, '1.0.0', 'Old Pack', 'stored before the index', '', 'ab', 1, 'x', '2026-01-01 00:00:00')`,
					`UPDATE packages SET latest_version_id = 5 WHERE id = 3`)
				if err != nil {
					t.Fatal(err)
				}
				s := open(t, dsn, sqlstore.Options{LogBackfill: registry.Backfill()})
				if wrong, err := sqlstore.WrongSearchTexts(context.Background(), s); wrong != 0 || err != nil {
					t.Errorf("%d packages' searched texts wrong or missing, %v", wrong, err)
				}
				for q, want := range map[string][]string{
					"old-pack": {"0:alice/old-pack"}, "before the": {"2:alice/old-pack"}, "alice/old": {"1:alice/old-pack"}, "index": {"2:alice/old-pack"},
				} {
					if got := searchAll(t, s, q); !slices.Equal(got, want) {
						t.Errorf("q=%q: %q, want %q", q, got, want)
					}
				}
			})
		}
	}
}

// seedDescribed seeds n packages pack-000… of the account "owner", package
// i described by describe(i), one a second, the newest last.
func seedDescribed(t *testing.T, s *sqlstore.Store, n int, describe func(i int) string) {
	t.Helper()
	ctx := context.Background()
	owner := &registry.Account{Email: "o@example.com", Username: "owner", CreatedAt: time.Now()}
	if err := s.CreateAccount(ctx, owner); err != nil {
		t.Fatal(err)
	}
	var batch []registry.PublishInput
	for i := range n {
		name := fmt.Sprintf("pack-%03d", i)
		content := []byte("# " + name + "\n")
		batch = append(batch, registry.PublishInput{OwnerID: owner.ID, OwnerSlug: "owner", PackSlug: name, Name: name,
			Description: describe(i), Version: "1.0.0", Content: content, SHA256: sha(content),
			Now: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)})
	}
	if err := s.Seed(ctx, registry.ReadyAll(batch)); err != nil {
		t.Fatal(err)
	}
}

// searchPage is the slugs of the first page of a search for query.
func searchPage(t *testing.T, svc *registry.Service, query string, limit int) []string {
	t.Helper()
	page, _, err := svc.ListPackages(context.Background(), registry.ListQuery{Query: query, Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, p := range page {
		found = append(found, p.PackSlug)
	}
	return found
}

// followSearch pages through a search 5 packages at a time, by its cursors
// (at most 100 pages), and returns the slugs found, the pages, and how many
// pages before the last were short.
func followSearch(t *testing.T, svc *registry.Service, query string) (found []string, pages, short int) {
	t.Helper()
	return followSearchUpTo(t, svc, query, 100)
}

// followSearchUpTo is followSearch for at most maxPages pages.
func followSearchUpTo(t *testing.T, svc *registry.Service, query string, maxPages int) (found []string, pages, short int) {
	t.Helper()
	cursor := ""
	for ; pages < maxPages; pages++ {
		page, next, err := svc.ListPackages(context.Background(), registry.ListQuery{Query: query, Limit: 5, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page {
			found = append(found, p.PackSlug)
		}
		if next == "" {
			break
		}
		if len(page) < 5 {
			short++
		}
		cursor = next
	}
	return found, pages, short
}

// The words are matched against text folded as the index folds it: ASCII
// text as it is (SQLite's LIKE ignores ASCII case), any other text folded
// first, so uppercase letters beyond ASCII, and on SQLite the Kelvin sign
// that Go folds to an ASCII "k", are found in lowercase.
func TestSearchMatchesFoldedText(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, 4, func(i int) string {
				return []string{"The ÜNÏCØDÉ widget", "A \u212Aelvin scale", "PLAIN Ascii", "nothing here"}[i]
			})
			svc := registry.NewService(s, registry.Options{})
			cases := map[string][]string{"ünïcødé": {"pack-000"}, "plain ascii": {"pack-002"}, "nothing": {"pack-003"}}
			if b.name == "sqlite" {
				cases["kelvin"] = []string{"pack-001"}
			}
			for q, want := range cases {
				if found, _, _ := followSearch(t, svc, q); !slices.Equal(found, want) {
					t.Errorf("q=%q: found %q, want %q", q, found, want)
				}
			}
		})
	}
}

// TestSearchWindowBoundsTheRankedMatches: a word in every package scores
// only the newest matches of each rank (the window), so that its cost does
// not grow with the registry; an exact match is found wherever it is, and
// the pages walk the window once, in order.
func TestSearchWindowBoundsTheRankedMatches(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{SearchWindow: 40})
			seedDescribed(t, s, 300, func(i int) string {
				if i%3 == 0 {
					return "a common word, twice common"
				}
				return "a common word"
			})
			svc := registry.NewService(s, registry.Options{})
			found, _, _ := followSearch(t, svc, "common")
			if len(found) != 40 {
				t.Fatalf("q=common found %d packages, want the window's 40", len(found))
			}
			newest := map[string]bool{}
			for i := 260; i < 300; i++ {
				newest[fmt.Sprintf("pack-%03d", i)] = true
			}
			for _, slug := range found {
				if !newest[slug] {
					t.Errorf("q=common found %s, outside the newest 40", slug)
				}
			}
			// "pack 7" is the exact slug pack-007, far older than the window
			// of "pack" (every package's name).
			if page := searchPage(t, svc, "pack 007", 3); len(page) == 0 || page[0] != "pack-007" {
				t.Errorf("q=pack 007: %q, want pack-007 first", page)
			}
			if page := searchPage(t, svc, "pack-005", 3); len(page) == 0 || page[0] != "pack-005" {
				t.Errorf("q=pack-005: %q, want pack-005 first", page)
			}
		})
	}
}

// TestSearchScoresOnlyWordsUnderTheBound (SQLite): a word in more packages
// than the bound is matched but not weighed by bm25() (whose document
// frequency would count every row holding it), so a package scores for
// "common rare" what it scores for "rare"; under the bound both words
// count. A last word itself past the bound matches as typed, not as the
// start of longer words.
func TestSearchScoresOnlyWordsUnderTheBound(t *testing.T) {
	dsn := backends[0].dsn(t)
	s := open(t, dsn, sqlstore.Options{})
	seedDescribed(t, s, 60, func(i int) string {
		d := "plain"
		if i%3 == 0 {
			d = "a common word"
		}
		if i%5 == 0 {
			d += " and a rare one" + strings.Repeat(" padding", i%3)
		}
		if i == 7 {
			d = "commonplace"
		}
		return d
	})
	ctx := context.Background()
	scores := func(q string) map[string]float64 {
		t.Helper()
		page, err := s.ListPackages(ctx, registry.PackageFilter{Query: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]float64{}
		for _, p := range page {
			m[p.PackSlug] = p.SearchScore
		}
		return m
	}
	both, rare := scores("common rare"), scores("rare")
	if len(both) != 4 || len(rare) != 12 {
		t.Fatalf("q=common rare found %d, q=rare %d; want 4 and 12", len(both), len(rare))
	}
	for slug, score := range both {
		if score == rare[slug] {
			t.Errorf("under the default bound, %s scores %v for both queries: common is not weighed", slug, score)
		}
	}
	if _, ok := scores("common")["pack-007"]; !ok {
		t.Errorf("under the default bound, q=common does not find commonplace (pack-007)")
	}

	s = open(t, dsn, sqlstore.Options{ScoreBound: 15}) // common is in 20 packages, rare in 12
	bounded := scores("common rare")
	if len(bounded) != 4 {
		t.Fatalf("past the bound, q=common rare found %d packages, want the same 4", len(bounded))
	}
	for slug, score := range bounded {
		if _, ok := both[slug]; !ok || score != rare[slug] {
			t.Errorf("past the bound, %s scores %v for common rare, want its score for rare alone (%v)", slug, score, rare[slug])
		}
	}
	if found := scores("common"); len(found) != 20 {
		t.Errorf("past the bound, q=common found %d packages, want the 20 that say common (not commonplace)", len(found))
	}
	if _, ok := scores("commonp")["pack-007"]; !ok {
		t.Errorf("q=commonp does not find commonplace (pack-007)")
	}
}

// TestSuggestionsHaveABudget (PostgreSQL): suggestions get at most the
// store's budget of the server's time; past it a search has none, with no
// error, instead of waiting. Here the packages table is locked by another
// session, so the statement waits past the budget. A second store on the
// same database, with a budget nothing here reaches, shows the
// suggestions are there before and after.
func TestSuggestionsHaveABudget(t *testing.T) {
	dsn := backends[1].dsn(t)
	s := open(t, dsn, sqlstore.Options{SuggestBudget: 100 * time.Millisecond})
	unbounded := open(t, dsn, sqlstore.Options{SuggestBudget: time.Minute})
	seedDescribed(t, s, 5, func(i int) string { return "a widget" })
	ctx := context.Background()
	if got, err := unbounded.SuggestSlugs(ctx, "pack-00x", 5); err != nil || len(got) == 0 {
		t.Fatalf("SuggestSlugs(pack-00x) = %q, %v; want suggestions", got, err)
	}
	tx := otherSession(t, dsn)
	if _, err := tx.ExecContext(ctx, "LOCK TABLE packages IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	got, err := s.SuggestSlugs(ctx, "pack-00x", 5)
	if err != nil || len(got) != 0 {
		t.Errorf("past the budget SuggestSlugs = %q, %v; want none and no error", got, err)
	}
	tx.Rollback()
	if got, err := unbounded.SuggestSlugs(ctx, "pack-00x", 5); err != nil || len(got) == 0 {
		t.Errorf("after the lock SuggestSlugs = %q, %v; want suggestions", got, err)
	}
}

// TestCommonLastWordMatchesAsTyped: on both engines, a last word itself in
// more packages than the bound matches as typed, not as the start of
// longer words; under the bound it is a prefix.
func TestCommonLastWordMatchesAsTyped(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			s := open(t, dsn, sqlstore.Options{})
			seedDescribed(t, s, 12, func(i int) string {
				if i == 7 {
					return "commonplace"
				}
				return "a common word"
			})
			count := func(q string) int {
				t.Helper()
				page, err := s.ListPackages(context.Background(), registry.PackageFilter{Query: q, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				return len(page)
			}
			if n := count("common"); n != 12 {
				t.Errorf("under the bound, q=common found %d packages, want 12 (commonplace too)", n)
			}
			s = open(t, dsn, sqlstore.Options{ScoreBound: 5})
			if n := count("common"); n != 11 {
				t.Errorf("past the bound, q=common found %d packages, want the 11 that say common", n)
			}
			if n := count("commonp"); n != 1 {
				t.Errorf("q=commonp found %d packages, want commonplace", n)
			}
		})
	}
}
