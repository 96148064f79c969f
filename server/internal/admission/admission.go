// Package admission decides whether a full in-memory cache takes in what a
// miss just read, and what it may evict for it (docs/design.md, "Caches":
// admission).
//
// A plain LRU takes in every miss and evicts its least recently used
// entries for it. Asked in turn for more distinct things than it holds (a
// mirror or an auditor reading every document or every log tile, or a
// crawler), it then evicts each entry just before it is asked for again,
// and serves none: the sweep also flushes the hot entries every other
// client was being served from memory.
//
// A Filter therefore counts how often each key was asked for lately (a
// count-min sketch of small counters, halved as it fills, so old reads
// fade), and each cached entry keeps its own Tally of the same, and a full
// cache compares its candidate with what it would evict:
//
//   - a candidate asked for more often than every victim is taken in, so a
//     hot entry that left is back at its next miss;
//   - a candidate asked for less often than one of the victims is not, so a
//     sweep never evicts a hotter entry;
//   - a victim is judged by its own tally, not by the sketch: keys that
//     share all their counters in the sketch count each other's look-ups,
//     and a cold entry counted hot that way would keep a hot one out,
//     while its own tally fades as it sits unread at the end of the cache;
//   - between equals (a sweep against the entries of the same sweep), one in
//     OneIn is taken in, at random: a sweep of N entries through a cache of
//     C keeps nearly C/N of its answers in memory instead of none.
//
// While the cache has room, every miss is taken in.
package admission

import (
	"container/list"
	"hash/maphash"
	"math/rand/v2"
)

// OneIn is how many misses between equals there are for each one taken in.
const OneIn = 64

// Policy is what a cache asks: Record every look-up, hit or miss, and Hit
// the tally of the entry a hit found; Start the tally of an entry it takes
// in; when a miss does not fit, Admit it or not.
type Policy interface {
	// Record counts one look-up of key (from HashString or Hash).
	Record(key uint64)
	// Hit counts a look-up that found the entry t is the tally of.
	Hit(t *Tally)
	// Start is the tally of an entry taken in for key.
	Start(key uint64) Tally
	// Admit says whether a full cache takes in candidate, a key whose miss
	// was just recorded, evicting the entries of victims (least recently
	// used first).
	Admit(candidate uint64, victims []*Tally) bool
}

// Victims are the tallies of the entries of an LRU list (most recently
// used first) that leave, least recently used first, to free over bytes;
// entry gives an element's tally and size.
func Victims[E any](lru *list.List, over int64, entry func(E) (*Tally, int64)) []*Tally {
	var tallies []*Tally
	for e := lru.Back(); e != nil && over > 0; e = e.Prev() {
		t, size := entry(e.Value.(E))
		tallies = append(tallies, t)
		over -= size
	}
	return tallies
}

// Tally is a cached entry's count of its look-ups, fading as the sketch's
// counts do.
type Tally struct {
	n     uint8
	epoch uint32 // the Filter's halvings when n was last brought up to date
}

// Always takes in every entry: a plain LRU, for tests of eviction order.
var Always Policy = always{}

type always struct{}

func (always) Record(uint64)               {}
func (always) Hit(*Tally)                  {}
func (always) Start(uint64) Tally          { return Tally{} }
func (always) Admit(uint64, []*Tally) bool { return true }

// seed keys every hash of this process: one pactd's counters cannot be
// aimed at from outside, by names chosen to share them.
var seed = maphash.MakeSeed()

// HashString is the key of s.
func HashString(s string) uint64 { return maphash.String(seed, s) }

// Hash is the key of v: equal values, strings compared by their bytes,
// have equal keys.
func Hash[T comparable](v T) uint64 { return maphash.Comparable(seed, v) }

const (
	rows     = 4
	maxCount = 15 // a counter is 4 bits
	// spread is how many counters a row has for each entry the cache may
	// hold, at least minWidth: the fewer keys share a counter, the fewer
	// cold keys count as hot. With a key's counters in one block (below),
	// a cold key counts as hot when all four of its counters are shared
	// with hot keys of its block: rows of 1,024 counters (32 blocks) for a
	// test's 241 keys made its hot tiles miss in 1 run of 200
	// (TestTileCacheServesAWalkOfTheWholeLog, server); 4,096 (8 KiB in all)
	// did not in 1,000.
	spread   = 4
	minWidth = 4096
	maxWidth = 1 << 22 // 8 MiB of counters, for a cache of 4 GiB or more
	// fadeAfter times the entries (at least minWindow) of look-ups halve
	// every count. The caches size their Filter at an entry per KiB (per
	// 4 KiB for tiles), several times more entries than they hold, so this
	// is a dozen or more look-ups per entry held: a sweep of ten times the
	// cache counts about once per document between halvings, a hot
	// document many times. BenchmarkReadCacheAdmission (server/sqlstore)
	// measures the result; 10 kept the same hot sets but followed one
	// that moves less well.
	fadeAfter = 4
	minWindow = fadeAfter * 256

	// The counters are packed 16 to a word, and a key's four are in one
	// block of blockWords words, 64 bytes, a processor's cache line: a
	// look-up reads one line of the table rather than one in each of four
	// rows. Row r of a block is its words 2r and 2r+1 (rowCounters
	// counters); the block is picked by the key's top bits, each row's
	// counter by five of its low bits.
	blockWords  = 8
	rowCounters = 32
	nibbles     = 0x7777777777777777 // every counter's low three bits
)

