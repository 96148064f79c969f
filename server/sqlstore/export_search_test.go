package sqlstore

import "context"

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
