package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// A search (docs/protocol.md, "Search"; docs/design.md, "Search") runs on
// each engine's own full-text index, kept by triggers (migrations 0017,
// 0027 on SQLite):
// FTS5 tables on SQLite, ranked by bm25; a table of tsvectors with GIN
// indexes on PostgreSQL, ranked by ts_rank_cd. One statement answers a
// page, in three ranks:
//
//   - exact: the slug is the query as a slug (or, for "owner/slug", that
//     owner's package of that slug), through packages_slug_latest;
//   - name: every word is in the owner, the slug or the name;
//   - other: every word is somewhere, the description included.
//
// The last word matches as a prefix. Within the name and other ranks the
// engine's relevance decides, then the newest latest version. Each rank
// scores at most Store.searchWindow matches: the newest of its index (by
// package id), so that a word in half the packages costs what a rare one
// does.

// defaultSearchWindow is how many matches of the name rank, and of the
// other, one search scores (docs/design.md, "Search").
const defaultSearchWindow = 250

// defaultScoreBound is how many packages a word may be in and still be
// scored on SQLite (ftsQueries), and the last word in and still match as a
// prefix on both engines (docs/design.md, "Search").
const defaultScoreBound = 2000

// suggestWindow is how many slugs sharing a trigram with the query SQLite
// ranks for suggestions: the newest so many.
const suggestWindow = 500

// defaultSuggestBudget is how long PostgreSQL may look for a search's
// suggestions (suggestWithinBudget).
const defaultSuggestBudget = 10 * time.Millisecond

// suggestFloor is the least strict word similarity of a suggestion (a
// distance under 0.75), on both engines.
const suggestFloor = 0.25

// bound is how many packages a word may be in and still be scored (SQLite)
// or matched as a prefix (the last word, both engines).
func (s *Store) bound() int {
	return s.scoreBound
}

// countUpTo runs a probe of a search (query, with the match and the limit
// as arguments) that counts matches up to the bound and one more.
func (s *Store) countUpTo(ctx context.Context, query, match string) (int, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var n int
	if err := s.searchPool().QueryRowContext(ctx, s.q(query), match, s.bound()+1).Scan(&n); err != nil {
		return 0, s.fault("search", err)
	}
	return n, nil
}

// rankStatement is the statement of one rank's window (names or texts)
// and its arguments; on SQLite, with words not scored, also the CTE that
// scores the others (scores, named by the table) and its arguments.
type rankStatement struct {
	sql, scores      string
	args, scoresArgs []any
}

// searchPackages returns a page of a search in rank order, starting after
// (f.Rank, f.Score, f.Before).
func (s *Store) searchPackages(ctx context.Context, f registry.PackageFilter) ([]registry.Package, error) {
	if n := len(strings.Fields(f.Query)); n > registry.MaxSearchWords {
		return nil, invalid("a search may have at most %d words", registry.MaxSearchWords)
	}
	t := registry.ParseSearch(f.Query)
	owner := t.Owner
	if owner == "" {
		owner = strings.ToLower(f.Owner)
	} else if f.Owner != "" && !strings.EqualFold(f.Owner, owner) {
		return nil, nil
	}
	if len(t.Words) == 0 && owner == "" {
		return nil, nil
	}
	window := s.searchWindow

	names, texts, err := s.dialect.search().windows(ctx, s, t, owner, window)
	if err != nil {
		return nil, err
	}

	// The exact match: by slug, through packages_slug_latest.
	exact := `SELECT p.id FROM packages p WHERE p.pack_slug` + s.dialect.search().slugBytewise() + ` = ?`
	exactArgs := []any{t.Key}
	if owner != "" {
		exact += ` AND p.owner_id = (SELECT id FROM accounts WHERE lower(username) = ?)`
		exactArgs = append(exactArgs, owner)
	}
	if t.Key == "" || len(t.Words) == 0 && t.Owner == "" {
		exact += ` AND 1 = 0`
	}

	where := []string{`p.latest_version_id > 0`}
	var whereArgs []any
	if owner != "" {
		where = append(where, `p.owner_id = (SELECT id FROM accounts WHERE lower(username) = ?)`)
		whereArgs = append(whereArgs, owner)
	}
	if f.Scheme != "" {
		where = append(where, `p.scheme = ?`)
		whereArgs = append(whereArgs, f.Scheme)
	}
	if f.Before > 0 {
		// After the cursor's package in (rank, score, newest latest
		// version) order.
		where = append(where, `(h.tier > ? OR (h.tier = ? AND (h.score > ? OR (h.score = ? AND p.latest_version_id < ?))))`)
		whereArgs = append(whereArgs, f.Rank, f.Rank, f.Score, f.Score, f.Before)
	}
	whereArgs = append(whereArgs, f.Limit)

	// A page that the exact and name matches fill needs no look at the
	// descriptions: it is answered without the other rank's window, which
	// costs what the names' does (an owner's name: the same packages).
	if f.Before == 0 || f.Rank < registry.SearchOther {
		none := rankStatement{sql: `SELECT 0 AS id, 0.0 AS score WHERE 1 = 0`}
		found, err := s.searchPage(ctx, f, names, none, exact, exactArgs, where, whereArgs)
		if err != nil || len(found) == f.Limit {
			return found, err
		}
	}
	return s.searchPage(ctx, f, names, texts, exact, exactArgs, where, whereArgs)
}

