package sqlstore

import (
	"slices"
	"strings"
)

// SQLite has no trigram similarity of its own (its FTS5 trigram table
// finds candidates, nothing ranks them), so SuggestSlugs ranks SQLite's
// candidates here by what PostgreSQL ranks them by in pg_trgm: strict word
// similarity, then similarity of the whole slug. Both engines then suggest
// `backup-tools` for `bakup` before `bakery`.

// trigram is three bytes of a slug's word, padded as pg_trgm pads a word:
// two spaces before it and one after.
type trigram uint32

// appendTrigrams appends the trigrams of a word (a slug's run of letters
// and digits) that out[from:] does not hold yet.
func appendTrigrams(out []trigram, from int, w string) []trigram {
	at := func(j int) trigram {
		if j < 2 || j >= 2+len(w) {
			return ' '
		}
		return trigram(w[j-2])
	}
	for i := 0; i+3 <= len(w)+3; i++ {
		if g := at(i)<<16 | at(i+1)<<8 | at(i+2); !slices.Contains(out[from:], g) {
			out = append(out, g)
		}
	}
	return out
}

// trigramMatch compares slugs with a query: the trigrams of all the
// query's words, and room for a slug's.
type trigramMatch struct {
	query  map[trigram]bool
	words  []int // where each word's trigrams start in grams
	grams  []trigram
	extent []trigram
}

func newTrigramMatch(query string) *trigramMatch {
	m := &trigramMatch{query: map[trigram]bool{}}
	for _, w := range strings.Split(query, "-") {
		for _, g := range appendTrigrams(nil, 0, w) {
			m.query[g] = true
		}
	}
	return m
}

// similarity returns, as pg_trgm's strict_word_similarity and similarity
// do, the greatest share of trigrams the query has in common with a run of
// whole consecutive words of slug (shared / all of both), and that share
// with the whole slug. Each run is grown a word at a time from each start,
// so a slug of n words costs n passes over its trigrams.
func (m *trigramMatch) similarity(slug string) (word, whole float64) {
	m.words, m.grams = m.words[:0], m.grams[:0]
	for w := range strings.SplitSeq(slug, "-") {
		m.words = append(m.words, len(m.grams))
		m.grams = appendTrigrams(m.grams, len(m.grams), w)
	}
	m.words = append(m.words, len(m.grams))
	for start := 0; start+1 < len(m.words); start++ {
		m.extent = m.extent[:0]
		shared := 0
		for end := start + 1; end < len(m.words); end++ {
			for _, g := range m.grams[m.words[end-1]:m.words[end]] {
				if !slices.Contains(m.extent, g) {
					m.extent = append(m.extent, g)
					if m.query[g] {
						shared++
					}
				}
			}
			s := float64(shared) / float64(len(m.query)+len(m.extent)-shared)
			word = max(word, s)
			if start == 0 {
				whole = s // the run from the first word to the last: the slug
			}
		}
	}
	return word, whole
}
