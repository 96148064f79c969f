package sqlstore

import (
	"database/sql"
	"sync"
	"time"
)

// gramStats remembers, for a while, what the trigram probes of a search
// read (rarestGrams): for each trigram, how many of its newest
// gramProbeCap postings there were, the oldest of them, and the newest
// package id when they were read. A search's plan (which trigram drives
// its walk, which are checked, how large its first batch is, whether it
// asks the GIN index) follows from these estimates, but its matches and
// their order never do: every match has every trigram, is matched exactly,
// and the walk goes in package order whichever trigram drives it (only
// where a page cut short by its bounds ends may differ). So a trigram's
// estimate may be a little old, and searches that share
// trigrams (most do: "pac", "ack", "ck-" for every "pack-…") skip the
// probes' statement, on PostgreSQL a round trip and about a fifth of a
// search's statements (docs/design.md, "Trigram estimates kept a
// while").
//
// An estimate is used for gramStatsTTL after it was read. The estimates
// are kept in two generations of at most gramStatsSize trigrams each: a
// look-up that finds a trigram in the older one moves it to the newer; the
// newer becomes the older, and the older is dropped, when the newer is
// full or gramStatsTTL has passed since it began. So the memory is bounded
// whatever words are searched for.
type gramStats struct {
	mu       sync.Mutex
	now, old map[string]gramStat
	began    time.Time
}

// gramStat is one trigram's probe: count of its newest gramProbeCap
// postings, the oldest of them, the newest package id then, and when it
// was read.
type gramStat struct {
	count          int64
	oldest, newest sql.NullInt64
	read           time.Time
}

// gramStatsSize and gramStatsTTL bound the trigram estimates kept (per
// generation) and how long (a generation's life); gramStatsTTL 0 keeps
// none. Variables for tests.
var (
	gramStatsSize = 4096
	gramStatsTTL  = 30 * time.Second
)

// gramProbed, when set (by tests), is told how many trigrams each search
// read the probes of: those whose estimates were not kept.
var gramProbed func(probed int)

// get returns the probe of gram read less than gramStatsTTL before at,
// if one is kept.
func (g *gramStats) get(gram string, at time.Time) (gramStat, bool) {
	if gramStatsTTL <= 0 {
		return gramStat{}, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.turn(at)
	st, ok := g.now[gram]
	if !ok {
		if st, ok = g.old[gram]; ok {
			g.now[gram] = st
		}
	}
	if !ok || at.Sub(st.read) >= gramStatsTTL {
		return gramStat{}, false
	}
	return st, true
}

// put keeps the probe of gram (read at st.read).
func (g *gramStats) put(gram string, st gramStat) {
	if gramStatsTTL <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.turn(st.read)
	g.now[gram] = st
}

// turn starts a new generation when the current one is full or has lived
// gramStatsTTL (under mu).
func (g *gramStats) turn(at time.Time) {
	switch {
	case g.now == nil || at.Sub(g.began) >= 2*gramStatsTTL:
		// Nothing kept is young enough to use.
		g.now, g.old, g.began = make(map[string]gramStat), nil, at
	case len(g.now) >= gramStatsSize || at.Sub(g.began) >= gramStatsTTL:
		g.now, g.old, g.began = make(map[string]gramStat), g.now, at
	}
}

// forget drops every kept probe: the packages were replaced or bulk loaded
// (Seed, Restore).
func (g *gramStats) forget() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.now, g.old = nil, nil
}
