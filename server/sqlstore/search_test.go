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
		f.Rank, f.AfterSlug, f.Before = last.SearchRank, last.PackSlug, last.SearchKey()
	}
	t.Fatalf("q=%q: the walk does not end", query)
	return nil
}

var indexQueries = []string{"pack", "pack-01", "owner-1/pack-012", "called 0042", "ünïcødé", "second", "zeppelin", "pa", "owner-2"}

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
			if _, _, err := s.Publish(ctx, in.Ready()); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < n; i += 10 {
		in := inputs[i]
		in.Version, in.Description, in.Content = "2.0.0", "the second edition", []byte("# 2\n")
		in.SHA256, in.Now = sha(in.Content), base.Add(time.Hour+time.Duration(i)*time.Second)
		if _, _, err := s.Publish(ctx, in.Ready()); err != nil {
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
				if bytes.Contains(buf.Bytes(), []byte("package_gram")) {
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
				if _, _, err := restored.Publish(ctx, registry.PublishInput{OwnerID: owner.ID, OwnerSlug: "owner-0", PackSlug: "zeppelin",
					Name: "Zeppelin", Version: "1.0.0", Content: content, SHA256: sha(content), Now: time.Now()}.Ready()); err != nil {
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
					"old-pack": {"0:alice/old-pack"}, "before the": {"2:alice/old-pack"}, "alice/old": {"1:alice/old-pack"},
				} {
					if got := searchAll(t, s, q); !slices.Equal(got, want) {
						t.Errorf("q=%q: %q, want %q", q, got, want)
					}
				}
			})
		}
	}
}

// TestSearchBudget: words that are each common but never meet in one
// package cost a bounded walk per page; a page that used its budget up
// ends early with a cursor from where it stopped, and walking the cursors
// finds every match, each once.
func TestSearchBudget(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, 400, func(i int) string {
				if i == 7 || i == 250 {
					return "alpha and omega"
				}
				return []string{"about alpha", "about omega"}[i%2]
			})
			sqlstore.SetSearchBudget(t, 50)
			// The walk's bound, not the GIN index of rare words
			// (PostgreSQL), which answers these words from 400 packages
			// (TestSearchRareWords).
			sqlstore.SetSearchRareMax(t, 0)
			svc := registry.NewService(s, registry.Options{})
			found, pages, short := followSearch(t, svc, "alpha omega")
			if want := []string{"pack-250", "pack-007"}; !slices.Equal(found, want) {
				t.Errorf("found %q, want %q", found, want)
			}
			// About 200 postings of the driving trigram, 50 a page.
			if pages < 3 || short < 3 {
				t.Errorf("%d pages, %d of them short: the budget did not bound the pages", pages, short)
			}
			// A common word fills its page within the budget.
			page, next, err := svc.ListPackages(ctx, registry.ListQuery{Query: "about", Limit: 20})
			if err != nil || len(page) != 20 || next == "" {
				t.Errorf("q=about: %d packages, next %q, %v; want 20 and a cursor", len(page), next, err)
			}
		})
	}
}

// A word whose trigrams every package has, but which only two packages
// contain: nearly every posting is a candidate, and the pages end after
// the packages they may read, with cursors that find both matches once.
func TestSearchReadsBoundAPage(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, 300, func(i int) string {
				if i == 20 || i == 280 {
					return "the xyzxyz one"
				}
				return "xyz yzx zxy"
			})
			sqlstore.SetSearchReads(t, 40)
			svc := registry.NewService(s, registry.Options{})
			found, pages, short := followSearch(t, svc, "xyzxyz")
			if want := []string{"pack-280", "pack-020"}; !slices.Equal(found, want) {
				t.Errorf("found %q, want %q", found, want)
			}
			// 300 candidates, 40 a page.
			if pages < 7 || short < 7 {
				t.Errorf("%d pages, %d of them short: the reads did not bound the pages", pages, short)
			}
			// Without the bound, one page finds both.
			sqlstore.SetSearchReads(t, 1<<20)
			page, next, err := svc.ListPackages(ctx, registry.ListQuery{Query: "xyzxyz", Limit: 5})
			if err != nil || len(page) != 2 || next != "" {
				t.Errorf("unbounded: %d packages, next %q, %v; want 2 and no cursor", len(page), next, err)
			}
		})
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