// Filter is the Policy of a cache of about entries entries. It is not safe
// for concurrent use: the caches call it under their lock.
type Filter struct {
	table      []uint64 // blocks of blockWords words of 16 counters
	blockShift uint     // 64 - log2(blocks)
	samples    int      // look-ups recorded since the last halving
	resetAt    int
	epoch      uint32 // halvings so far
	// Coin says yes one time in OneIn; tests replace it.
	Coin func() bool
}

// NewFilter returns a Filter sized for a cache holding about entries
// entries: spread counters a row for each, halved every fadeAfter times
// entries look-ups.
func NewFilter(entries int) *Filter {
	width, log := minWidth, 12
	for width < spread*entries && width < maxWidth {
		width, log = width*2, log+1
	}
	blocks := width / rowCounters
	return &Filter{
		table:      make([]uint64, blocks*blockWords),
		blockShift: uint(64 - (log - 5)), // log2(rowCounters) = 5
		resetAt:    max(minWindow, fadeAfter*entries),
		Coin:       randomCoin,
	}
}

func randomCoin() bool { return rand.Uint32N(OneIn) == 0 }

// slot is where key's counter of row r is: a word of the table, and the
// counter's shift in it. (Keys come from maphash, so every bit of one is
// as good as another.)
func (f *Filter) slot(key uint64, r int) (word int, shift uint) {
	pick := key >> (5 * r) & (rowCounters - 1)
	return int(key>>f.blockShift)*blockWords + 2*r + int(pick>>4), uint(pick&15) * 4
}

// Record counts one look-up of key. Every fadeAfter times the entries,
// all counts are halved: what was asked for often a while ago and not since becomes
// as cold as the rest.
func (f *Filter) Record(key uint64) {
	var words [rows]int
	var shifts [rows]uint
	least := uint64(maxCount)
	for r := range rows {
		words[r], shifts[r] = f.slot(key, r)
		least = min(least, f.table[words[r]]>>shifts[r]&maxCount)
	}
	if least < maxCount {
		for r := range rows {
			if f.table[words[r]]>>shifts[r]&maxCount == least {
				f.table[words[r]] += 1 << shifts[r]
			}
		}
	}
	if f.samples++; f.samples >= f.resetAt {
		f.samples /= 2
		f.epoch++
		for i, w := range f.table {
			f.table[i] = w >> 1 & nibbles
		}
	}
}

// Count estimates how many times key was looked up lately: never fewer
// than it was, more only where keys share all their counters. (A look-up
// raises only those of its counters that are lowest, so a counter shared
// with a hotter key is not raised for a colder one.)
func (f *Filter) Count(key uint64) int {
	n := uint64(maxCount)
	for r := range rows {
		w, shift := f.slot(key, r)
		n = min(n, f.table[w]>>shift&maxCount)
	}
	return int(n)
}

// fade halves t once for each halving of the counts since it was last
// brought up to date.
func (f *Filter) fade(t *Tally) {
	if d := f.epoch - t.epoch; d > 0 {
		t.n >>= min(d, 8)
		t.epoch = f.epoch
	}
}

// Hit counts one look-up of the entry t is the tally of.
func (f *Filter) Hit(t *Tally) {
	f.fade(t)
	if t.n < maxCount {
		t.n++
	}
}

// Start is the tally of an entry taken in for key: the sketch's count,
// which from now on fades or grows with the entry's own look-ups only.
func (f *Filter) Start(key uint64) Tally {
	return Tally{n: uint8(f.Count(key)), epoch: f.epoch}
}

// Admit compares the candidate's earlier look-ups (its miss, recorded
// already, left out) with the most any victim's tally holds.
func (f *Filter) Admit(candidate uint64, victims []*Tally) bool {
	earlier := f.Count(candidate)
	if earlier < maxCount {
		earlier-- // a saturated count has no room to tell its last look-up apart
	}
	hottest := 0
	for _, v := range victims {
		f.fade(v)
		hottest = max(hottest, int(v.n))
	}
	switch {
	case earlier > hottest:
		return true
	case earlier < hottest:
		return false
	default:
		return f.Coin()
	}
}
