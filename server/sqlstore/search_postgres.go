package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/pact-registry/pact/pkg/packfmt"
	"github.com/pact-registry/pact/server/registry"
)

// postgresSearch is search on PostgreSQL: a table of tsvectors with GIN
// indexes (migration 0017), ranked by ts_rank_cd; suggestions by pg_trgm.
type postgresSearch struct{}

// windows: the last word matches as typed when its last token is itself in
// more packages than the bound: a prefix is GIN's partial match, which
// collects the postings of every word it begins before anything else (50
// ms for a word in every one of a million packages, even beside a word no
// package has); the probe stops at the bound, on the path the planner
// picks for the word.
func (postgresSearch) windows(ctx context.Context, s *Store, t registry.SearchTerms, owner string, window int) (names, texts rankStatement, err error) {
	prefix := true
	if len(t.Words) > 0 {
		last := t.Words[len(t.Words)-1]
		n, err := s.countUpTo(ctx, `SELECT count(*) FROM (SELECT 1 FROM package_search WHERE texts @@ to_tsquery('pact_search', ?) LIMIT ?) c`, last[len(last)-1])
		if err != nil {
			return names, texts, err
		}
		prefix = n <= s.bound()
	}
	match := tsQuery(t, owner, prefix)
	names.sql = `SELECT s.package_id AS id, -CAST(ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', s.names, q.q, 1) AS DOUBLE PRECISION) AS score
FROM package_search s, to_tsquery('pact_search', ?) q WHERE s.names @@ q.q ORDER BY s.package_id DESC LIMIT ?`
	texts.sql = `SELECT s.package_id AS id, -CAST(ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', s.texts, q.q, 1) AS DOUBLE PRECISION) AS score
FROM package_search s, to_tsquery('pact_search', ?) q WHERE s.texts @@ q.q ORDER BY s.package_id DESC LIMIT ?`
	names.args = []any{match, window}
	texts.args = names.args
	return names, texts, nil
}

// tsQuery is the words as a PostgreSQL tsquery: tokens of a word joined by
// <-> (a phrase), words by &, the last token a prefix (:*) if prefix; for an owner,
// its name restricted to the owner's weight (B, migration 0017).
func tsQuery(t registry.SearchTerms, owner string, prefix bool) string {
	var parts []string
	if owner != "" {
		parts = append(parts, "("+strings.Join(packfmt.SearchWords(owner), ":B <-> ")+":B)")
	}
	for i, w := range t.Words {
		phrase := strings.Join(w, " <-> ")
		if i == len(t.Words)-1 && prefix {
			phrase += ":*"
		}
		parts = append(parts, "("+phrase+")")
	}
	return strings.Join(parts, " & ")
}

// suggest: strict word similarity: "postgers" is near "postgres-backup",
// whose word "postgres" it misspells; "bakup" nearer "backup" than
// "bakery". Distance is 1 - similarity. `<<%` keeps only slugs at least
// suggestFloor similar (the suggestion pool's
// pg_trgm.strict_word_similarity_threshold), which bounds the index's walk
// when nothing is near. The walk stops at four times the slugs asked (room
// for a slug several owners have).
func (postgresSearch) suggest(ctx context.Context, s *Store, key string, limit int) ([]string, error) {
	q := `SELECT slug FROM (
  SELECT p.pack_slug AS slug, ? <<<-> p.pack_slug AS d, p.pack_slug <-> ? AS whole
  FROM packages p WHERE p.latest_version_id > 0 AND ? <<% p.pack_slug
  ORDER BY ? <<<-> p.pack_slug LIMIT ?) n
WHERE slug <> ?
GROUP BY slug ORDER BY min(d), min(whole), slug LIMIT ?`
	return s.suggestWithinBudget(ctx, q, []any{key, key, key, key, 4 * limit, key, limit})
}

// suggestWithinBudget runs PostgreSQL's suggestion statement on the
// suggestions' own pool, whose sessions' statement_timeout is the budget
// (openPostgres, Options.SuggestBudget). Suggestions are an extra: past the
// budget the answer has none rather than making the search wait. Among a
// million slugs that differ only in digits, the GiST walk of a query close
// to all of them took 30-250 ms (docs/design.md, "Search").
//
// The budget never shares a session with other statements: PostgreSQL can
// deliver a statement timeout that fires as one statement ends to the
// session's next statement. With the budget set by SET LOCAL in a
// transaction of the search pool's, a search after it on the same
// connection now and then failed with "canceling statement due to
// statement timeout" (a 503; 1 in 66,000 rounds of a 1 ms budget under
// load). On a pool of their own, such a timeout only costs another
// suggestion its answer.
func (s *Store) suggestWithinBudget(ctx context.Context, q string, args []any) ([]string, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var slugs []string
	rows, err := s.suggest.QueryContext(ctx, s.q(q), args...)
	if err == nil {
		for rows.Next() {
			var slug string
			if err = rows.Scan(&slug); err != nil {
				break
			}
			slugs = append(slugs, slug)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	switch {
	case err != nil && pgCode(err) == "57014" && ctx.Err() == nil: // past the budget
		return nil, nil
	case err != nil:
		return nil, s.fault("search suggestions", err)
	}
	return slugs, nil
}

func (postgresSearch) slugBytewise() string { return ` COLLATE "C"` }

func (postgresSearch) deferIndex(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SET LOCAL pact.search_index_deferred = 'on'`)
	return err
}

// index does what the triggers of migration 0017 do.
func (postgresSearch) index(ctx context.Context, s *Store, tx *sql.Tx, fromID int64) error {
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO package_search (package_id, names, texts)
SELECT v.id, v.names, v.names || setweight(package_search_vector(v.description), 'C')
FROM (SELECT p.id, p.description,
             setweight(package_search_vector(a.username), 'B') || setweight(package_search_vector(p.pack_slug || ' ' || p.name), 'A') AS names
      FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ?) v
ORDER BY v.id
ON CONFLICT (package_id) DO UPDATE SET names = EXCLUDED.names, texts = EXCLUDED.texts`), fromID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `SET LOCAL pact.search_index_deferred = 'off'`)
	return err
}
