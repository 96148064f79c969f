package server

import (
	"fmt"
	"testing"
)

// The tile cache stays within its bytes, dropping the least recently used
// tiles first, and refuses a tile too large to share the cache.
func TestTileCacheBounds(t *testing.T) {
	c := newTileCache(1000)
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
