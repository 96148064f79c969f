package sqlstore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/internal/admission"
	"github.com/pact-registry/pact/server/registry"
)

func cachedVersion(version string, size int) *registry.Version {
	return &registry.Version{Version: version, Content: []byte(strings.Repeat("x", size))}
}

// A read that began before a publish must not store what it read after the
// publish dropped the entry: that would serve the old latest document until
// the next publish.
func TestReadCacheDropsReadsThatRacedAWrite(t *testing.T) {
	cases := []struct {
		name       string
		invalidate func(c *readCache)
	}{
		{"a publish of the package", func(c *readCache) { c.published("alice", "foo") }},
		{"a publish of another package", func(c *readCache) { c.published("bob", "bar") }},
		{"a reset", func(c *readCache) { c.reset() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newReadCache(1<<20, 0)
			key := docKey("alice", "foo", "")
			gen := c.gen() // the reader starts
			tc.invalidate(c)
			c.putDoc(key, cachedVersion("1.0.0", 10), gen, clock()) // and stores what it read before
			if v, ok := c.doc(key); ok {
				t.Errorf("the cache kept %s, read before the write", v.Version)
			}
		})
	}
}

func TestReadCacheInvalidation(t *testing.T) {
	c := newReadCache(1<<20, 0)
	latest, pinned, other := docKey("Alice", "Foo", ""), docKey("alice", "foo", "1.0.0"), docKey("bob", "foo", "")
	for _, key := range []docID{latest, pinned, other} {
		c.putDoc(key, cachedVersion("1.0.0", 10), c.gen(), clock())
	}

	c.published("alice", "foo")
	if _, ok := c.doc(latest); ok {
		t.Error("a publish kept its package's latest document")
	}
	if _, ok := c.doc(pinned); !ok {
		t.Error("a publish dropped a pinned (immutable) version")
	}
	if _, ok := c.doc(other); !ok {
		t.Error("a publish dropped another package's latest document")
	}
	if gen := c.gen(); gen == 0 {
		t.Error("a publish left the generation as it was, so list pages kept under it stay served")
	}
}

// The cache holds at most its byte budget, keeping the most recently used
// (every miss taken in, to see the order of eviction).
func TestReadCacheStaysWithinItsBudget(t *testing.T) {
	const budget = 64 << 10
	c := newReadCache(budget, 0)
	c.admit = admission.Always
	keys := make([]docID, 40)
	for i := range keys {
		keys[i] = docKey("alice", "pack", string(rune('a'+i)))
		c.putDoc(keys[i], cachedVersion("1.0.0", 3000), c.gen(), clock())
		c.doc(keys[0]) // keeps the first one in use
	}
	if c.bytes > budget {
		t.Errorf("the cache holds %d bytes, over its budget of %d", c.bytes, budget)
	}
	if _, ok := c.doc(keys[0]); !ok {
		t.Error("the most used document was evicted")
	}
	if _, ok := c.doc(keys[1]); ok {
		t.Error("the least recently used document was kept")
	}
	if _, ok := c.doc(keys[len(keys)-1]); !ok {
		t.Error("the newest document was evicted")
	}

	c.putDoc(docKey("alice", "huge", ""), cachedVersion("1.0.0", budget/4), c.gen(), clock())
	if _, ok := c.doc(docKey("alice", "huge", "")); ok {
		t.Error("a document of a quarter of the budget was cached")
	}
}

// On PostgreSQL an entry is served for at most its ttl after it was read,
// then read again: the bound on another replica's write showing here.
func TestReadCacheEntriesExpire(t *testing.T) {
	// A ttl far longer than the test, and an entry read long enough ago
	// that it expires 30 ms from now: a slow machine only makes the old
	// one older, never the fresh one stale.
	const ttl = time.Minute
	c := newReadCache(1<<20, ttl)
	fresh, old := docKey("alice", "foo", ""), docKey("alice", "bar", "")
	c.putDoc(fresh, cachedVersion("1.0.0", 10), c.gen(), clock())
	c.putDoc(old, cachedVersion("1.0.0", 10), c.gen(), clock()-ttl+30*time.Millisecond)
	if _, ok := c.doc(fresh); !ok {
		t.Fatal("a fresh entry was not served")
	}
	time.Sleep(60 * time.Millisecond)
	if _, ok := c.doc(old); ok {
		t.Error("an entry older than its ttl was served")
	}
	if _, ok := c.doc(fresh); !ok {
		t.Error("an entry younger than its ttl was not served")
	}
	c.putDoc(old, cachedVersion("1.0.0", 10), c.gen(), clock()-2*ttl)
	if _, ok := c.doc(old); ok {
		t.Error("an entry read longer ago than its ttl was stored and served")
	}
}

