package sqlstore

import (
	"fmt"
	"strings"
	"testing"
	"time"

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

// The cache holds at most its byte budget, filled with what fits; one
// document never takes more than an eighth of it. (Which documents stay is
// otter's policy: TestReadCacheKeepsItsHotDocumentsThroughASweep.)
func TestReadCacheStaysWithinItsBudget(t *testing.T) {
	const budget = 64 << 10
	c := newReadCache(budget, 0)
	keys := make([]docID, 40)
	for i := range keys {
		keys[i] = docKey("alice", "pack", string(rune('a'+i)))
		c.putDoc(keys[i], cachedVersion("1.0.0", 3000), c.gen(), clock())
	}
	c.docs.CleanUp()
	if got := c.bytes(); got > budget {
		t.Errorf("the cache holds %d bytes, over its budget of %d", got, budget)
	}
	kept := 0
	for _, key := range keys {
		if _, ok := c.doc(key); ok {
			kept++
		}
	}
	if kept < 10 {
		t.Errorf("the cache keeps %d documents of 3,000 bytes in %d bytes", kept, budget)
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
// holds, while others keep asking for a few hot ones: the hot documents
// stay in memory (otter admits by frequency, W-TinyLFU), where a plain LRU
// would evict each of them before it is asked for again.
func TestReadCacheKeepsItsHotDocumentsThroughASweep(t *testing.T) {
	const (
		budget = 64 << 10 // 18 documents of 3,000 bytes
		hot    = 8
		sweep  = 180 // ten times what the cache holds
	)
	c := newReadCache(budget, 0)
	read := func(key docID) bool {
		if _, ok := c.doc(key); ok {
			return true
		}
		c.putDoc(key, cachedVersion("1.0.0", 3000), c.gen(), clock())
		return false
	}
	hotHits := 0
	for round := range 20 {
		for i := range sweep {
			read(docKey("mirror", fmt.Sprintf("pack-%03d", i), ""))
			if i%2 == 0 && read(docKey("alice", fmt.Sprintf("hot-%d", i/2%hot), "")) && round > 0 {
				hotHits++
			}
		}
		c.docs.CleanUp()
		if got := c.bytes(); got > budget {
			t.Fatalf("the cache holds %d bytes, over its budget of %d", got, budget)
		}
	}
	// After the first round: the hot documents' reads.
	const hotReads = 19 * sweep / 2
	if hotHits < hotReads*95/100 {
		t.Errorf("hot documents served from memory %d times in %d, want at least 95%%", hotHits, hotReads)
	}
}

// BenchmarkReadCacheHits reads documents that are all in a 16 MiB cache,
// in turn, as the raw path's hits do: a look-up's cost where its memory
// (otter's table and policy) is no longer in the processor's caches between two
// reads of one document.
func BenchmarkReadCacheHits(b *testing.B) {
	for _, n := range []int{100, 3000} {
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

// doc is find for the tests that ask only whether a document is kept.
func (c *readCache) doc(key docID) (*registry.Version, bool) {
	v, _ := c.find(key)
	return v, v != nil
}
