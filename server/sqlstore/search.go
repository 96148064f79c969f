package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pact-registry/pact/server/registry"
)

// A search (docs/protocol.md, "Search") looks for three ranks, each in its
// own index order, so that every page costs about what the first does; on
// PostgreSQL the exact and prefix ranks are the two branches of one
// statement (docs/design.md, "Search"):
//
//   - exact: the slug is the query's words joined by '-' (or, for a query
//     "owner/slug", that package), through packages_slug_latest;
//   - prefix: the slug starts with them (with the owner, for "owner/slug"),
//     slugs in alphabetical order, through packages_slug_latest or the
//     (owner_id, pack_slug) key;
//   - other: every word occurs in "owner/slug", the name or the
//     description. The rarest of the words' trigrams (package_grams, kept
//     by triggers, see migrations 0006 and 0009, docs/design.md "Search")
//     drives a walk newest package first (walkGrams), bounded per page
//     (searchBudget); LIKE decides. A query whose words are all shorter
//     than a trigram matches an owner's name exactly instead.
const (
	// gramProbes bounds how many trigrams one search measures.
	gramProbes = 24
	// gramProbeCap is how many of a trigram's newest postings are read to
	// estimate how common it is (rarestGrams): enough to tell a trigram in
	// 0.5% of the packages from one in 2% (the estimate's error is about
	// an eighth), at a quarter of what 256 cost.
	gramProbeCap = 64
	// gramChecks is how many trigrams besides the driving one a posting
	// must have (index look-ups) before its package is read.
	gramChecks = 2
	// checkWidest is, on PostgreSQL, the share of the packages from which
	// a trigram is estimated too common to check (pickChecks): a look-up
	// per posting (about 1 µs) that at most a quarter of the postings
	// fail saves fewer candidate reads (about 4.7 µs each) than it costs.
	checkWidest = 0.75
	// sizedFirstShare is, on PostgreSQL, the share of the packages up to
	// which a driving trigram's walk starts with a batch sized by its
	// estimate (at most firstBatchMax) however many postings it has: only
	// a trigram in more of them is a common word's, whose first 32
	// postings likely fill the page. One with tens of thousands of
	// postings among a million packages ("000" for "owner-0000": an owner
	// in ten with the trigram) filled a page from 256 postings, where 32
	// took a second batch and its candidates, two more round trips.
	sizedFirstShare = 0.125
)

// slugKey is what a slug may be: the exact and prefix ranks only look
// for keys of this form.
var slugKey = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

// searchPlan is a query cut into what the three ranks need.
type searchPlan struct {
	words []string // folded as the index folds, each distinct
	// owner is set for a one-word query "owner/slug"; key is then the
	// slug part ("" for "owner/": all the owner's packages are prefix
	// matches).
	owner, key string
	keyed      bool // the exact and prefix ranks apply
}

func (s *Store) planSearch(ctx context.Context, query string) (*searchPlan, error) {
	folded, err := s.foldQuery(ctx, query)
	if err != nil {
		return nil, err
	}
	p := &searchPlan{}
	if n := len(strings.Fields(folded)); n > maxQueryWords {
		return nil, invalid("a search may have at most %d words", maxQueryWords)
	}
	seen := map[string]bool{}
	for _, w := range strings.Fields(folded) {
		if !seen[w] {
			seen[w] = true
			p.words = append(p.words, w)
		}
	}
	if owner, slug, ok := strings.Cut(folded, "/"); ok && len(p.words) == 1 {
		owner = strings.TrimSpace(owner)
		slug = strings.TrimSpace(slug)
		p.owner, p.key = owner, slug
		p.keyed = slugKey.MatchString(owner) && (slug == "" || slugKey.MatchString(slug))
	} else {
		p.key = strings.Join(strings.Fields(folded), "-")
		p.keyed = slugKey.MatchString(p.key)
	}
	return p, nil
}

// foldQuery folds query as the search index folds text (docs/design.md,
// "Search"): SQLite's pact_fold is strings.ToLower, so on SQLite always in
// Go; PostgreSQL's lower() follows the database's locale, so there a
// query is folded in Go only when it is pure ASCII and the database's
// lower() folds ASCII as Go does (asciiFoldsAsGo), and asked of the
// database otherwise.
func (s *Store) foldQuery(ctx context.Context, query string) (string, error) {
	if s.dialect.name() == "sqlite" {
		return strings.ToLower(query), nil
	}
	if isASCII(query) {
		same, err := s.asciiFoldsAsGo(ctx)
		if err != nil {
			return "", s.fault("search", err)
		}
		if same {
			return strings.ToLower(query), nil
		}
	}
	var folded string
	if err := s.read.QueryRowContext(ctx, s.q(`SELECT `+s.dialect.fold()+`(CAST(? AS TEXT))`), query).Scan(&folded); err != nil {
		return "", s.fault("search", err)
	}
	return folded, nil
}

// asciiLetters are what asciiFoldsAsGo has the database fold.
const asciiLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// asciiFoldsAsGo says whether the database's fold turns the ASCII letters
// into what strings.ToLower does (not so under a Turkish locale, where
// lower('I') is a dotless i). Asked once per store; an error is not
// remembered.
func (s *Store) asciiFoldsAsGo(ctx context.Context) (bool, error) {
	switch s.asciiFold.Load() {
	case asciiFoldSame:
		return true, nil
	case asciiFoldDiffers:
		return false, nil
	}
	var folded string
	if err := s.read.QueryRowContext(ctx, s.q(`SELECT `+s.dialect.fold()+`(CAST(? AS TEXT))`), asciiLetters).Scan(&folded); err != nil {
		return false, err
	}
	same := folded == strings.ToLower(asciiLetters)
	if same {
		s.asciiFold.Store(asciiFoldSame)
	} else {
		s.asciiFold.Store(asciiFoldDiffers)
	}
	return same, nil
}