// A client reading every document in turn, more of them than the cache
// holds, while others keep asking for a few hot ones: the full cache never
// evicts a hot document for one of the sweep's, and between the sweep's
// own takes in one miss in admission.OneIn, so the hot documents stay in
// memory and the sweep itself is served from memory about as often as the
// cache's share of it. A plain LRU (every miss taken in) loses both.
func TestReadCacheKeepsItsHotDocumentsThroughASweep(t *testing.T) {
	const (
		budget = 64 << 10 // 18 documents of 3,000 bytes
		hot    = 8
		sweep  = 180 // ten times what the cache holds
	)
	run := func(admit admission.Policy) (hotHits, sweepHits int) {
		c := newReadCache(budget, 0)
		c.admit = admit
		read := func(key docID) bool {
			if _, ok := c.doc(key); ok {
				return true
			}
			c.putDoc(key, cachedVersion("1.0.0", 3000), c.gen(), clock())
			return false
		}
		for round := range 20 {
			for i := range sweep {
				if read(docKey("mirror", fmt.Sprintf("pack-%03d", i), "")) && round > 0 {
					sweepHits++
				}
				if i%2 == 0 && read(docKey("alice", fmt.Sprintf("hot-%d", i/2%hot), "")) && round > 0 {
					hotHits++
				}
			}
			if c.bytes > budget {
				t.Fatalf("the cache holds %d bytes, over its budget of %d", c.bytes, budget)
			}
		}
		return hotHits, sweepHits
	}
	// After the first round: the sweep's reads, and the hot documents'.
	const reads, hotReads = 19 * sweep, 19 * sweep / 2
	rng := rand.New(rand.NewPCG(1, 2))
	filter := admission.NewFilter(budget / 1024)
	filter.Coin = func() bool { return rng.Uint32N(admission.OneIn) == 0 }
	hotHits, sweepHits := run(filter)
	if hotHits != hotReads {
		t.Errorf("hot documents served from memory %d times in %d, want every time", hotHits, hotReads)
	}
	// The cache has room for 10 of the sweep's 180 documents beside the hot ones.
	if sweepHits < reads*3/100 {
		t.Errorf("the sweep was served from memory %d times in %d, want at least 3%%", sweepHits, reads)
	}
	lruHot, lruSweep := run(admission.Always)
	if lruHot > hotReads/10 || lruSweep != 0 {
		t.Errorf("a plain LRU served the hot documents %d times and the sweep %d times: this test no longer tells the two apart",
			lruHot, lruSweep)
	}
}

// BenchmarkReadCacheAdmission runs a 16 MiB read cache through a sweep of
// ten times what it holds, beside sets of hot documents read more or less
// often, and one that moves to other documents every round, and reports
// the share of each read from memory: with the admission.Filter, and with
// its coin alone (one miss in admission.OneIn taken in, whatever it
// evicts). docs/design.md (Caches) gives the figures.
func BenchmarkReadCacheAdmission(b *testing.B) {
	const budget, sweep, rounds = 16 << 20, 48000, 4
	cases := []struct {
		name          string
		hot, hotEvery int
		moves         bool
	}{
		{"sweep-only", 0, 1, false},
		{"200-hot-every-2nd", 200, 2, false},
		{"2000-hot-every-4th", 2000, 4, false},
		{"1000-hot-every-8th", 1000, 8, false},
		{"1000-hot-moving", 1000, 2, true},
	}
	for _, tc := range cases {
		for _, policy := range []string{"filter", "coin"} {
			b.Run(tc.name+"/"+policy, func(b *testing.B) {
				var hotShare, sweepShare float64
				for b.Loop() {
					rng := rand.New(rand.NewPCG(1, 2))
					coin := func() bool { return rng.Uint32N(admission.OneIn) == 0 }
					c := newReadCache(budget, 0)
					if policy == "coin" {
						c.admit = coinOnly(coin)
					} else {
						f := admission.NewFilter(budget / 1024)
						f.Coin = coin
						c.admit = f
					}
					read := func(key docID) bool {
						if _, ok := c.doc(key); ok {
							return true
						}
						c.putDoc(key, cachedVersion("1.0.0", 3000), c.gen(), clock())
						return false
					}
					var hotHits, hotReads, sweepHits, sweepReads int
					for round := range rounds {
						hotRound := 0
						if tc.moves {
							hotRound = round
						}
						for i := range sweep {
							hit := read(docKey("mirror", fmt.Sprintf("pack-%06d", i), ""))
							if round > 0 {
								sweepReads++
								sweepHits += b2i(hit)
							}
							if tc.hot > 0 && i%tc.hotEvery == 0 {
								hit := read(docKey("alice", fmt.Sprintf("hot-%d-%d", hotRound, i/tc.hotEvery%tc.hot), ""))
								if round > 0 {
									hotReads++
									hotHits += b2i(hit)
								}
							}
						}
					}
					hotShare = 100 * float64(hotHits) / float64(max(hotReads, 1))
					sweepShare = 100 * float64(sweepHits) / float64(sweepReads)
				}
				b.ReportMetric(hotShare, "%hot-from-memory")
				b.ReportMetric(sweepShare, "%sweep-from-memory")
			})
		}
	}
}

