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
// round again and serves none of them. The full cache, which between the
// walk's own tiles takes in one miss in admission.OneIn, serves nearly its
// share of the walk; the partial tile every monitor asks for (the right
// edge) stays, and so do the full tiles many ask for, which no tile of the
// walk evicts.
func TestTileCacheServesAWalkOfTheWholeLog(t *testing.T) {
	const tiles, size, hot = 200, 100, 40 // the cache holds 100
	walk := func(admit admission.Policy) (walkHits, edgeHits, hotHits int) {
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
				// Those the first round evicted before they were known
				// hot are back at their next miss.
				if i%2 == 0 && get(fmt.Sprintf("tile/1/%03d", i/2%hot)) && round > 1 {
					hotHits++
				}
			}
		}
		return walkHits, edgeHits, hotHits
	}
	rng := rand.New(rand.NewPCG(3, 4))
	filter := admission.NewFilter(tiles / 2 * size / 4096)
	filter.Coin = func() bool { return rng.Uint32N(admission.OneIn) == 0 }
	walkHits, edgeHits, hotHits := walk(filter)
	const reads, edgeReads, hotReads = 19 * tiles, 19 * tiles / 10, 18 * tiles / 2
	// The walk shares the cache with 41 hot tiles: 59 of its 200 fit.
	if walkHits < reads*25/100 {
		t.Errorf("the walk was served from memory %d times in %d, want at least 25%%", walkHits, reads)
	}
	if edgeHits < edgeReads*95/100 {
		t.Errorf("the right edge was served from memory %d times in %d, want at least 95%%", edgeHits, edgeReads)
	}
	if hotHits != hotReads {
		t.Errorf("the hot full tiles were served from memory %d times in %d, want every time", hotHits, hotReads)
	}
	if lruWalk, _, _ := walk(admission.Always); lruWalk != 0 {
		t.Errorf("a plain LRU served the walk %d times: this test no longer tells the two apart", lruWalk)
	}
}

// A full cache that takes in no new full tile (none was asked for before,
// and the coin says no) still takes in a partial one: the log's right edge, whose path changes as the log grows and which
// every monitor polls.
func TestTileCacheAlwaysTakesInPartialTiles(t *testing.T) {
	c := newTileCache(1000)
	refuse := admission.NewFilter(1)
	refuse.Coin = func() bool { return false }
	c.admit = refuse
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