// The states of Store.asciiFold.
const (
	asciiFoldUnknown = iota
	asciiFoldSame
	asciiFoldDiffers
)

// isASCII: s is ASCII without NUL (which PostgreSQL refuses in text, so
// that the database, not Go, answers such a query as before).
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 || s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// grams are the distinct trigrams of the words, at most gramProbes of
// them, taken from every word in turn.
func (p *searchPlan) grams() []string {
	var per [][]string
	for _, w := range p.words {
		r := []rune(w)
		var g []string
		for i := 0; i+3 <= len(r); i++ {
			g = append(g, string(r[i:i+3]))
		}
		if len(g) > 0 {
			per = append(per, g)
		}
	}
	var out []string
	seen := map[string]bool{}
	for i := 0; len(out) < gramProbes; i++ {
		more := false
		for _, g := range per {
			if i < len(g) {
				more = true
				if !seen[g[i]] && len(out) < gramProbes {
					seen[g[i]] = true
					out = append(out, g[i])
				}
			}
		}
		if !more {
			break
		}
	}
	return out
}

// pickChecks returns the driving trigram (the rarest, grams being rarest
// first, with estimate their estimated counts among total packages) and
// up to n more to check: first the rarest trigram of each other word
// unless that word is in most packages, so that words that are common
// alone but never meet are told apart by index look-ups before any
// package is read; then the next rarest estimated in fewer than widest
// packages.
func (p *searchPlan) pickChecks(grams []string, estimate []float64, total float64, n int, widest float64) []string {
	wordOf := func(g string) int {
		for i, w := range p.words {
			if strings.Contains(w, g) {
				return i
			}
		}
		return -1
	}
	out := grams[:1]
	used := map[int]bool{wordOf(grams[0]): true}
	taken := map[string]bool{grams[0]: true}
	for i, g := range grams[1:] {
		if w := wordOf(g); len(out) < 1+n && !used[w] {
			used[w] = true
			if estimate[1+i] < total/2 {
				out, taken[g] = append(out, g), true
			}
		}
	}
	for i, g := range grams[1:] {
		if len(out) < 1+n && !taken[g] && estimate[1+i] < widest {
			out, taken[g] = append(out, g), true
		}
	}
	return out
}

