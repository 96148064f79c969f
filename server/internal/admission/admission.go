// Package admission decides whether a full in-memory cache takes in what a
// miss just read (docs/design.md, "Caches": admission).
//
// A plain LRU takes in every miss and evicts its least recently used
// entry for it. Asked in turn for more distinct things than it holds (a
// mirror or an auditor reading every document or every log tile, or a
// crawler), it then evicts each entry just before it is asked for again,
// and serves none: the sweep also flushes the hot entries every other
// client was being served from memory. A full cache therefore takes in
// one miss in OneIn, chosen at random, and evicts for it. A document or
// tile asked for often is still taken in after a few dozen misses; a
// sweep of N entries through a cache of C keeps nearly C/N of its answers
// in memory instead of none, and changes little of what was there. While
// the cache has room, every miss is taken in.
package admission

import "math/rand/v2"

// OneIn is how many misses of a full cache there are for each one taken in.
const OneIn = 64

// Policy says whether a full cache takes in one more entry.
type Policy func() bool

// Random takes in one call in OneIn, at random.
func Random() bool { return rand.Uint32N(OneIn) == 0 }

// Always takes in every entry: a plain LRU, for tests of eviction order.
func Always() bool { return true }
