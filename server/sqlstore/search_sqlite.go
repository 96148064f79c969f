package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pact-registry/pact/pkg/packfmt"
	"github.com/pact-registry/pact/server/registry"
)

// sqliteSearch is search on SQLite: FTS5 tables (migrations 0017, 0027:
// keyed by the package id negated), ranked by bm25; suggestions by the
// FTS5 trigram index, ranked as pg_trgm ranks them (trigramMatch).
type sqliteSearch struct{}

func (sqliteSearch) windows(ctx context.Context, s *Store, t registry.SearchTerms, owner string, window int) (names, texts rankStatement, err error) {
	q, err := s.ftsQueries(ctx, t, owner)
	if err != nil {
		return names, texts, err
	}
	return q.ranked("package_names", "2.0, 10.0", window), q.ranked("package_texts", "2.0, 10.0, 1.0", window), nil
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
func (s *Store) ftsQueries(ctx context.Context, t registry.SearchTerms, owner string) (ftsQueries, error) {
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
	for i, w := range t.Words {
		phrase := `"` + strings.Join(w, " ") + `"`
		var frequent bool
		var err error
		if i < len(t.Words)-1 {
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

// suggest: the newest suggestWindow listed slugs that share a trigram with
// the query (padded with a space at both ends, as the index holds the
// slugs), through the FTS5 trigram index, ranked here as PostgreSQL ranks
// them (trigramMatch).
func (sqliteSearch) suggest(ctx context.Context, s *Store, key string, limit int) ([]string, error) {
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

func (sqliteSearch) slugBytewise() string { return "" }

func (sqliteSearch) deferIndex(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE search_index_state SET deferred = 1`)
	return err
}

// index does what the triggers of migration 0027 do.
func (sqliteSearch) index(ctx context.Context, s *Store, tx *sql.Tx, fromID int64) error {
	for _, q := range []string{
		`INSERT INTO package_names (rowid, owner, name)
SELECT -p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name)
FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ? ORDER BY p.id DESC`,
		`INSERT INTO package_texts (rowid, owner, name, description)
SELECT -p.id, pact_fold(a.username), pact_fold(p.pack_slug || ' ' || p.name), pact_fold(p.description)
FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ? ORDER BY p.id DESC`,
		`INSERT INTO package_slugs (rowid, slug) SELECT -id, ' ' || pack_slug || ' ' FROM packages WHERE id >= ? ORDER BY id DESC`,
	} {
		if _, err := tx.ExecContext(ctx, s.q(q), fromID); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE search_index_state SET deferred = 0`)
	return err
}