// searchPackages returns a page of a search, in rank order, starting
// after (f.Rank, f.AfterSlug, f.Before).
func (s *Store) searchPackages(ctx context.Context, f registry.PackageFilter) ([]registry.Package, error) {
	// One deadline for the whole search, whatever number of queries it takes.
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	plan, err := s.planSearch(ctx, f.Query)
	if err != nil {
		return nil, err
	}
	// A package without a latest version (none yet, or, where versions
	// can be withdrawn, none left) is never listed, found or not.
	common := []string{`p.latest_version_id > 0`}
	var commonArgs []any
	if f.Owner != "" {
		common = append(common, `p.owner_id = (SELECT id FROM accounts WHERE lower(username) = lower(?))`)
		commonArgs = append(commonArgs, f.Owner)
	}
	if f.Scheme != "" {
		common = append(common, `p.scheme = ?`)
		commonArgs = append(commonArgs, f.Scheme)
	}
	slug := `p.pack_slug` + s.slugBytewise()
	var ownerOf []string // the owner of "owner/slug"
	var ownerArgs []any
	keyed := plan.keyed // the exact and prefix ranks apply
	if plan.owner != "" && plan.keyed {
		// The owner's id first, bound as a parameter: with the account's
		// subquery in them, PostgreSQL planned the two branches anew for
		// every search (about 2 ms, for a statement that runs in 0.1 ms).
		// No such account: no exact or prefix match.
		id, found, err := s.searchAccount(ctx, plan.owner)
		if err != nil {
			return nil, err
		}
		ownerOf, ownerArgs, keyed = []string{`p.owner_id = ?`}, []any{id}, found
	}
	// keyEnd bounds the slugs that start with the key: slugs are ASCII
	// below DEL.
	keyEnd := plan.key + "\x7f"

	var out []registry.Package
	run := func(rank int, query string, args ...any) error {
		if len(out) >= f.Limit {
			return nil
		}
		args = append(args, f.Limit-len(out))
		pkgs, err := queryListOn(ctx, s, s.searchPool(), "search", 0, scanPackage, query+` LIMIT ?`, args...)
		if err != nil {
			return err
		}
		for i := range pkgs {
			pkgs[i].SearchRank = rank
		}
		out = append(out, pkgs...)
		return nil
	}
	sel := `SELECT ` + packageColumns + packageFrom + ` WHERE `

	// The exact and prefix ranks, each a branch in its own index order:
	// on PostgreSQL one statement (docs/design.md, "Search"); on SQLite,
	// where a statement costs no round trip and the UNION ALL measured
	// slower, one after the other.
	type branch struct {
		query string // with its ORDER BY, without a LIMIT
		args  []any
	}
	var branches []branch
	if keyed && f.Rank <= registry.SearchExact && plan.key != "" {
		// Compared byte-wise as the slug index is, or PostgreSQL cannot use
		// it and probes every owner's (owner_id, pack_slug) key instead
		// (70 ms at 1,000 owners).
		where := append(append(append([]string{}, common...), ownerOf...), slug+` = ?`)
		args := append(append(append([]any{}, commonArgs...), ownerArgs...), plan.key)
		if f.Rank == registry.SearchExact && f.Before > 0 {
			where = append(where, `p.latest_version_id < ?`)
			args = append(args, f.Before)
		}
		branches = append(branches, branch{fmt.Sprintf(`SELECT %d AS search_rank, `, registry.SearchExact) + packageColumns + packageFrom +
			` WHERE ` + strings.Join(where, ` AND `) + ` ORDER BY p.latest_version_id DESC`, args})
	}
	if keyed && f.Rank <= registry.SearchPrefix {
		where := append(append(append([]string{}, common...), ownerOf...), slug+` > ?`, slug+` < ?`)
		args := append(append(append([]any{}, commonArgs...), ownerArgs...), plan.key, keyEnd)
		if f.Rank == registry.SearchPrefix {
			where = append(where, `(`+slug+` > ? OR (p.pack_slug = ? AND p.latest_version_id < ?))`)
			args = append(args, f.AfterSlug, f.AfterSlug, f.Before)
		}
		branches = append(branches, branch{fmt.Sprintf(`SELECT %d AS search_rank, `, registry.SearchPrefix) + packageColumns + packageFrom +
			` WHERE ` + strings.Join(where, ` AND `) + ` ORDER BY ` + slug + `, p.latest_version_id DESC`, args})
	}
	switch {
	case len(branches) == 0:
	case s.dialect.name() == "postgres":
		// Every exact match has the key for slug: rank, slug, newest
		// latest version first is both ranks' order. The limit is written
		// into the statement, not bound: with it bound, the plan for
		// unknown values was never the cheaper, and PostgreSQL planned the
		// statement anew every time (0.5 ms, more than it runs).
		limit := ` LIMIT ` + strconv.Itoa(f.Limit)
		var parts []string
		var args []any
		for i, b := range branches {
			parts = append(parts, `SELECT * FROM (`+b.query+limit+`) r`+strconv.Itoa(i))
			args = append(args, b.args...)
		}
		query := `SELECT * FROM (` + strings.Join(parts, ` UNION ALL `) + `) u ORDER BY search_rank, pack_slug` +
			s.slugBytewise() + `, latest_version_id DESC` + limit
		pkgs, err := queryListOn(ctx, s, s.searchPool(), "search", 0, scanRankedPackage, query, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, pkgs...)
	default:
		for _, b := range branches {
			if len(out) >= f.Limit {
				break
			}
			pkgs, err := queryListOn(ctx, s, s.searchPool(), "search", 0, scanRankedPackage, b.query+` LIMIT ?`, append(b.args, f.Limit-len(out))...)
			if err != nil {
				return nil, err
			}
			out = append(out, pkgs...)
		}
	}
	if len(out) >= f.Limit {
		return out, nil
	}

	// The other matches: every word somewhere, not an exact or prefix match.
	where := append([]string{}, common...)
	args := append([]any{}, commonArgs...)
	name, nameArgs := s.foldedLike(`p.name`)
	description, descriptionArgs := s.foldedLike(`p.description`)
	for _, w := range plan.words {
		pattern := "%" + escapeLike(w) + "%"
		where = append(where, `((a.username || '/' || p.pack_slug) LIKE ? ESCAPE '\' OR `+name+` OR `+description+`)`)
		args = append(args, pattern)
		for range nameArgs + descriptionArgs {
			args = append(args, pattern)
		}
	}
	if keyed {
		excluded := slug + ` >= ? AND ` + slug + ` < ?`
		if plan.owner != "" {
			excluded = ownerOf[0] + ` AND ` + excluded
			args = append(args, ownerArgs...)
		}
		where = append(where, `NOT (`+excluded+`)`)
		args = append(args, plan.key, keyEnd)
	}
	grams := plan.grams()
	if len(grams) == 0 {
		// No trigram to look up: an owner's name, exactly.
		if len(plan.words) != 1 || plan.owner != "" {
			return out, nil
		}
		// The account first, as for "owner/slug": a statement fewer when
		// there is none, and one PostgreSQL need not plan anew each time.
		id, found, err := s.searchAccount(ctx, plan.words[0])
		if err != nil || !found {
			return out, err
		}
		where = append(where, `p.owner_id = ?`)
		args = append(args, id)
		if f.Rank == registry.SearchOther && f.Before > 0 {
			where = append(where, `p.id < ?`)
			args = append(args, f.Before)
		}
		return out, run(registry.SearchOther, sel+strings.Join(where, ` AND `)+` ORDER BY p.id DESC`, args...)
	}
	grams, estimate, total, err := s.rarestGrams(ctx, grams)
	if err != nil {
		return nil, err
	}
	before := int64(0)
	if f.Rank == registry.SearchOther {
		before = f.Before
	}
	// On PostgreSQL every statement is a round trip, and a check look-up
	// or a candidate read goes through its shared buffers: checks that
	// barely narrow are left out, and a first batch that likely leaves the
	// page short is made larger (docs/design.md, "Search").
	widest, sized := math.Inf(1), float64(gramBatches[len(gramBatches)-1])
	if s.dialect.name() == "postgres" {
		widest, sized = total*checkWidest, max(sized, total*sizedFirstShare)
	}
	w := walk{grams: plan.pickChecks(grams, estimate, total, gramChecks, widest), count: estimate[0], sized: sized, before: before, limit: f.Limit}
	if s.dialect.name() == "postgres" {
		for _, word := range plan.words {
			w.words = append(w.words, "%"+escapeLike(word)+"%")
		}
		if searchRareMax > 0 && estimate[0] <= float64(searchRareMax) {
			w.rare = rareGrams(grams, estimate, total)
		}
	}
	if s.dialect.name() == "sqlite" {
		w.merge = mergeGrams(grams, estimate)
	}
	return s.walkGrams(ctx, w, out, where, args)
}

