package server

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/internal/admission"
)

// The tile cache stays within its bytes, each tile counted with its path
// and tileOverhead, dropping the least recently used tiles first (every
// miss taken in, to see the order), and refuses a tile too large to share
// the cache.
func TestTileCacheBounds(t *testing.T) {
	c := newTileCache(8000) // 7,000 bytes for full tiles: five of these
	c.admit = admission.Always
	for i := range 10 {
		c.put(&cachedTile{path: fmt.Sprintf("tile/0/%03d", i), data: make([]byte, 1000), full: true})
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
	if st := c.stats(); st.Bytes > 8000 || c.full.bytes > 7000 || len(c.byPath) != 5 {
		t.Errorf("the cache holds %d tiles, %d bytes (%d of full tiles), want 5 within 8,000 (7,000)", len(c.byPath), st.Bytes, c.full.bytes)
	}
	if _, ok := c.get("tile/0/000"); ok {
		t.Error("tile 000 was kept although five newer ones were used since")
	}
	if _, ok := c.get("tile/0/009"); !ok {
		t.Error("the newest tile is not kept")
	}
	c.put(&cachedTile{path: "tile/entries/000", data: make([]byte, 1600), full: true})
	if _, ok := c.get("tile/entries/000"); ok {
		t.Error("a tile of more than a quarter of the cache was kept")
	}
}

// Any partial tile of any tile the tree holds may be asked for: hundreds
// for every full tile, the smallest a single 32-byte hash. A sweep through
// them keeps to the partial tiles' eighth of the cache, counted with what
// each entry takes beside its data, and evicts no full tile.
func TestTileCacheKeepsPartialTilesToAnEighth(t *testing.T) {
	c := newTileCache(64 << 10) // 8 KiB for partial tiles
	for i := range 20 {
		c.put(&cachedTile{path: fmt.Sprintf("tile/0/%03d", i), data: make([]byte, 2048), full: true})
	}
	for n := range 100 {
		for w := 1; w < 11; w++ {
			c.put(&cachedTile{path: fmt.Sprintf("tile/0/%03d.p/%d", n, w), data: make([]byte, 32*w)})
		}
	}
	for i := range 20 {
		if _, ok := c.get(fmt.Sprintf("tile/0/%03d", i)); !ok {
			t.Errorf("full tile %03d left for partial ones", i)
		}
	}
	if c.partial.bytes > 8<<10 || c.stats().Bytes > 64<<10 {
		t.Errorf("partial tiles hold %d bytes (want at most 8 KiB), the cache %d (want at most 64 KiB)", c.partial.bytes, c.stats().Bytes)
	}
	if partials := len(c.byPath) - 20; partials > (8<<10)/tileOverhead {
		t.Errorf("%d partial tiles kept in 8 KiB: their overhead is not counted", partials)
	}
	if _, ok := c.get("tile/0/099.p/10"); !ok {
		t.Error("the newest partial tile is not kept")
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
	const tiles, size, hot = 200, 1000, 40
	// Full tiles have seven eighths of the cache: room for 100 of them.
	const cacheBytes = tiles / 2 * (size + len("tile/0/000") + tileOverhead) * 8 / 7
	walk := func(admit admission.Policy) (walkHits, edgeHits, hotHits int) {
		c := newTileCache(cacheBytes)
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
	filter := admission.NewFilter(cacheBytes / 4096)
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
	c := newTileCache(16000) // 14,000 bytes for full tiles, 2,000 for partial ones
	refuse := admission.NewFilter(1)
	refuse.Coin = func() bool { return false }
	c.admit = refuse
	for i := range 5 {
		c.put(&cachedTile{path: fmt.Sprintf("tile/0/%03d", i), data: make([]byte, 2500), full: true})
	}
	c.put(&cachedTile{path: "tile/0/005", data: make([]byte, 2500), full: true})
	if _, ok := c.get("tile/0/005"); ok {
		t.Error("a full cache that admits nothing took in a full tile")
	}
	c.put(&cachedTile{path: "tile/0/005.p/7", data: make([]byte, 200)})
	if _, ok := c.get("tile/0/005.p/7"); !ok {
		t.Error("a full cache did not take in a partial tile")
	}
	if st := c.stats(); st.Bytes > 16000 {
		t.Errorf("the cache holds %d bytes, more than 16,000", st.Bytes)
	}
}