// A walk over many batches, with words each in a share of the packages,
// finds exactly the packages whose description holds every word, newest
// first: what Go finds in the same descriptions.
func TestSearchWalkFindsWhatGoFinds(t *testing.T) {
	words := []string{"amber", "birch", "cedar", "delta", "ember"}
	describe := func(i int) string {
		var d []string
		for k, w := range words {
			// Word k in about one package in (k+2), spread unevenly.
			if (i*(2*k+3)+k)%(k+2) == 0 || i%97 == k {
				d = append(d, w)
			}
		}
		return "about " + strings.Join(d, " ") + " things"
	}
	const n = 3000
	queries := []string{"amber birch", "birch cedar delta", "ember amber", "cedar ember delta birch", "delta", "amber things"}
	type run struct {
		name     string
		dsn      func(t testing.TB) string
		rareMax  int // 0: the walk alone, never the GIN index of rare words
		mergeCap int // SQLite: 0, look-ups alone, never a merge of postings
	}
	var runs []run
	for _, b := range backends {
		runs = append(runs, run{b.name, b.dsn, 8192, 2})
		if b.name == "postgres" {
			runs = append(runs, run{b.name + " without the index of rare words", b.dsn, 0, 2})
		} else {
			runs = append(runs, run{b.name + " by look-ups alone", b.dsn, 0, 0},
				// Windows cut short wherever a merged trigram has more
				// postings in it than the batch's size.
				run{b.name + " with short merge windows", b.dsn, 0, 1})
		}
	}
	for _, b := range runs {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, n, describe)
			sqlstore.SetSearchRareMax(t, b.rareMax)
			sqlstore.SetSearchMergeCap(t, b.mergeCap)
			merged := 0
			sqlstore.OnSearchMerge(t, func(int) { merged++ })
			t.Cleanup(func() {
				if sqlite := !strings.HasPrefix(b.name, "postgres"); sqlite && (merged > 0) != (b.mergeCap > 0) {
					t.Errorf("%d batches merged postings, with a merge cap of %d", merged, b.mergeCap)
				}
			})
			svc := registry.NewService(s, registry.Options{})
			for _, q := range queries {
				want := newestWhere(n, func(i int) bool {
					all := true
					for _, w := range strings.Fields(q) {
						all = all && strings.Contains(describe(i), w)
					}
					return all
				})
				found, _, _ := followSearchUpTo(t, svc, q, 1000)
				if !slices.Equal(found, want) {
					t.Errorf("q=%q: found %d packages, want %d (first found %q, want %q)", q, len(found), len(want), found[:min(3, len(found))], want[:min(3, len(want))])
				}
			}
		})
	}
}

// A word in about a thousand packages, every one a match, fills its first
// page from a first batch of 256 postings: the walk does not read and
// check all of the trigram's postings before the page can fill.
func TestSearchFirstBatchIsSmall(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, 1000, func(int) string { return "a qzv thing" })
			var walked, batches int
			sqlstore.OnSearchWalk(t, func(postings, n int) { walked, batches = postings, n })
			page, err := s.ListPackages(context.Background(), registry.PackageFilter{Query: "qzv", Limit: 21})
			if err != nil || len(page) != 21 {
				t.Fatalf("q=qzv: %d packages, %v; want 21", len(page), err)
			}
			if walked != 256 || batches != 1 {
				t.Errorf("the first page walked %d postings in %d batches, want 256 in 1", walked, batches)
			}
		})
	}
}

