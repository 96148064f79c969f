package render

import (
	"crypto/sha256"
	"html/template"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/singleflight"
)

// DefaultCacheBytes is what pactd's page cache may hold: the rendered
// HTML of the documents viewed most recently.
const DefaultCacheBytes = 32 << 20

// RenderWait is how long a page view waits for a free rendering slot
// before it shows the document as text instead.
const RenderWait = time.Second

// renderSlots is how many documents render at once. Some markdown costs
// time that grows faster than its size (runs of emphasis delimiters), and a
// signed-up user can publish many different documents and view each once;
// this keeps such renders to half the machine, so raw documents, the API
// and cached pages keep their share of the CPU.
var renderSlots = max(1, runtime.GOMAXPROCS(0)/2)

var errBusy = &limitError{"pactd is busy rendering other documents right now (reload the page later for the formatted view)"}

// entryOverhead approximates what an entry costs besides its HTML: the
// key and otter's node.
const entryOverhead = 128

// Cache remembers rendered documents by the SHA-256 of their text:
// published versions never change, so a popular page is rendered once. It
// is an otter cache bounded by the bytes it holds, not by a number of
// documents, since one rendering may be a thousand times the size of
// another, and admitting by frequency (W-TinyLFU), so a crawler viewing
// every document once does not flush the popular ones. Concurrent views of
// one document that is not cached wait for a single rendering.
type Cache struct {
	maxBytes int
	entries  *otter.Cache[[sha256.Size]byte, template.HTML]

	flights singleflight.Group
	slots   chan struct{} // a token per rendering under way
	renders atomic.Int64
}

// NewCache returns a cache that holds at most maxBytes of rendered HTML.
func NewCache(maxBytes int) *Cache {
	return &Cache{maxBytes: maxBytes, slots: make(chan struct{}, renderSlots),
		entries: otter.Must(&otter.Options[[sha256.Size]byte, template.HTML]{
			MaximumWeight: uint64(maxBytes),
			Weigher:       func(_ [sha256.Size]byte, html template.HTML) uint32 { return uint32(entrySize(html)) },
		})}
}

func entrySize(html template.HTML) int { return len(html) + entryOverhead }

// Markdown is render.Markdown through the cache. When every rendering slot
// stays taken for RenderWait, the document is shown as escaped text under a
// note, and that answer is not cached.
func (c *Cache) Markdown(src []byte) template.HTML {
	key := sha256.Sum256(src)
	if out, ok := c.entries.GetIfPresent(key); ok {
		return out
	}
	v, _, _ := c.flights.Do(string(key[:]), func() (any, error) {
		// A flight that ended just before this one began has cached it.
		if out, ok := c.entries.GetIfPresent(key); ok {
			return out, nil
		}
		timer := time.NewTimer(RenderWait)
		defer timer.Stop()
		select {
		case c.slots <- struct{}{}:
			defer func() { <-c.slots }()
		case <-timer.C:
			return fallback(src, errBusy), nil
		}
		c.renders.Add(1)
		out := Markdown(src)
		if entrySize(out) <= c.maxBytes {
			c.entries.Set(key, out)
		}
		return out, nil
	})
	return v.(template.HTML)
}

// Renders is how many documents the cache has rendered, hits excluded.
func (c *Cache) Renders() int64 { return c.renders.Load() }

// Bytes is what the cache holds now, by the same measure as its bound.
func (c *Cache) Bytes() int {
	c.entries.CleanUp()
	return int(c.entries.WeightedSize())
}

// Len is the number of documents the cache holds.
func (c *Cache) Len() int {
	c.entries.CleanUp()
	return c.entries.EstimatedSize()
}
