package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pact-registry/pact/pkg/packfmt"
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

// searchTerms is a query cut into what the statement needs.
type searchTerms struct {
	// words are the query's words, each a phrase of the index's tokens
	// ("pg-saver" is the phrase pg saver); the last one matches as a
	// prefix.
	words [][]string
	// owner is, for a one-word query "owner/slug", the owner; key is the
	// slug an exact match has ("" for none).
	owner, key string
}

func parseSearch(query string) searchTerms {
	var t searchTerms
	text := query
	fields := strings.Fields(query)
	if len(fields) == 1 {
		if owner, rest, ok := strings.Cut(fields[0], "/"); ok {
			if o := packfmt.Slug(owner); o != "" && o == strings.ToLower(owner) {
				t.owner, text = o, rest
			}
		}
	}
	fields = strings.Fields(text)
	for i, field := range fields {
		tokens := packfmt.SearchWords(field)
		// A word said twice is asked once (the last word stays, as the
		// prefix).
		again := slices.ContainsFunc(fields[i+1:], func(f string) bool { return slices.Equal(packfmt.SearchWords(f), tokens) })
		if len(tokens) > 0 && !again {
			t.words = append(t.words, tokens)
		}
	}
	t.key = packfmt.Slug(text)
	return t
}

// tsQuery is the words as a PostgreSQL tsquery: tokens of a word joined by
// <-> (a phrase), words by &, the last token a prefix (:*) if prefix; for an owner,
// its name restricted to the owner's weight (B, migration 0017).
func (t searchTerms) tsQuery(owner string, prefix bool) string {
	var parts []string
	if owner != "" {
		parts = append(parts, "("+strings.Join(packfmt.SearchWords(owner), ":B <-> ")+":B)")
	}
	for i, w := range t.words {
		phrase := strings.Join(w, " <-> ")
		if i == len(t.words)-1 && prefix {
			phrase += ":*"
		}
		parts = append(parts, "("+phrase+")")
	}
	return strings.Join(parts, " & ")
}

// ftsQueries are a search's FTS5 expressions on SQLite: match selects the
// rows (every word, the owner), scored is what bm25() weighs: the words
// whose every token is in at most Store.scoreBound packages (all of them,
// usually). FTS5's bm25() counts every row holding each phrase it weighs
// (its IDF), and a word in half the packages would cost that count on
// every search; bm25 gives such a word almost no weight anyway (none
// above half the rows). An owner's name counts as a word.
type ftsQueries struct{ match, scored string }

// ftsQueries probes how many packages hold each token of the query, up to
// the bound, and builds the expressions. The last word matches as a
// prefix, but as typed when that word is itself in more than the bound's
// packages: FTS5 would merge the postings of every word it begins (a
// prefix longer than the three letters of the index's prefixes), and with
// so many matches the window is full of the word's own.
func (s *Store) ftsQueries(ctx context.Context, t searchTerms, owner string) (ftsQueries, error) {
	common := func(match string) (bool, error) {
		n, err := s.countUpTo(ctx, `SELECT count(*) FROM (SELECT 1 FROM package_texts WHERE package_texts MATCH ? LIMIT ?)`, match)
		return n > s.bound(), err
	}
	// anyCommon says whether a token of a phrase (in column, if given) is
	// in more packages than the bound.
	anyCommon := func(column string, tokens []string) (bool, error) {
		for _, token := range tokens {
			if c, err := common(column + `"` + token + `"`); c || err != nil {
				return c, err
			}
		}
		return false, nil
	}
	// lastToken says how the query's last token matches (as a prefix, or as
	// typed) and whether its word is to be left unscored, known says so
	// already from the word's other tokens.
	lastToken := func(token string, known bool) (prefix, frequent bool, err error) {
		if utf8.RuneCountInString(token) <= 3 { // the index holds its prefixes
			if known {
				return true, true, nil
			}
			frequent, err = common(`"` + token + `"*`)
			return true, frequent, err
		}
		// Its first three letters bound cheaply how many rows the words it
		// begins are in.
		if wide, err := common(`"` + string([]rune(token)[:3]) + `"*`); err != nil || !wide {
			return true, known, err
		}
		if typed, err := common(`"` + token + `"`); err != nil || typed {
			return false, true, err
		}
		if known {
			return true, true, nil
		}
		frequent, err = common(`"` + token + `"*`)
		return true, frequent, err
	}

	var match, scored []string
	if owner != "" {
		tokens := packfmt.SearchWords(owner)
		phrase := `owner : "` + strings.Join(tokens, " ") + `"`
		frequent, err := anyCommon("owner : ", tokens)
		if err != nil {
			return ftsQueries{}, err
		}
		match = append(match, phrase)
		if !frequent {
			scored = append(scored, phrase)
		}
	}
	for i, w := range t.words {
		phrase := `"` + strings.Join(w, " ") + `"`
		var frequent bool
		var err error
		if i < len(t.words)-1 {
			frequent, err = anyCommon("", w)
		} else if frequent, err = anyCommon("", w[:len(w)-1]); err == nil {
			var prefix bool
			if prefix, frequent, err = lastToken(w[len(w)-1], frequent); prefix {
				phrase += "*"
			}
		}
		if err != nil {
			return ftsQueries{}, err
		}
		match = append(match, phrase)
		if !frequent {
			scored = append(scored, phrase)
		}
	}
	return ftsQueries{match: strings.Join(match, " "), scored: strings.Join(scored, " ")}, nil
}