// searchPage runs the statement of a search's page from its parts: the
// windows of the names and other ranks, the exact match, and the
// conditions on the packages.
func (s *Store) searchPage(ctx context.Context, f registry.PackageFilter, names, texts rankStatement, exact string, exactArgs []any, where []string, whereArgs []any) ([]registry.Package, error) {
	var ctes []string
	var args []any
	for _, r := range []rankStatement{names, texts} {
		if r.scores != "" {
			ctes = append(ctes, r.scores)
			args = append(args, r.scoresArgs...)
		}
	}
	ctes = append(ctes, `names AS (`+names.sql+`)`, `texts AS (`+texts.sql+`)`)
	args = append(append(append(append(args, names.args...), texts.args...), exactArgs...), whereArgs...)
	// CROSS JOIN: SQLite reads the hits first and each package by its key
	// (its planner, which cannot see through -rowid, walked an owner's
	// packages and ran the hits for each: 200 ms at a million packages).
	query := `WITH ` + strings.Join(ctes, `,
`) + `,
exact AS (` + exact + `),
hits AS (
  SELECT id, 0 AS tier, CAST(0 AS DOUBLE PRECISION) AS score FROM exact
  UNION ALL
  SELECT id, 1, score FROM names WHERE id NOT IN (SELECT id FROM exact)
  UNION ALL
  SELECT id, 2, score FROM texts WHERE id NOT IN (SELECT id FROM names) AND id NOT IN (SELECT id FROM exact)
)
SELECT ` + packageColumns + `, h.tier, h.score FROM hits h CROSS JOIN packages p JOIN accounts a ON a.id = p.owner_id
WHERE p.id = h.id AND ` + strings.Join(where, ` AND `) + `
ORDER BY h.tier, h.score, p.latest_version_id DESC
LIMIT ?`
	return queryListOn(ctx, s, s.searchPool(), "search", f.Limit, func(row scanner) (*registry.Package, error) {
		var rank int
		var score float64
		p, err := scanPackageAnd(row, &rank, &score)
		if err != nil {
			return nil, err
		}
		p.SearchRank, p.SearchScore = rank, score
		return p, nil
	}, query, args...)
}

// SuggestSlugs returns up to limit slugs of listed packages closest to
// query, for a search that found little (docs/protocol.md, "Search"). On
// PostgreSQL they are pg_trgm's nearest neighbours by strict word
// similarity (through the GiST index of migration 0017), then by
// similarity of the whole slug. On SQLite the FTS5 trigram index finds the
// newest suggestWindow slugs that share a trigram with the query, ranked
// by the same two measures (trigramMatch).
func (s *Store) SuggestSlugs(ctx context.Context, query string, limit int) ([]string, error) {
	key := registry.ParseSearch(query).Key
	if len(key) < 3 || limit <= 0 {
		return nil, nil
	}
	return s.dialect.search().suggest(ctx, s, key, limit)
}

// searchPool is the pool a search's statements run on: on PostgreSQL one
// whose sessions plan each statement for its words (openPostgres), else
// the read pool.
func (s *Store) searchPool() *sql.DB {
	if s.search != nil {
		return s.search
	}
	return s.read
}

// searchEngine is what a search does differently on each database: each
// engine's own full-text index (search_sqlite.go, search_postgres.go). The
// query's grammar is the domain's (registry.ParseSearch); the page's
// statement around the windows is shared (searchPage).
type searchEngine interface {
	// windows answers the statements of the name and other ranks'
	// windows of a search for t, within owner ("" for any): at most
	// window matches each.
	windows(ctx context.Context, s *Store, t registry.SearchTerms, owner string, window int) (names, texts rankStatement, err error)
	// suggest answers up to limit listed slugs nearest key.
	suggest(ctx context.Context, s *Store, key string, limit int) ([]string, error)
	// slugBytewise makes a comparison of slugs byte-wise whatever the
	// database's collation, as packages_slug_latest is.
	slugBytewise() string
	// deferIndex turns the search index's triggers off for the rest of
	// tx, for a bulk load that calls index before it commits: one pass
	// instead of a trigger per package.
	deferIndex(ctx context.Context, tx *sql.Tx) error
	// index indexes the packages with ids from fromID on, as the
	// triggers do, and turns the triggers back on.
	index(ctx context.Context, s *Store, tx *sql.Tx, fromID int64) error
}