// searchPool is the pool a search's statements run on: on PostgreSQL one
// whose sessions keep generic plans (openPostgres), else the read pool.
func (s *Store) searchPool() *sql.DB {
	if s.search != nil {
		return s.search
	}
	return s.read
}

// searchAccount is the id of the account whose folded name is name.
func (s *Store) searchAccount(ctx context.Context, name string) (id int64, found bool, err error) {
	err = s.searchPool().QueryRowContext(ctx, s.q(`SELECT id FROM accounts WHERE lower(username) = ?`), name).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, s.fault("search", err)
	}
	return id, true, nil
}

// searchRareMax is the most postings the driving trigram may be estimated
// to have for a walk to turn to the GIN index of rare words (PostgreSQL,
// migration 0012), and the most rows the index's question may read (those
// with every trigram asked for, matched or not): more, and the walk goes
// on in order instead. A variable for tests (0: never).
var searchRareMax = 8192

// rareGrams are the trigrams a package must all have for the GIN index of
// rare words to hand it back (grams rarest first): the rarest, and up to
// rareKeys - 1 more of those at most 8 times as common and in fewer than
// half of the packages; more common ones would narrow little and cost a
// long posting list each, and a few rare ones already leave few packages.
// The rarest alone will do: the question matches the words on each row
// it reads (rareCandidates), so a word with one rare trigram ("66666")
// costs a read of that trigram's rows, not a package read for each.
func rareGrams(grams []string, estimate []float64, total float64) []string {
	var out []string
	for i, g := range grams {
		if len(out) < rareKeys && (i == 0 || estimate[i] <= 8*estimate[0] && estimate[i] < total/2) {
			out = append(out, g)
		}
	}
	return out
}

// rareKeys bounds how many trigrams the GIN index of rare words is asked
// for: at 1,000,000 packages, an "owner/slug" query's 12 took 2.7 ms, its
// 6 rarest (which leave the same one package) 1.6 ms, and 1.1 ms without
// those more than 8 times as common as the rarest.
const rareKeys = 6

// rareFirstKeys is how many rare trigrams make the walk ask the GIN index
// of rare words before its first batch (walkGrams).
const rareFirstKeys = 3

// walk is what walkGrams walks: grams[0] drives, with count its estimated
// postings (a first batch is sized by count when count is at most sized),
// grams[1:] are checked; rare, when set, are the trigrams to ask
// the GIN index of rare words for (rareGrams); merge, when set (SQLite),
// the trigrams whose postings are merged with the driving one's
// (mergeGrams).
type walk struct {
	grams  []string
	count  float64
	rare   []string
	words  []string // PostgreSQL: a LIKE pattern for each word, folded
	merge  []string
	sized  float64
	before int64
	limit  int
}

// mergeArms bounds how many trigrams besides the driving one a batch
// merges (mergeBatch), and mergeDensity how much more common than the
// driving trigram each may be estimated: merging reads every posting of
// each in the batch's window, where a look-up reads one per posting of the
// driving trigram, so a trigram far more common is better looked up.
const (
	mergeArms    = 3
	mergeDensity = 2
)

// searchMergeCap bounds the postings a merged trigram may have within a
// batch's window, as a multiple of the batch's size: more, and the window
// ends where it has that many (mergeBatch). So a merged batch of size
// postings reads at most 2 × size of the driving trigram's and 2 ×
// searchMergeCap × size of each merged one's, however wrong the estimates
// were. 0: never merge. A variable for tests.
var searchMergeCap = mergeDensity

// searchMerged, when set (by tests), is told how many trigrams each merged
// batch merged with the driving one.
var searchMerged func(arms int)

// mergeGrams are the trigrams a walk on SQLite merges with the driving one
// (grams rarest first, with estimate their estimated postings): up to
// mergeArms of those estimated at most mergeDensity times as common.
func mergeGrams(grams []string, estimate []float64) []string {
	if searchMergeCap <= 0 {
		return nil
	}
	var out []string
	for i := 1; i < len(grams) && len(out) < mergeArms; i++ {
		if estimate[i] <= mergeDensity*max(estimate[0], 1) {
			out = append(out, grams[i])
		}
	}
	return out
}

// gramBatches are the sizes of the successive batches walkGrams reads
// from the driving trigram's postings: small first (a common word fills a
// page from the first one), then larger. Fixed sizes keep the statements
// few.
var gramBatches = []int{32, 256, 2048, 8192}

// firstBatchMax is the index in gramBatches of the largest first batch: a
// trigram with a few thousand postings, many of which match (a bare number,
// an owner's name), fills a page from its first 256 postings, and reading
// and checking all of them first cost it most of a walk.
const firstBatchMax = 1

// searchBudget bounds how many postings of the driving trigram one page of
// a search examines (docs/protocol.md, "Search"): a page that has used it
// up ends where it stopped, with fewer packages than asked for, and its
// cursor continues from there. Words that are each common but never meet
// then cost a bounded amount per page instead of a walk of a whole
// trigram's postings. A variable for tests.
var searchBudget = 20000

