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
	c := newReadCache(1<<20, 50*time.Millisecond)
	key := docKey("alice", "foo", "")
	c.putDoc(key, cachedVersion("1.0.0", 10), c.gen(), clock())
	if _, ok := c.doc(key); !ok {
		t.Fatal("a fresh entry was not served")
	}
	time.Sleep(60 * time.Millisecond)
	if _, ok := c.doc(key); ok {
		t.Error("an entry older than its ttl was served")
	}
	c.putDoc(key, cachedVersion("1.0.0", 10), c.gen(), clock()-time.Second)
	if _, ok := c.doc(key); ok {
		t.Error("an entry read longer ago than its ttl was stored and served")
	}
}

// A client reading every document in turn, more of them than the cache
// holds, while others keep asking for a few hot ones: the full cache takes
// in one miss in admission.OneIn, so the hot documents stay in memory and
// the sweep itself is served from memory about as often as the cache's
// share of it. A plain LRU (every miss taken in) loses both.
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
	hotHits, sweepHits := run(func() bool { return rng.Uint32N(admission.OneIn) == 0 })
	if hotHits < hotReads*95/100 {
		t.Errorf("hot documents served from memory %d times in %d, want at least 95%%", hotHits, hotReads)
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
