package api

import (
	"fmt"
	"strings"
	"testing"
)

// The tile cache stays within its bytes, each tile counted with its path
// and tileOverhead, and refuses a tile too large to share the cache.
// (Which tiles stay is otter's policy, which has some randomness:
// TestTileCacheServesAWalkOfTheWholeLog holds it to keeping hot ones.)
func TestTileCacheBounds(t *testing.T) {
	c := newTileCache(8000) // 7,000 bytes for full tiles: five of these
	for i := range 10 {
		c.put(&cachedTile{path: fmt.Sprintf("tile/0/%03d", i), data: make([]byte, 1000), full: true})
	}
	c.full.CleanUp()
	if st := c.stats(); st.Bytes > 8000 || c.full.WeightedSize() > 7000 || c.full.EstimatedSize() > 5 {
		t.Errorf("the cache holds %d tiles, %d bytes (%d of full tiles), want at most 5 within 8,000 (7,000)",
			c.full.EstimatedSize(), st.Bytes, c.full.WeightedSize())
	}
	c.put(&cachedTile{path: "tile/entries/000", data: make([]byte, 1600), full: true})
	if _, ok := c.get("tile/entries/000"); ok {
		t.Error("a tile of more than a quarter of the cache was kept")
	}
}

// Any partial tile of any tile the tree holds may be asked for: hundreds
// for every full tile, the smallest a single 32-byte hash. A sweep through
// them keeps to the partial tiles' eighth of the cache, counted with what
// each entry takes beside its data, evicts no full tile, and a partial
// tile is taken in however full the full tiles' share is.
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
	c.partial.CleanUp()
	if got := c.partial.WeightedSize(); got > 8<<10 || c.stats().Bytes > 64<<10 {
		t.Errorf("partial tiles hold %d bytes (want at most 8 KiB), the cache %d (want at most 64 KiB)", got, c.stats().Bytes)
	}
	if partials := c.partial.EstimatedSize(); partials > (8<<10)/tileOverhead {
		t.Errorf("%d partial tiles kept in 8 KiB: their overhead is not counted", partials)
	}
	// The right edge, a new path as the log grows, is kept once monitors
	// have asked for it a few times. How many is otter's admission (TinyLFU
	// weighs the newcomer's count against the victim's, both estimates of a
	// hashed sketch): usually three asks, but a whole-suite run under -race
	// once needed more, so the edge has sixteen.
	asks := 0
	for ; asks < 16; asks++ {
		if _, ok := c.get("tile/0/edge.p/7"); ok {
			break
		}
		c.put(&cachedTile{path: "tile/0/edge.p/7", data: make([]byte, 200)})
	}
	if asks == 16 {
		t.Error("the right edge, asked for sixteen times, is not kept")
	}
}

// A client walking the whole log, twice as many tiles as the cache holds,
// round after round: a plain LRU evicts each tile just before it comes
// round again. The partial tile every monitor asks for (the right edge)
// stays, and so do the full tiles many ask for, which no tile of the walk
// evicts.
func TestTileCacheServesAWalkOfTheWholeLog(t *testing.T) {
	const tiles, size, hot = 200, 1000, 40
	// Full tiles have seven eighths of the cache: room for 100 of them.
	const cacheBytes = tiles / 2 * (size + len("tile/0/000") + tileOverhead) * 8 / 7
	c := newTileCache(cacheBytes)
	get := func(path string) bool {
		if _, ok := c.get(path); ok {
			return true
		}
		c.put(&cachedTile{path: path, data: make([]byte, size), full: !strings.Contains(path, ".p/")})
		return false
	}
	var edgeHits, hotHits int
	for round := range 20 {
		for i := range tiles {
			get(fmt.Sprintf("tile/0/%03d", i))
			if i%10 == 0 && get("tile/0/edge.p/17") && round > 0 {
				edgeHits++
			}
			if i%2 == 0 && get(fmt.Sprintf("tile/1/%03d", i/2%hot)) && round > 1 {
				hotHits++
			}
		}
	}
	const edgeReads, hotReads = 19 * tiles / 10, 18 * tiles / 2
	if edgeHits < edgeReads*95/100 {
		t.Errorf("the right edge was served from memory %d times in %d, want at least 95%%", edgeHits, edgeReads)
	}
	// otter's admission has some randomness (against hash flooding): in
	// 30 runs under -race the hot tiles came from memory 90-100% of the
	// time; a plain LRU serves them none.
	if hotHits < hotReads*80/100 {
		t.Errorf("the hot full tiles were served from memory %d times in %d, want at least 80%%", hotHits, hotReads)
	}
}