// searchReads bounds how many packages one page of a search reads to
// match its words against (docs/protocol.md, "Search"), as searchBudget
// bounds the postings: words whose trigrams are each in most packages (a
// long slug of common letters, "pack-0000000") leave nearly every posting
// a candidate, and reading one costs more than examining a posting. A
// page that has read this many ends after the last package read, and its
// cursor continues from there. A variable for tests.
var searchReads = 2048

// searchWalked, when set (by tests and benchmarks), is told how many
// postings each walk examined, at most, and in how many batches (an
// answer of the GIN index of rare words counted as one).
var searchWalked func(postings, batches int)

// walkGrams reads the postings of grams[0] in package id order, newest
// package first, in batches; keeps those that the other grams have too
// (look-ups by primary key, in the same statement); reads those packages
// and keeps the ones that meet where (with args), until out holds limit
// packages or the postings end. Two statements per batch, not one join,
// so that both engines walk the index in order: given one query,
// PostgreSQL's planner may rather scan every package when it believes the
// words rare.
//
// The first batch is the smallest of gramBatches that holds the driving
// trigram's estimated count, but at most 256 postings: a rare trigram is
// read in one or a few statements; a common one (more than w.sized: the
// largest batch, or on PostgreSQL an eighth of the packages; its first
// postings likely fill the page) from the smallest batch up.
//
// With w.rare set (PostgreSQL, a driving trigram estimated rare), the walk
// asks the GIN index of rare words once instead of reading more batches:
// the packages below the position that have every trigram of w.rare and
// hold the words, read as a batch's candidates are; unless more than
// searchRareMax packages have those trigrams, and then the walk goes on in
// order. With rareFirstKeys trigrams or
// more it asks before any batch (so many rare trigrams seldom meet, and the
// first batch would rarely fill the page); with fewer, only once the first
// batch left the page short (two rare trigrams that often meet, as in an
// owner's name "owner-0833" and "0833" in the packages' numbers, can hand
// back thousands of packages where 256 postings fill the page).
func (s *Store) walkGrams(ctx context.Context, w walk, out []registry.Package, where []string, args []any) ([]registry.Package, error) {
	grams, before, limit := w.grams, w.before, w.limit
	// The batch is read by the inner query (an index walk whatever the
	// planner believes about the checks); the checks run on its rows only.
	check := `1 = 1`
	var checkArgs []any
	var probes []string
	for _, other := range grams[1:] {
		if !slices.Contains(w.merge, other) {
			probes = append(probes, `EXISTS (SELECT 1 FROM package_grams h WHERE h.gram = ? AND h.package_id = x.package_id)`)
			checkArgs = append(checkArgs, other)
		}
	}
	if len(probes) > 0 {
		check = `CASE WHEN ` + strings.Join(probes, ` AND `) + ` THEN 1 ELSE 0 END = 1`
	}
	examined, round := 0, 0
	for w.count <= w.sized && round < firstBatchMax && float64(gramBatches[round]) < w.count {
		round++
	}
	batches, read := 0, 0
	if searchWalked != nil {
		defer func() { searchWalked(examined, batches) }()
	}
	for ; len(out) < limit; round++ {
		var ids []int64
		last := int64(0) // 0: the postings end in this batch
		rare := false
		if len(w.rare) >= rareFirstKeys || batches > 0 && len(w.rare) > 0 {
			// The packages below the position that have every rare
			// trigram, unless there are too many of them to read and sort.
			var err error
			if ids, rare, err = s.rareCandidates(ctx, w.rare, w.words, before); err != nil {
				return out, err
			}
			w.rare, batches = nil, batches+1
		}
		if !rare {
			size := min(gramBatches[min(round, len(gramBatches)-1)], searchBudget-examined)
			if size <= 0 {
				// Where the next page starts: after the last posting examined.
				return append(out, registry.Package{ID: before, SearchRank: registry.SearchOther, SearchResume: true}), nil
			}
			examined += size
			batches++
			var err error
			if len(w.merge) > 0 {
				ids, last, err = s.mergeBatch(ctx, grams[0], w.merge, check, checkArgs, before, size)
			} else {
				ids, last, err = s.gramBatch(ctx, grams[0], check, checkArgs, before, size)
			}
			if err != nil {
				return out, err
			}
		}
		slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(b, a) })
		// The candidates are read newest first in chunks of the batch
		// sizes, until the page is full: a rare word whose every posting
		// matches reads one small chunk, not the whole batch.
		for chunk := 0; len(ids) > 0 && len(out) < limit; chunk++ {
			if read >= searchReads {
				// Where the next page starts: after the last package read,
				// or this batch again when none of it was read.
				return append(out, registry.Package{ID: before, SearchRank: registry.SearchOther, SearchResume: true}), nil
			}
			n := gramBatches[min(chunk, len(gramBatches)-1)]
			take := min(n, len(ids), searchReads-read)
			var in string
			var part []any
			if s.dialect.name() == "postgres" {
				// One int8[] parameter: one statement text whatever the
				// chunk's size, which pgx prepares once per connection.
				// The candidates are first matched against their searched
				// text (package_texts, folded as the words are): a narrow
				// row and one LIKE each, where the package's own row, its
				// owner and three folded columns cost twice as much, and
				// most candidates of words whose trigrams all meet
				// elsewhere ("pack-0000000") do not match. Only those that
				// do are read and matched exactly.
				in, part = `p.id IN (SELECT t.package_id FROM package_texts t WHERE t.package_id = ANY(?) AND t.text LIKE ALL (CAST(? AS TEXT[])))`, []any{ids[:take], w.words}
			} else {
				in, part = `p.id IN (?`+strings.Repeat(`, ?`, n-1)+`)`, make([]any, n) // padded with 0, which no package has
				for i := range part {
					part[i] = int64(0)
					if i < take {
						part[i] = ids[i]
					}
				}
			}
			// Every posting from the last package read up has been dealt
			// with: read, or without one of the other trigrams.
			read, before, ids = read+take, ids[take-1], ids[take:]
			query := `SELECT ` + packageColumns + packageFrom + ` WHERE ` + in + ` AND ` + strings.Join(where, ` AND `) + ` ORDER BY p.id DESC`
			qargs := append(part, args...)
			if s.dialect.name() == "sqlite" {
				// SQLite reads the chunk in id order and stops once the page
				// is full: a chunk of 2,048 candidates of which the page needs
				// a few is not read to its end.
				query += ` LIMIT ?`
				qargs = append(qargs, limit-len(out))
			}
			found, err := queryListOn(ctx, s, s.searchPool(), "search", 0, scanPackage, query, qargs...)
			if err != nil {
				return out, err
			}
			for _, p := range found {
				if len(out) == limit {
					break
				}
				p.SearchRank = registry.SearchOther
				out = append(out, p)
			}
		}
		if last == 0 {
			break
		}
		before = last
	}
	return out, nil
}

