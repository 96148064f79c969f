package sqlstore

import (
	"context"
	"time"
)

// SearchIndex counts the rows of the search index and says whether its
// triggers are on, for tests.
func SearchIndex(ctx context.Context, s *Store) (rows int64, triggersOn bool, err error) {
	if err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM package_grams").Scan(&rows); err != nil {
		return 0, false, err
	}
	if s.dialect.name() == "postgres" {
		return rows, true, nil // SET LOCAL ends with its transaction
	}
	var deferred int
	err = s.read.QueryRowContext(ctx, "SELECT deferred FROM search_index_state").Scan(&deferred)
	return rows, deferred == 0, err
}

// WrongSearchTexts counts the packages whose row in the searched texts of
// the GIN index of rare words (PostgreSQL) is missing or differs from
// their folded "owner/slug", name and description, and the rows of
// packages that are gone; 0 on SQLite, which has no such index.
func WrongSearchTexts(ctx context.Context, s *Store) (int64, error) {
	if s.dialect.name() != "postgres" {
		return 0, nil
	}
	var wrong int64
	err := s.read.QueryRowContext(ctx, `SELECT
  (SELECT count(*) FROM packages p JOIN accounts a ON a.id = p.owner_id
   LEFT JOIN package_texts t ON t.package_id = p.id
   WHERE t.text IS DISTINCT FROM lower(a.username || '/' || p.pack_slug || chr(10) || p.name || chr(10) || p.description))
+ (SELECT count(*) FROM package_texts t WHERE NOT EXISTS (SELECT 1 FROM packages p WHERE p.id = t.package_id))`).Scan(&wrong)
	return wrong, err
}

// SetSearchBudget sets how many postings one page of a search examines,
// until the test ends.
func SetSearchBudget(t interface{ Cleanup(func()) }, n int) {
	old := searchBudget
	searchBudget = n
	t.Cleanup(func() { searchBudget = old })
}

// OnSearchWalk calls f with the postings (at most) and batches of every
// walk of the search index, until the benchmark ends.
func OnSearchWalk(b interface{ Cleanup(func()) }, f func(postings, batches int)) {
	searchWalked = f
	b.Cleanup(func() { searchWalked = nil })
}

// SetSearchReads sets how many packages one page of a search reads, until
// the test ends.
func SetSearchReads(t interface{ Cleanup(func()) }, n int) {
	old := searchReads
	searchReads = n
	t.Cleanup(func() { searchReads = old })
}

// SetSearchRareMax sets how rare a search's rarest trigram must be for the
// walk to ask the GIN index of rare words (PostgreSQL; 0: never), until
// the test ends.
func SetSearchRareMax(t interface{ Cleanup(func()) }, n int) {
	old := searchRareMax
	searchRareMax = n
	t.Cleanup(func() { searchRareMax = old })
}

// SetSearchMergeCap sets how many postings, as a multiple of the batch's
// size, a merged trigram may have in a batch's window (SQLite; 0: never
// merge), until the test ends.
func SetSearchMergeCap(t interface{ Cleanup(func()) }, n int) {
	old := searchMergeCap
	searchMergeCap = n
	t.Cleanup(func() { searchMergeCap = old })
}

// OnSearchMerge calls f with the number of trigrams merged with the
// driving one in every merged batch of a walk, until the test ends.
func OnSearchMerge(t interface{ Cleanup(func()) }, f func(arms int)) {
	searchMerged = f
	t.Cleanup(func() { searchMerged = nil })
}

// OnGramProbes calls f with how many trigrams every search reads the probes
// of (rarestGrams; 0 when every estimate was kept), until the test ends.
func OnGramProbes(t interface{ Cleanup(func()) }, f func(probed int)) {
	gramProbed = f
	t.Cleanup(func() { gramProbed = nil })
}

// SetGramStatsTTL sets how long a trigram's estimate is kept (0: never),
// until the test ends.
func SetGramStatsTTL(t interface{ Cleanup(func()) }, d time.Duration) {
	old := gramStatsTTL
	gramStatsTTL = d
	t.Cleanup(func() { gramStatsTTL = old })
}