// coinOnly takes in one miss in admission.OneIn, whatever it evicts: the
// policy before admission.Filter compared counts.
type coinOnly func() bool

func (coinOnly) Record(uint64)                           {}
func (coinOnly) Hit(*admission.Tally)                    {}
func (coinOnly) Start(uint64) admission.Tally            { return admission.Tally{} }
func (c coinOnly) Admit(uint64, []*admission.Tally) bool { return c() }

// BenchmarkReadCacheHits reads documents that are all in a 16 MiB cache,
// in turn, as the raw path's hits do: a look-up's cost where its memory
// (map, list, sketch) is no longer in the processor's caches between two
// reads of one document.
func BenchmarkReadCacheHits(b *testing.B) {
	for _, n := range []int{100, 4000} {
		b.Run(fmt.Sprintf("%d-docs", n), func(b *testing.B) {
			c := newReadCache(16<<20, 0)
			keys := make([]docID, n)
			for i := range keys {
				keys[i] = docKey("owner", fmt.Sprintf("pack-%06d", i), "")
				c.putDoc(keys[i], cachedVersion("1.0.0", 3000), c.gen(), clock())
			}
			i := 0
			for b.Loop() {
				if _, ok := c.doc(keys[i]); !ok {
					b.Fatal("a miss")
				}
				if i++; i == n {
					i = 0
				}
			}
		})
	}
}

// BenchmarkReadCacheLargestAdmission measures the worst a miss asks of a
// full cache: 16 MiB of the smallest entries (a 64-byte document counts
// about 600 bytes), and a miss of the largest document it keeps (an
// eighth of it) that the admission filter lets in, which walks the least
// recently used end through thousands of entries and evicts them. Each
// iteration is one such admission, and the small entries put back.
func BenchmarkReadCacheLargestAdmission(b *testing.B) {
	const budget = 16 << 20
	c := newReadCache(budget, 0)
	c.admit = admission.Always
	tiny := cachedVersion("1.0.0", 64)
	next := 0
	fill := func() {
		for c.bytes+700 < budget {
			c.putDoc(docKey("mallory", fmt.Sprintf("tiny-%07d", next), ""), tiny, c.gen(), clock())
			next++
		}
	}
	fill()
	big := cachedVersion("1.0.0", budget/8-1024)
	walked := 0
	for b.Loop() {
		before := c.lru.Len()
		b.StopTimer()
		key := docKey("mallory", fmt.Sprintf("big-%07d", next), "")
		next++
		b.StartTimer()
		c.putDoc(key, big, c.gen(), clock())
		walked += before + 1 - c.lru.Len()
		b.StopTimer()
		c.remove(c.docs[admission.Hash(key)])
		fill()
		b.StartTimer()
	}
	b.ReportMetric(float64(walked)/float64(b.N), "evicted/op")
}

// doc is find for the tests that ask only whether a document is kept.
func (c *readCache) doc(key docID) (*registry.Version, bool) {
	v, _ := c.find(key)
	return v, v != nil
}