// gramBatch reads the next size postings of gram below before (0: from
// the newest) and returns those that pass check (with checkArgs), and the
// batch's last posting, 0 when the postings end within it.
func (s *Store) gramBatch(ctx context.Context, gram, check string, checkArgs []any, before int64, size int) (ids []int64, last int64, err error) {
	// The batch's postings that pass the checks, and (flag 0) its last
	// posting, NULL when the postings end within it.
	below := ``
	var belowArgs []any
	if before > 0 {
		below = ` AND package_id < ?`
		belowArgs = []any{before}
	}
	query := `SELECT x.package_id, 1 FROM (SELECT package_id FROM package_grams WHERE gram = ?` + below +
		` ORDER BY package_id DESC LIMIT ?) x WHERE ` + check + `
UNION ALL SELECT (SELECT package_id FROM package_grams WHERE gram = ?` + below + ` ORDER BY package_id DESC LIMIT 1 OFFSET ?), 0`
	qargs := append(append(append([]any{gram}, belowArgs...), size), checkArgs...)
	qargs = append(append(append(qargs, gram), belowArgs...), size-1)
	type posting struct {
		id   sql.NullInt64
		flag int
	}
	postings, err := queryListOn(ctx, s, s.searchPool(), "search", 64, func(row scanner) (*posting, error) {
		var p posting
		return &p, row.Scan(&p.id, &p.flag)
	}, query, qargs...)
	if err != nil {
		return nil, 0, err
	}
	for _, p := range postings {
		switch {
		case p.flag == 0:
			last = p.id.Int64
		case p.id.Valid:
			ids = append(ids, p.id.Int64)
		}
	}
	return ids, last, nil
}

// mergeBatch is gramBatch on SQLite for a walk with trigrams to merge
// (arms): the packages in the batch's window that have the driving trigram
// and every arm, from one merge of their postings in package id order
// (SQLite's MERGE (INTERSECT) of index ranges: each posting read once, in
// order, where a look-up per posting descends the index), then the checks.
// The window is the batch's (from before down to the driving trigram's
// size-th posting), ended sooner where an arm has more than
// searchMergeCap × size postings in it, so that no statement reads more than
// that many postings of any trigram whatever the estimates said; the next
// batch starts below it.
func (s *Store) mergeBatch(ctx context.Context, gram string, arms []string, check string, checkArgs []any, before int64, size int) (ids []int64, last int64, err error) {
	if searchMerged != nil {
		searchMerged(len(arms))
	}
	top := before
	if top <= 0 {
		top = math.MaxInt64
	}
	// The window: the driving trigram's size-th posting below top (0 when
	// its postings end sooner), and each arm's searchMergeCap×size-th in
	// between (NULL when it has fewer).
	cols := []string{`v`}
	args := []any{gram, top, size - 1}
	for _, arm := range arms {
		cols = append(cols, `(SELECT package_id FROM package_grams WHERE gram = ? AND package_id < ? AND package_id >= v ORDER BY package_id DESC LIMIT 1 OFFSET ?)`)
		args = append(args, arm, top, searchMergeCap*size-1)
	}
	bounds := make([]sql.NullInt64, 1+len(arms))
	dest := make([]any, len(bounds))
	for i := range bounds {
		dest[i] = &bounds[i]
	}
	if err := s.searchPool().QueryRowContext(ctx, `WITH w(v) AS (SELECT coalesce((SELECT package_id FROM package_grams WHERE gram = ? AND package_id < ? ORDER BY package_id DESC LIMIT 1 OFFSET ?), 0))
SELECT `+strings.Join(cols, `, `)+` FROM w`, args...).Scan(dest...); err != nil {
		return nil, 0, s.fault("search", err)
	}
	for _, b := range bounds {
		if b.Valid && b.Int64 > last {
			last = b.Int64
		}
	}
	arm := `SELECT package_id FROM package_grams WHERE gram = ? AND package_id < ? AND package_id >= ?`
	parts := []string{arm}
	qargs := []any{gram, top, last}
	for _, a := range arms {
		parts = append(parts, arm)
		qargs = append(qargs, a, top, last)
	}
	query := `SELECT x.package_id FROM (` + strings.Join(parts, ` INTERSECT `) + ` ORDER BY 1 DESC) x WHERE ` + check
	found, err := queryListOn(ctx, s, s.searchPool(), "search", 64, func(row scanner) (*int64, error) {
		var id int64
		return &id, row.Scan(&id)
	}, query, append(qargs, checkArgs...)...)
	return found, last, err
}

