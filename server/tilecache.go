package server

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/pact-registry/pact/server/internal/admission"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// tileCache keeps the log tiles this process served, by path. A tile's
// bytes never change once it exists, partial tiles included (a partial
// tile of width W holds the first W items of its tile, and the log only
// grows), so nothing is ever invalidated: the least recently used tiles
// leave when the cache holds more than its bytes, each tile counted with
// tileOverhead beside its data.
//
// Full and partial tiles have budgets of their own. A full cache takes in
// a full tile only as an admission.Filter says (not when it was asked for
// less often lately than a tile it would evict; between equals one in
// admission.OneIn), so a client walking the whole log does not flush the
// tiles every monitor asks for. Partial tiles are always taken in, into
// an eighth of the bytes: the right edge, whose path changes as the log
// grows, is what monitors poll. Any partial tile of any width of a tile
// the tree holds can be asked for, though, and a sweep through them
// (hundreds for every full tile, down to 32 bytes each) only churns that
// eighth (docs/design.md, The transparency log).
type tileCache struct {
	mu            sync.Mutex
	full, partial tileSegment
	byPath        map[string]*list.Element
	admit         admission.Policy // every look-up is recorded in it
	// hits and misses count get's answers, under mu.
	hits, misses uint64
}

// tileSegment is one budget of the cache: its tiles, most recently used
// first.
type tileSegment struct {
	order           *list.List // of *cachedTile
	bytes, maxBytes int
}

type cachedTile struct {
	path string
	// hash (the path's), size and tally are set by put, and the tally
	// kept under the cache's lock.
	hash  uint64
	size  int
	tally admission.Tally
	data  []byte
	full  bool
	// gz is data gzip-compressed, made for the first client that takes it
	// (an entry bundle's, logTile), and counted in size from then on.
	gz atomic.Pointer[[]byte]
}

// tileOverhead is what a cached tile takes beside its data and path: the
// cachedTile, its list element and its map entry. A partial hash tile may
// hold a single 32-byte hash.
const tileOverhead = 256

// maxTileCacheBytes holds, in the seven eighths for full tiles, 64 full
// entry bundles of 1 KB entries, or 2,000 full hash tiles (8 KB each, and
// tileOverhead); in the eighth for partial tiles, 2.4 MiB, every right edge
// many times over.
const maxTileCacheBytes = 19 << 20

func newTileCache(maxBytes int) *tileCache {
	partial := maxBytes / 8
	return &tileCache{
		full:    tileSegment{order: list.New(), maxBytes: maxBytes - partial},
		partial: tileSegment{order: list.New(), maxBytes: partial},
		byPath:  map[string]*list.Element{},
		admit:   admission.NewFilter(maxBytes / 4096),
	}
}

func (c *tileCache) segment(t *cachedTile) *tileSegment {
	if t.full {
		return &c.full
	}
	return &c.partial
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
	c.segment(t).order.MoveToFront(e)
	return t, true
}

func (c *tileCache) put(t *cachedTile) {
	t.size = len(t.data) + len(t.path) + tileOverhead
	seg := c.segment(t)
	if t.size > seg.maxBytes/4 {
		return
	}
	t.hash = admission.HashString(t.path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byPath[t.path]; ok {
		return
	}
	if t.full && seg.bytes+t.size > seg.maxBytes && !c.admit.Admit(t.hash, admission.Victims(seg.order, int64(seg.bytes+t.size-seg.maxBytes), tileTally)) {
		return
	}
	t.tally = c.admit.Start(t.hash)
	c.byPath[t.path] = seg.order.PushFront(t)
	seg.bytes += t.size
	c.evict(seg)
}

// evict drops seg's least recently used tiles until it fits its budget.
// The caller holds mu.
func (c *tileCache) evict(seg *tileSegment) {
	for seg.bytes > seg.maxBytes {
		last := seg.order.Back()
		old := last.Value.(*cachedTile)
		seg.order.Remove(last)
		delete(c.byPath, old.path)
		seg.bytes -= old.size
	}
}

// gzipped answers t's data gzip-compressed, made once: a tile in the cache
// keeps it, and the cache counts it in the tile's size.
func (c *tileCache) gzipped(t *cachedTile) []byte {
	if gz := t.gz.Load(); gz != nil {
		return *gz
	}
	gz := httpx.Gzip(nil, t.data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept := t.gz.Load(); kept != nil {
		return *kept // another request made it meanwhile
	}
	t.gz.Store(&gz)
	if e, ok := c.byPath[t.path]; ok && e.Value.(*cachedTile) == t {
		seg := c.segment(t)
		t.size += len(gz)
		seg.bytes += len(gz)
		c.evict(seg)
	}
	return gz
}

// tileTally is what admission.Victims asks of a tile.
func tileTally(t *cachedTile) (*admission.Tally, int64) { return &t.tally, int64(t.size) }

// stats counts the cache's answers.
func (c *tileCache) stats() registry.CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return registry.CacheStats{Hits: c.hits, Misses: c.misses, Bytes: int64(c.full.bytes + c.partial.bytes),
		MaxBytes: int64(c.full.maxBytes + c.partial.maxBytes)}
}
