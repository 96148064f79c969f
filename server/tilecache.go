package server

import (
	"container/list"
	"sync"
)

// tileCache keeps the log tiles this process served, by path. A tile's
// bytes never change once it exists, partial tiles included (a partial
// tile of width W holds the first W items of its tile, and the log only
// grows), so nothing is ever invalidated: the least recently used tiles
// leave when the cache holds more than its bytes.
type tileCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // front: most recently used
	byPath   map[string]*list.Element
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
	return &tileCache{maxBytes: maxBytes, order: list.New(), byPath: map[string]*list.Element{}}
}

func (c *tileCache) get(path string) (*cachedTile, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byPath[path]
	if !ok {
		return nil, false
	}
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