// rareCandidates returns the packages below before (0: all) whose
// searched text has every one of grams, by the GIN index of rare words
// (PostgreSQL, migration 0012), and holds every word (LIKE patterns), and
// true; or false when more than searchRareMax packages have the trigrams.
// The words are matched on the rows the index's answer is read from
// anyway, so a package with every trigram of a word but not the word (for
// "06666", any with "066" and "666") is never read as a candidate; the
// searched text is folded as the query is, so this keeps every package
// that the candidates' own match keeps. The rows read are bounded by the
// limit on the inner question, matched or not: with the words in its
// WHERE instead, a limit on matches would let trigrams that are common
// among older packages (and estimated rare from the newest) read every
// row that has them. The position is applied here, not in the statement,
// and the limit is written into it: the plan PostgreSQL keeps for a
// prepared statement must not depend on them, and with either bound it
// was a bitmap of a third of the table's key (25–40 ms at 1,000,000
// packages) instead of the GIN index alone (about 1 ms). The matches come
// back as one text of ids, so that one row also says how many rows were
// read.
func (s *Store) rareCandidates(ctx context.Context, grams, words []string, before int64) ([]int64, bool, error) {
	var rows int
	var list string
	err := s.searchPool().QueryRowContext(ctx, s.q(`SELECT count(*), coalesce(string_agg(CAST(package_id AS TEXT), ',') FILTER (WHERE text LIKE ALL (CAST(? AS TEXT[]))), '')
FROM (SELECT package_id, text FROM package_texts WHERE package_grams_array(text) @> CAST(? AS TEXT[]) LIMIT `+
		strconv.Itoa(searchRareMax+1)+`) x`), words, grams).Scan(&rows, &list)
	if err != nil {
		return nil, false, s.fault("search", err)
	}
	if rows > searchRareMax {
		return nil, false, nil
	}
	var ids []int64
	for f := range strings.SplitSeq(list, ",") {
		if f == "" {
			continue
		}
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, false, s.fault("search", fmt.Errorf("the GIN index of rare words answered %q", f))
		}
		if before <= 0 || id < before {
			ids = append(ids, id)
		}
	}
	return ids, true, nil
}

// rarestGrams orders grams by an estimate of how many packages have
// them, rarest first. Each trigram's newest gramProbeCap postings are
// read: fewer than that is the count; otherwise the id range they span
// says how dense the trigram is among all packages (ids grow with every
// new package), so a trigram in 0.5% of the packages is told from one in
// all of them at the cost of reading gramProbeCap index entries.
//
// The probes of trigrams read recently are taken from s.grams
// (gramstats.go); only the others are read, and kept.
func (s *Store) rarestGrams(ctx context.Context, grams []string) (sorted []string, estimates []float64, total float64, err error) {
	at := time.Now()
	stats := make([]gramStat, len(grams))
	var missing []string
	var missingAt []int // where each of missing is in grams
	for i, g := range grams {
		var ok bool
		if stats[i], ok = s.grams.get(g, at); !ok {
			missing, missingAt = append(missing, g), append(missingAt, i)
		}
	}
	if gramProbed != nil {
		gramProbed(len(missing))
	}
	if len(missing) > 0 {
		var newest sql.NullInt64
		counts := make([]int64, len(missing))
		oldest := make([]sql.NullInt64, len(missing))
		if s.dialect.name() == "postgres" {
			err = s.pgGramProbes(ctx, missing, &newest, counts, oldest)
		} else {
			err = s.gramProbes(ctx, missing, &newest, counts, oldest)
		}
		if err != nil {
			return nil, nil, 0, s.fault("search", err)
		}
		for k, i := range missingAt {
			stats[i] = gramStat{count: counts[k], oldest: oldest[k], newest: newest, read: at}
			s.grams.put(grams[i], stats[i])
		}
	}
	estimate := make([]float64, len(grams))
	var newest int64
	for i, st := range stats {
		newest = max(newest, st.newest.Int64)
		estimate[i] = float64(st.count)
		if st.count >= gramProbeCap && st.oldest.Valid {
			span := float64(st.newest.Int64-st.oldest.Int64) + 1
			estimate[i] = float64(gramProbeCap) * float64(st.newest.Int64) / max(span, 1)
		}
	}
	order := make([]int, len(grams))
	for i := range order {
		order[i] = i
	}
	// Stable: equally common trigrams keep the words' order.
	sort.SliceStable(order, func(a, b int) bool { return estimate[order[a]] < estimate[order[b]] })
	sorted, estimates = make([]string, len(grams)), make([]float64, len(grams))
	for i, k := range order {
		sorted[i], estimates[i] = grams[k], estimate[k]
	}
	return sorted, estimates, float64(newest), nil
}

// scanRankedPackage scans a search rank and then a package's columns.
func scanRankedPackage(row scanner) (*registry.Package, error) {
	var rank int
	p, err := scanPackage(rankedRow{row, &rank})
	if err != nil {
		return nil, err
	}
	p.SearchRank = rank
	return p, nil
}

// rankedRow scans its first column into rank, the others as asked.
type rankedRow struct {
	row  scanner
	rank *int
}

func (r rankedRow) Scan(dest ...any) error {
	return r.row.Scan(append([]any{r.rank}, dest...)...)
}

