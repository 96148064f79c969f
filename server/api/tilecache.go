package api

import (
	"strings"
	"sync/atomic"

	"github.com/maypok86/otter/v2"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// tileCache keeps the log tiles this process served, by path. A tile's
// bytes never change once it exists, partial tiles included (a partial
// tile of width W holds the first W items of its tile, and the log only
// grows), so nothing is ever invalidated.
//
// Full and partial tiles have budgets of their own, each an otter cache
// bounded by bytes (each tile counted with tileOverhead beside its data
// and path) that admits by frequency (W-TinyLFU), so a client walking the
// whole log does not flush the tiles every monitor asks for. Partial tiles
// have an eighth of the bytes: the right edge, whose path changes as the
// log grows, is what monitors poll; any partial tile of any width of a
// tile the tree holds can be asked for, though, and a sweep through them
// (hundreds for every full tile, down to 32 bytes each) only churns that
// eighth (docs/design.md, The transparency log).
type tileCache struct {
	full, partial *otter.Cache[string, *cachedTile]
	maxBytes      int
	// hits and misses count get's answers.
	hits, misses atomic.Uint64
}

type cachedTile struct {
	path string
	data []byte
	full bool
	// gz is data gzip-compressed, made for the first client that takes it
	// (an entry bundle's, logTile), and weighed with the tile from then on.
	gz atomic.Pointer[[]byte]
}

// tileOverhead is what a cached tile takes beside its data and path: the
// cachedTile and otter's node. A partial hash tile may hold a single
// 32-byte hash.
const tileOverhead = 256

// maxTileCacheBytes holds, in the seven eighths for full tiles, 64 full
// entry bundles of 1 KB entries, or 2,000 full hash tiles (8 KB each, and
// tileOverhead); in the eighth for partial tiles, 2.4 MiB, every right edge
// many times over.
const maxTileCacheBytes = 19 << 20

func newTileCache(maxBytes int) *tileCache {
	segment := func(bytes int) *otter.Cache[string, *cachedTile] {
		return otter.Must(&otter.Options[string, *cachedTile]{
			MaximumWeight: uint64(bytes),
			Weigher:       func(_ string, t *cachedTile) uint32 { return uint32(t.size()) },
		})
	}
	partial := maxBytes / 8
	return &tileCache{full: segment(maxBytes - partial), partial: segment(partial), maxBytes: maxBytes}
}

func (t *cachedTile) size() int {
	n := len(t.data) + len(t.path) + tileOverhead
	if gz := t.gz.Load(); gz != nil {
		n += len(*gz)
	}
	return n
}

// segment is the cache of the tiles at path: ".p/" marks a partial one.
func (c *tileCache) segment(path string) *otter.Cache[string, *cachedTile] {
	if strings.Contains(path, ".p/") {
		return c.partial
	}
	return c.full
}

func (c *tileCache) get(path string) (*cachedTile, bool) {
	t, ok := c.segment(path).GetIfPresent(path)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return t, ok
}

func (c *tileCache) put(t *cachedTile) {
	seg := c.segment(t.path)
	if uint64(t.size()) > seg.GetMaximum()/4 {
		return // it would crowd out many others
	}
	seg.SetIfAbsent(t.path, t)
}

// gzipped answers t's data gzip-compressed, made once: a tile in the cache
// keeps it, set again so that otter weighs it with its gzip form.
func (c *tileCache) gzipped(t *cachedTile) []byte {
	if gz := t.gz.Load(); gz != nil {
		return *gz
	}
	gz := httpx.Gzip(nil, t.data)
	if !t.gz.CompareAndSwap(nil, &gz) {
		return *t.gz.Load() // another request made it meanwhile
	}
	seg := c.segment(t.path)
	if kept, ok := seg.GetIfPresent(t.path); ok && kept == t {
		seg.Set(t.path, t)
	}
	return gz
}

// stats counts the cache's answers.
func (c *tileCache) stats() registry.CacheStats {
	return registry.CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(),
		Bytes: int64(c.full.WeightedSize() + c.partial.WeightedSize()), MaxBytes: int64(c.maxBytes)}
}
