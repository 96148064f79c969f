package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/internal/admission"
)

// The tile cache stays within its bytes, dropping the least recently used
// tiles first (every miss taken in, to see the order), and refuses a tile
// too large to share the cache.
func TestTileCacheBounds(t *testing.T) {
	c := newTileCache(1000)
	c.admit = admission.Always
	for i := range 10 {
		c.put(&cachedTile{path: fmt.Sprintf("tile/0/%03d", i), data: make([]byte, 200)})
		if i == 3 {
			c.get("tile/0/000") // used again: kept over 001
		}
		if i == 5 {
			if _, ok := c.byPath["tile/0/000"]; !ok {
				t.Error("tile 000, used again, left before 001")
			}
			if _, ok := c.byPath["tile/0/001"]; ok {
				t.Error("tile 001, the least recently used, is still kept")
			}
		}
	}
	if c.bytes > 1000 {
		t.Errorf("the cache holds %d bytes, more than 1000", c.bytes)
	}
	if _, ok := c.get("tile/0/000"); ok {
		t.Error("tile 000 was kept although five newer ones were used since")
	}
	if _, ok := c.get("tile/0/009"); !ok {
		t.Error("the newest tile is not kept")
	}
	c.put(&cachedTile{path: "tile/entries/000", data: make([]byte, 300)})
	if _, ok := c.get("tile/entries/000"); ok {
		t.Error("a tile of more than a quarter of the cache was kept")
	}
}

// A client walking the whole log, twice as many tiles as the cache holds,
// round after round: a plain LRU evicts each tile just before it comes
// round again and serves none of them; the full cache taking in one miss
// in admission.OneIn serves nearly half, and the partial tile every
// monitor asks for (the right edge) stays.
func TestTileCacheServesAWalkOfTheWholeLog(t *testing.T) {
	const tiles, size = 200, 100 // the cache holds 100
	walk := func(admit admission.Policy) (walkHits, edgeHits int) {
		c := newTileCache(tiles / 2 * size)
		c.admit = admit
		get := func(path string) bool {
			if _, ok := c.get(path); ok {
				return true
			}
			c.put(&cachedTile{path: path, data: make([]byte, size), full: !strings.Contains(path, ".p/")})
			return false
		}
		for round := range 20 {
			for i := range tiles {
				if get(fmt.Sprintf("tile/0/%03d", i)) && round > 0 {
					walkHits++
				}
				if i%10 == 0 && get("tile/0/edge.p/17") && round > 0 {
					edgeHits++
				}
			}
		}
		return walkHits, edgeHits
	}
	rng := rand.New(rand.NewPCG(3, 4))
	walkHits, edgeHits := walk(func() bool { return rng.Uint32N(admission.OneIn) == 0 })
	const reads, edgeReads = 19 * tiles, 19 * tiles / 10
	if walkHits < reads*40/100 {
		t.Errorf("the walk was served from memory %d times in %d, want at least 40%%", walkHits, reads)
	}
	if edgeHits < edgeReads*95/100 {
		t.Errorf("the right edge was served from memory %d times in %d, want at least 95%%", edgeHits, edgeReads)
	}
	if lruWalk, _ := walk(admission.Always); lruWalk != 0 {
		t.Errorf("a plain LRU served the walk %d times: this test no longer tells the two apart", lruWalk)
	}
}

// A full cache that takes in no new full tile still takes in a partial
// one: the log's right edge, whose path changes as the log grows and which
// every monitor polls.
func TestTileCacheAlwaysTakesInPartialTiles(t *testing.T) {
	c := newTileCache(1000)
	c.admit = func() bool { return false }
	for i := range 5 {
		c.put(&cachedTile{path: fmt.Sprintf("tile/0/%03d", i), data: make([]byte, 200), full: true})
	}
	c.put(&cachedTile{path: "tile/0/005", data: make([]byte, 200), full: true})
	if _, ok := c.get("tile/0/005"); ok {
		t.Error("a full cache that admits nothing took in a full tile")
	}
	c.put(&cachedTile{path: "tile/0/005.p/7", data: make([]byte, 200)})
	if _, ok := c.get("tile/0/005.p/7"); !ok {
		t.Error("a full cache did not take in a partial tile")
	}
	if c.bytes > 1000 {
		t.Errorf("the cache holds %d bytes, more than 1000", c.bytes)
	}
}