// Two words each in a third of 3,000 packages, together in six: the same
// six newest first on both engines; on PostgreSQL from the GIN index of
// rare words once the first batch of 256 postings left the page short, in
// one page; and, when the index would hand back more packages than the
// walk lets it, from the walk. A word with one rare trigram only is left
// to the walk.
func TestSearchRareWords(t *testing.T) {
	ctx := context.Background()
	const n = 3000
	describe := func(i int) string {
		if i%500 == 123 {
			return "alpha and omega, zeta"
		}
		if i%10 == 1 {
			return "about xze and zeta"
		}
		return []string{"about alpha", "about omega", "about nothing"}[i%3] + ", zeta"
	}
	want := newestWhere(n, func(i int) bool { return i%500 == 123 })
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, n, describe)
			svc := registry.NewService(s, registry.Options{})
			var walked, batches int
			sqlstore.OnSearchWalk(t, func(postings, n int) { walked, batches = postings, n })
			page, next, err := svc.ListPackages(ctx, registry.ListQuery{Query: "alpha omega", Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			var found []string
			for _, p := range page {
				found = append(found, p.PackSlug)
			}
			if b.name == "postgres" {
				if !slices.Equal(found, want) || next != "" {
					t.Errorf("one page: %q, next %q; want %q and no cursor", found, next, want)
				}
				if walked != 0 || batches != 1 {
					t.Errorf("walked %d postings in %d batches; want the index of rare words alone", walked, batches)
				}
			}
			if found, _, _ := followSearchUpTo(t, svc, "alpha omega", 1000); !slices.Equal(found, want) {
				t.Errorf("by cursors: %q, want %q", found, want)
			}
			// Two rare trigrams that often meet ("xze" and "and" in the same
			// 300 packages): the first batch, which fills the page, and no
			// question to the index.
			if page, _, err := svc.ListPackages(ctx, registry.ListQuery{Query: "xze and", Limit: 20}); err != nil || len(page) != 20 {
				t.Errorf("q=xze and: %d packages, %v; want 20", len(page), err)
			}
			if b.name == "postgres" && (walked != 256 || batches != 1) {
				t.Errorf("q=xze and walked %d postings in %d batches; want the first batch alone", walked, batches)
			}
			// A word with one rare trigram, its others in every package: on
			// PostgreSQL the index reads the rare trigram's rows once the
			// first batch left the page short and matches the word on them
			// (none holds it); SQLite walks on by look-ups.
			if page, _, err := svc.ListPackages(ctx, registry.ListQuery{Query: "xzeta", Limit: 20}); err != nil || len(page) != 0 {
				t.Errorf("q=xzeta: %d packages, %v; want none", len(page), err)
			}
			if b.name == "postgres" && (walked != 256 || batches != 2) {
				t.Errorf("q=xzeta walked %d postings in %d batches; want the first batch, then the index", walked, batches)
			}
			if b.name == "sqlite" && walked <= 256 {
				t.Errorf("q=xzeta walked %d postings in %d batches; want the walk past its first batch", walked, batches)
			}
			// More packages with both words' trigrams than the index may read:
			// the walk goes on, and finds the same.
			sqlstore.SetSearchRareMax(t, 3)
			if found, _, _ := followSearchUpTo(t, svc, "alpha omega", 1000); !slices.Equal(found, want) {
				t.Errorf("past the index's bound: %q, want %q", found, want)
			}
		})
	}
}

// A word of two trigrams, the driving one in every other package and the
// other in all of them, in every 128th package: on SQLite their postings
// are merged, in windows that end at a batch's last posting, or sooner
// where the other trigram has more postings than the merge cap lets a
// window hold; here the first page needs more than one window, and the
// first window ends at a match. Followed by cursors, the search finds
// every match once, newest first, whatever the windows.
func TestSearchMergedPostingsMissNothing(t *testing.T) {
	const n = 1280
	want := newestWhere(n, func(i int) bool { return i%128 == 0 })
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, n, func(i int) string {
				switch {
				case i%128 == 0:
					return "about qzvx"
				case i%2 == 0:
					return "about qzv zvx"
				}
				return "about azvx"
			})
			svc := registry.NewService(s, registry.Options{})
			for _, mergeCap := range []int{2, 1} {
				sqlstore.SetSearchMergeCap(t, mergeCap)
				merged := 0
				sqlstore.OnSearchMerge(t, func(int) { merged++ })
				if found, _, _ := followSearchUpTo(t, svc, "qzvx", 1000); !slices.Equal(found, want) {
					t.Errorf("merge cap %d: found %d packages, want %d (first found %q)", mergeCap, len(found), len(want), found[:min(3, len(found))])
				}
				if b.name == "sqlite" && merged == 0 {
					t.Errorf("merge cap %d: no batch merged postings", mergeCap)
				}
			}
		})
	}
}