// gramProbes reads, for each of grams, how many of its newest
// gramProbeCap postings there are and the oldest of them, and the newest
// package id: one statement, two subqueries per trigram.
func (s *Store) gramProbes(ctx context.Context, grams []string, newest *sql.NullInt64, counts []int64, oldest []sql.NullInt64) error {
	cols := []string{`(SELECT max(id) FROM packages)`}
	args := make([]any, 0, 2*len(grams))
	for i, g := range grams {
		probe := fmt.Sprintf(`(SELECT package_id FROM package_grams WHERE gram = ? ORDER BY package_id DESC LIMIT %d)`, gramProbeCap)
		cols = append(cols, fmt.Sprintf(`(SELECT count(*) FROM %s p%d)`, probe, i), fmt.Sprintf(`(SELECT min(package_id) FROM %s q%d)`, probe, i))
		args = append(args, g, g)
	}
	dest := []any{newest}
	for i := range grams {
		dest = append(dest, &counts[i], &oldest[i])
	}
	return s.searchPool().QueryRowContext(ctx, s.q(`SELECT `+strings.Join(cols, `, `)), args...).Scan(dest...)
}

// sqlGramProbes is gramProbes on PostgreSQL: the trigrams as one text[]
// parameter, a row each in their order, so that one statement text, which
// pgx prepares once per connection, serves any number of them.
var sqlGramProbes = fmt.Sprintf(`SELECT (SELECT max(id) FROM packages), count(x.package_id), min(x.package_id)
FROM unnest(CAST(? AS TEXT[])) WITH ORDINALITY AS u(gram, i)
LEFT JOIN LATERAL (SELECT package_id FROM package_grams WHERE gram = u.gram COLLATE "C"
                   ORDER BY package_id DESC LIMIT %d) x ON TRUE
GROUP BY u.i ORDER BY u.i`, gramProbeCap)

func (s *Store) pgGramProbes(ctx context.Context, grams []string, newest *sql.NullInt64, counts []int64, oldest []sql.NullInt64) error {
	rows, err := s.searchPool().QueryContext(ctx, s.q(sqlGramProbes), grams)
	if err != nil {
		return err
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		if i == len(grams) {
			return fmt.Errorf("more trigram probes than trigrams")
		}
		if err := rows.Scan(newest, &counts[i], &oldest[i]); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if i != len(grams) {
		return fmt.Errorf("%d trigram probes for %d trigrams", i, len(grams))
	}
	return nil
}

// foldedLike is "the folded column contains the pattern": a LIKE on the
// column folded as the index folds it, and how many times it takes the
// pattern. On SQLite the fold is pact_fold, a Go function each call of
// which crosses from C to Go (a third of a walk's time when its candidates
// are many); LIKE there already ignores the case of ASCII letters, so a
// column of ASCII text is matched without it, and only text with a
// character beyond ASCII (more bytes than characters) is folded first. A
// match without the fold is also one with it: the pattern is folded text.
func (s *Store) foldedLike(column string) (string, int) {
	if s.dialect.name() == "postgres" {
		return s.dialect.fold() + `(` + column + `) LIKE ? ESCAPE '\'`, 1
	}
	return `(` + column + ` LIKE ? ESCAPE '\' OR (length(CAST(` + column + ` AS BLOB)) <> length(` + column + `) AND ` +
		s.dialect.fold() + `(` + column + `) LIKE ? ESCAPE '\'))`, 2
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
// sorted pass instead of a scattered insert per package.
func (s *Store) deferSearchIndex(ctx context.Context, tx *sql.Tx) error {
	query := `UPDATE search_index_state SET deferred = 1`
	if s.dialect.name() == "postgres" {
		query = `SET LOCAL pact.search_index_deferred = 'on'`
	}
	_, err := tx.ExecContext(ctx, query)
	return err
}

// indexPackages adds the trigrams of the packages with ids from fromID
// on, and turns the triggers back on.
func (s *Store) indexPackages(ctx context.Context, tx *sql.Tx, fromID int64) error {
	query := `INSERT OR IGNORE INTO package_grams (gram, package_id)
SELECT substr(t.s, n, 3), t.id
FROM (SELECT p.id,
             pact_fold(a.username || '/' || p.pack_slug || char(10) || p.name || char(10) || p.description) AS s
      FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ?) t
JOIN search_positions ON n <= length(t.s) - 2
ORDER BY 1, 2`
	on := `UPDATE search_index_state SET deferred = 0`
	if s.dialect.name() == "postgres" {
		// package_search_text and package_grams_of written out, as the
		// planner would not inline them.
		query = `INSERT INTO package_grams (gram, package_id)
SELECT DISTINCT substr(t.s, n, 3), t.id
FROM (SELECT p.id,
             lower(a.username || '/' || p.pack_slug || chr(10) || p.name || chr(10) || p.description) AS s
      FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ?) t,
     generate_series(1, length(t.s) - 2) AS n
ORDER BY 1, 2
ON CONFLICT DO NOTHING`
		on = `SET LOCAL pact.search_index_deferred = 'off'`
		// The searched texts of the GIN index of rare words (migration
		// 0012), before the trigrams, in one pass.
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO package_texts (package_id, text)
SELECT p.id, lower(a.username || '/' || p.pack_slug || chr(10) || p.name || chr(10) || p.description)
FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id >= ?
ORDER BY p.id
ON CONFLICT (package_id) DO UPDATE SET text = EXCLUDED.text`), fromID); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(query), fromID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, on)
	return err
}
