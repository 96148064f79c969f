package server

import (
	"container/list"
	"sync"

	"github.com/pact-registry/pact/server/internal/admission"
	"github.com/pact-registry/pact/server/registry"
)

// tileCache keeps the log tiles this process served, by path. A tile's
// bytes never change once it exists, partial tiles included (a partial
// tile of width W holds the first W items of its tile, and the log only
// grows), so nothing is ever invalidated: the least recently used tiles
// leave when the cache holds more than its bytes. A full cache takes in a
// full tile only as an admission.Filter says (not when it was asked for
// less often lately than a tile it would evict; between equals one in
// admission.OneIn), so a client walking the whole log does not flush the
// tiles every monitor asks for; partial tiles (the right edge) are always
// taken in.
type tileCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // front: most recently used
	byPath   map[string]*list.Element
	admit    admission.Policy // every look-up is recorded in it
	// hits and misses count get's answers, under mu.
	hits, misses uint64
}

type cachedTile struct {
	path string
	// hash (the path's) and tally are set by put, and the tally kept
	// under the cache's lock.
	hash  uint64
	tally admission.Tally
	data  []byte
	full  bool
}

// maxTileCacheBytes holds 64 full entry bundles of 1 KB entries, or 2,000
// full hash tiles.
const maxTileCacheBytes = 16 << 20

func newTileCache(maxBytes int) *tileCache {
	return &tileCache{maxBytes: maxBytes, order: list.New(), byPath: map[string]*list.Element{}, admit: admission.NewFilter(maxBytes / 4096)}
}

func (c *tileCache) get(path string) (*cachedTile, bool) {
	hash := admission.HashString(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.admit.Record(hash)
	e, ok := c.byPath[path]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	t := e.Value.(*cachedTile)
	c.admit.Hit(&t.tally)
	c.order.MoveToFront(e)
	return t, true
}

func (c *tileCache) put(t *cachedTile) {
	if len(t.data) > c.maxBytes/4 {
		return
	}
	t.hash = admission.HashString(t.path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byPath[t.path]; ok {
		return
	}
	// Partial tiles are the log's right edge, which monitors poll and
	// whose path changes as the log grows: always taken in, as before.
	if t.full && c.bytes+len(t.data) > c.maxBytes && !c.admit.Admit(t.hash, admission.Victims(c.order, int64(c.bytes+len(t.data)-c.maxBytes), tileTally)) {
		return
	}
	t.tally = c.admit.Start(t.hash)
	c.byPath[t.path] = c.order.PushFront(t)
	c.bytes += len(t.data)
	for c.bytes > c.maxBytes {
		last := c.order.Back()
		old := last.Value.(*cachedTile)
		c.order.Remove(last)
		delete(c.byPath, old.path)
		c.bytes -= len(old.data)
	}
}

// tileTally is what admission.Victims asks of a tile.
func tileTally(t *cachedTile) (*admission.Tally, int64) { return &t.tally, int64(len(t.data)) }

// stats counts the cache's answers.
func (c *tileCache) stats() registry.CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return registry.CacheStats{Hits: c.hits, Misses: c.misses, Bytes: int64(c.bytes), MaxBytes: int64(c.maxBytes)}
}