// newestWhere are the slugs seedDescribed gives the packages i < n for
// which keep holds, newest first: what a search should find.
func newestWhere(n int, keep func(i int) bool) []string {
	var slugs []string
	for i := n - 1; i >= 0; i-- {
		if keep(i) {
			slugs = append(slugs, fmt.Sprintf("pack-%03d", i))
		}
	}
	return slugs
}

// withDecoys runs check on each engine over 3,000 packages: six (every
// 500th) described as holding word, those for which decoy holds as holding
// decoys, the rest nothing; want is the six's slugs, newest first.
func withDecoys(t *testing.T, word, decoys string, decoy func(i int) bool, check func(t *testing.T, engine string, svc *registry.Service, want []string)) {
	const n = 3000
	describe := func(i int) string {
		switch {
		case i%500 == 123:
			return "about " + word
		case decoy(i):
			return "about " + decoys
		}
		return "about nothing"
	}
	want := newestWhere(n, func(i int) bool { return i%500 == 123 })
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := open(t, b.dsn(t), sqlstore.Options{})
			seedDescribed(t, s, n, describe)
			check(t, b.name, registry.NewService(s, registry.Options{}), want)
		})
	}
}

// On PostgreSQL the GIN index of rare words hands back only the packages
// whose searched text holds the word, not every package with its
// trigrams: 300 decoys with all three trigrams of "xyzzy" ("xyzz zzy"),
// newer than most of the six matches, are not read, so a page bound to 8
// reads is full. Both engines find the same six by cursors.
func TestSearchRareWordsMatchedInTheIndex(t *testing.T) {
	withDecoys(t, "xyzzy", "xyzz zzy", func(i int) bool { return i%10 == 1 }, func(t *testing.T, engine string, svc *registry.Service, want []string) {
		sqlstore.SetSearchReads(t, 8)
		page, _, err := svc.ListPackages(context.Background(), registry.ListQuery{Query: "xyzzy", Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		if engine == "postgres" && len(page) != 5 {
			t.Errorf("the first page holds %d packages, want 5", len(page))
		}
		if found, _, _ := followSearchUpTo(t, svc, "xyzzy", 1000); !slices.Equal(found, want) {
			t.Errorf("by cursors: %q, want %q", found, want)
		}
	})
}

// A word of one trigram ("qqqqq"), among 300 older decoys that have the
// trigram but not the word: on PostgreSQL, once the first batch left the
// page short, the GIN index of rare words reads the trigram's rows and
// matches the word on them, so the walk reads no second batch. Its rows
// read are bounded, matched or not: with the bound below the 306 rows that
// have the trigram (but above the six matches and the trigram's estimate,
// taken from its newest postings), the index's answer is refused and the
// walk goes on by postings. Both engines find the same six.
func TestSearchRareIndexReadsBounded(t *testing.T) {
	withDecoys(t, "qqqqq", "qqq", func(i int) bool { return i < 300 }, func(t *testing.T, engine string, svc *registry.Service, want []string) {
		var walked, batches int
		sqlstore.OnSearchWalk(t, func(postings, n int) { walked, batches = postings, n })
		search := func() []string {
			t.Helper()
			return searchPage(t, svc, "qqqqq", 10)
		}
		if found := search(); !slices.Equal(found, want) {
			t.Errorf("one page: %q, want %q", found, want)
		}
		if engine == "postgres" && (walked != 256 || batches != 2) {
			t.Errorf("walked %d postings in %d batches; want the first batch, then the index", walked, batches)
		}
		sqlstore.SetSearchRareMax(t, 100)
		if found := search(); !slices.Equal(found, want) {
			t.Errorf("past the index's bound on rows: %q, want %q", found, want)
		}
		if engine == "postgres" && (walked <= 256 || batches != 3) {
			t.Errorf("past the index's bound on rows: walked %d postings in %d batches; want the first batch, the refused index, a second batch", walked, batches)
		}
		if found, _, _ := followSearchUpTo(t, svc, "qqqqq", 1000); !slices.Equal(found, want) {
			t.Errorf("by cursors: %q, want %q", found, want)
		}
	})
}
