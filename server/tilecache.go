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
// leave when the cache holds more than its bytes. A full cache takes in
// one full tile in admission.OneIn, so a client walking the whole log
// does not flush the tiles every monitor asks for; partial tiles (the
// right edge) are always taken in.
type tileCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // front: most recently used
	byPath   map[string]*list.Element
	admit    admission.Policy
	// hits and misses count get's answers, under mu.
	hits, misses uint64
}

type cachedTile struct {
	path string
	data []byte
	full bool
}

// maxTileCacheBytes holds 64 full entry bundles of 1 KB entries, or 2,000
// full hash tiles.
const maxTileCacheBytes = 16 << 20

func newTileCache(maxBytes int) *tileCache {
	return &tileCache{maxBytes: maxBytes, order: list.New(), byPath: map[string]*list.Element{}, admit: admission.Random}
}

func (c *tileCache) get(path string) (*cachedTile, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byPath[path]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(e)
	return e.Value.(*cachedTile), true
}

func (c *tileCache) put(t *cachedTile) {
	if len(t.data) > c.maxBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byPath[t.path]; ok {
		return
	}
	// Partial tiles are the log's right edge, which monitors poll and
	// whose path changes as the log grows: always taken in, as before.
	if t.full && c.bytes+len(t.data) > c.maxBytes && !c.admit() {
		return
	}
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

// stats counts the cache's answers.
func (c *tileCache) stats() registry.CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return registry.CacheStats{Hits: c.hits, Misses: c.misses, Bytes: int64(c.bytes), MaxBytes: int64(c.maxBytes)}
}