// bound is how many packages a word may be in and still be scored (SQLite)
// or matched as a prefix (the last word, both engines).
func (s *Store) bound() int {
	if s.scoreBound > 0 {
		return s.scoreBound
	}
	return defaultScoreBound
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

// ranked is the statement of one rank's window on table: the newest
// window rows matching q.match, each with bm25() of q.scored (weights are
// the columns'), or 0 when no word is scored. When some are not (an owner,
// a common word), the scores are those of q.scored's matches, kept in a
// CTE: at most the bound's rows.
func (q ftsQueries) ranked(table, weights string, window int) rankStatement {
	switch q.scored {
	case "":
		return rankStatement{sql: `SELECT -rowid AS id, 0.0 AS score FROM ` + table + ` WHERE ` + table + ` MATCH ? ORDER BY rowid LIMIT ?`,
			args: []any{q.match, window}}
	case q.match:
		return rankStatement{sql: `SELECT -rowid AS id, bm25(` + table + `, ` + weights + `) AS score
FROM ` + table + ` WHERE ` + table + ` MATCH ? ORDER BY rowid LIMIT ?`, args: []any{q.match, window}}
	}
	return rankStatement{
		scores: table + `_scored AS MATERIALIZED (SELECT -rowid AS id, bm25(` + table + `, ` + weights + `) AS score
FROM ` + table + ` WHERE ` + table + ` MATCH ?)`,
		scoresArgs: []any{q.scored},
		sql: `SELECT w.id, coalesce(s.score, 0.0) AS score
FROM (SELECT -rowid AS id FROM ` + table + ` WHERE ` + table + ` MATCH ? ORDER BY rowid LIMIT ?) w
LEFT JOIN ` + table + `_scored s ON s.id = w.id`,
		args: []any{q.match, window},
	}
}

// searchPackages returns a page of a search in rank order, starting after
// (f.Rank, f.Score, f.Before).
func (s *Store) searchPackages(ctx context.Context, f registry.PackageFilter) ([]registry.Package, error) {
	if n := len(strings.Fields(f.Query)); n > registry.MaxSearchWords {
		return nil, invalid("a search may have at most %d words", registry.MaxSearchWords)
	}
	t := parseSearch(f.Query)
	owner := t.owner
	if owner == "" {
		owner = strings.ToLower(f.Owner)
	} else if f.Owner != "" && !strings.EqualFold(f.Owner, owner) {
		return nil, nil
	}
	if len(t.words) == 0 && owner == "" {
		return nil, nil
	}
	window := s.searchWindow
	if window <= 0 {
		window = defaultSearchWindow
	}

	var names, texts rankStatement
	if s.dialect.name() == "postgres" {
		// The last word as typed when its last token is itself in more
		// packages than the bound: a prefix is GIN's partial match, which collects the
		// postings of every word it begins before anything else (50 ms
		// for a word in every one of a million packages, even beside a
		// word no package has); the probe stops at the bound, on the path
		// the planner picks for the word.
		prefix := true
		if len(t.words) > 0 {
			last := t.words[len(t.words)-1]
			n, err := s.countUpTo(ctx, `SELECT count(*) FROM (SELECT 1 FROM package_search WHERE texts @@ to_tsquery('pact_search', ?) LIMIT ?) c`, last[len(last)-1])
			if err != nil {
				return nil, err
			}
			prefix = n <= s.bound()
		}
		match := t.tsQuery(owner, prefix)
		names.sql = `SELECT s.package_id AS id, -CAST(ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', s.names, q.q, 1) AS DOUBLE PRECISION) AS score
FROM package_search s, to_tsquery('pact_search', ?) q WHERE s.names @@ q.q ORDER BY s.package_id DESC LIMIT ?`
		texts.sql = `SELECT s.package_id AS id, -CAST(ts_rank_cd('{0.1, 0.2, 0.4, 1.0}', s.texts, q.q, 1) AS DOUBLE PRECISION) AS score
FROM package_search s, to_tsquery('pact_search', ?) q WHERE s.texts @@ q.q ORDER BY s.package_id DESC LIMIT ?`
		names.args = []any{match, window}
		texts.args = names.args
	} else {
		q, err := s.ftsQueries(ctx, t, owner)
		if err != nil {
			return nil, err
		}
		names = q.ranked("package_names", "2.0, 10.0", window)
		texts = q.ranked("package_texts", "2.0, 10.0, 1.0", window)
	}

	// The exact match: by slug, through packages_slug_latest.
	exact := `SELECT p.id FROM packages p WHERE p.pack_slug` + s.slugBytewise() + ` = ?`
	exactArgs := []any{t.key}
	if owner != "" {
		exact += ` AND p.owner_id = (SELECT id FROM accounts WHERE lower(username) = ?)`
		exactArgs = append(exactArgs, owner)
	}
	if t.key == "" || len(t.words) == 0 && t.owner == "" {
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
	key := parseSearch(query).key
	if len(key) < 3 || limit <= 0 {
		return nil, nil
	}
	if s.dialect.name() == "postgres" {
		// Strict word similarity: "postgers" is near "postgres-backup",
		// whose word "postgres" it misspells; "bakup" nearer "backup" than
		// "bakery". Distance is 1 - similarity. `<<%` keeps only slugs at
		// least suggestFloor similar (the search pool's
		// pg_trgm.strict_word_similarity_threshold), which bounds the
		// index's walk when nothing is near. The walk stops at four
		// times the slugs asked (room for a slug several owners have).
		q := `SELECT slug FROM (
  SELECT p.pack_slug AS slug, ? <<<-> p.pack_slug AS d, p.pack_slug <-> ? AS whole
  FROM packages p WHERE p.latest_version_id > 0 AND ? <<% p.pack_slug
  ORDER BY ? <<<-> p.pack_slug LIMIT ?) n
WHERE slug <> ?
GROUP BY slug ORDER BY min(d), min(whole), slug LIMIT ?`
		return s.suggestWithinBudget(ctx, q, []any{key, key, key, key, 4 * limit, key, limit}, limit)
	}
	// SQLite: the newest suggestWindow listed slugs that share a trigram
	// with the query (padded with a space at both ends, as the index holds
	// the slugs), through the FTS5 trigram index, ranked here as
	// PostgreSQL ranks them (trigramMatch).
	var grams []string
	for padded, i := " "+key+" ", 0; i+3 <= len(padded); i++ {
		if g := `"` + padded[i:i+3] + `"`; !slices.Contains(grams, g) {
			grams = append(grams, g)
		}
	}
	candidates, err := queryListOn(ctx, s, s.searchPool(), "search suggestions", suggestWindow, func(row scanner) (*string, error) {
		var slug string
		return &slug, row.Scan(&slug)
	}, `SELECT DISTINCT p.pack_slug
FROM (SELECT -rowid AS id FROM package_slugs WHERE package_slugs MATCH ? ORDER BY rowid LIMIT ?) h
JOIN packages p ON p.id = h.id
WHERE p.latest_version_id > 0 AND p.pack_slug <> ?`, strings.Join(grams, " OR "), suggestWindow, key)
	if err != nil {
		return nil, err
	}
	type near struct {
		slug        string
		word, whole float64
	}
	m := newTrigramMatch(key)
	var nearest []near
	for _, slug := range candidates {
		if word, whole := m.similarity(slug); word >= suggestFloor {
			nearest = append(nearest, near{slug, word, whole})
		}
	}
	slices.SortFunc(nearest, func(a, b near) int {
		if c := cmp.Compare(b.word, a.word); c != 0 {
			return c
		}
		if c := cmp.Compare(b.whole, a.whole); c != 0 {
			return c
		}
		return strings.Compare(a.slug, b.slug)
	})
	var slugs []string
	for _, n := range nearest[:min(limit, len(nearest))] {
		slugs = append(slugs, n.slug)
	}
	return slugs, nil
}

// suggestWithinBudget runs PostgreSQL's suggestion statement with at most
// Store.suggestBudget of the server's time (statement_timeout, in a
// read-only transaction of its own). Suggestions are an extra: past the
// budget the answer has none rather than making the search wait. Among a
// million slugs that differ only in digits, the GiST walk of a query close
// to all of them took 30-250 ms (docs/design.md, "Search").
func (s *Store) suggestWithinBudget(ctx context.Context, q string, args []any, limit int) ([]string, error) {
	budget := s.suggestBudget
	if budget <= 0 {
		budget = defaultSuggestBudget
	}
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	tx, err := s.searchPool().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, s.fault("search suggestions", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", max(1, budget.Milliseconds()))); err != nil {
		return nil, s.fault("search suggestions", err)
	}
	var slugs []string
	rows, err := tx.QueryContext(ctx, s.q(q), args...)
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

// searchPool is the pool a search's statements run on: on PostgreSQL one
// whose sessions plan each statement for its words (openPostgres), else
// the read pool.
func (s *Store) searchPool() *sql.DB {
	if s.search != nil {
		return s.search
	}
	return s.read
}

// slugBytewise makes a comparison of slugs byte-wise whatever the database's
// collation, as packages_slug_latest is.
func (s *Store) slugBytewise() string {
	if s.dialect.name() == "postgres" {
		return ` COLLATE "C"`
	}
	return ""
}

// deferSearchIndex turns the search index's triggers off for the rest of
// tx, for a bulk load that calls indexPackages before it commits: one
// pass instead of a trigger per package.
func (s *Store) deferSearchIndex(ctx context.Context, tx *sql.Tx) error {
	query := `UPDATE search_index_state SET deferred = 1`
	if s.dialect.name() == "postgres" {
		query = `SET LOCAL pact.search_index_deferred = 'on'`
	}
	_, err := tx.ExecContext(ctx, query)
	return err
}

// indexPackages indexes the packages with ids from fromID on, as the
// triggers of migrations 0017 (PostgreSQL) and 0027 (SQLite: keyed by the id
// negated) do, and turns the triggers back on.
func (s *Store) indexPackages(ctx context.Context, tx *sql.Tx, fromID int64) error {
	queries := []string{
		`INSERT INTO package_names (rowid, owner, name)
SELECT -p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name)
FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ? ORDER BY p.id DESC`,
		`INSERT INTO package_texts (rowid, owner, name, description)
SELECT -p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name), pact_fold(p.description)
FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ? ORDER BY p.id DESC`,
		`INSERT INTO package_slugs (rowid, slug) SELECT -id, ' ' || pack_slug || ' ' FROM packages WHERE id >= ? ORDER BY id DESC`,
	}
	on := `UPDATE search_index_state SET deferred = 0`
	if s.dialect.name() == "postgres" {
		queries = []string{`INSERT INTO package_search (package_id, names, texts)
SELECT v.id, v.names, v.names || setweight(package_search_vector(v.description), 'C')
FROM (SELECT p.id, p.description,
             setweight(package_search_vector(a.username), 'B') || setweight(package_search_vector(p.pack_slug || ' ' || p.name), 'A') AS names
      FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ?) v
ORDER BY v.id
ON CONFLICT (package_id) DO UPDATE SET names = EXCLUDED.names, texts = EXCLUDED.texts`}
		on = `SET LOCAL pact.search_index_deferred = 'off'`
	}
	for _, q := range queries {
		if _, err := tx.ExecContext(ctx, s.q(q), fromID); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, on)
	return err
}
