package render_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/pact-registry/pact/server/render"
)

func TestCacheReturnsTheSameRendering(t *testing.T) {
	cache := render.NewCache(1 << 20)
	for _, d := range []string{"# one", "# two", "# three", "# one"} {
		if got, want := cache.Markdown([]byte(d)), render.Markdown([]byte(d)); got != want {
			t.Errorf("cache.Markdown(%q) = %q, want %q", d, got, want)
		}
	}
	if n := cache.Renders(); n != 3 {
		t.Errorf("%d renders for 3 documents, one viewed twice", n)
	}
}

// The cache holds at most its bound in bytes whatever the sizes of the
// documents, keeps a document viewed again and again, and never keeps a
// rendering larger than its bound.
func TestCacheIsBoundedInBytes(t *testing.T) {
	const bound = 64 << 10
	cache := render.NewCache(bound)
	doc := func(i, size int) []byte {
		return []byte(fmt.Sprintf("# doc %d\n\n%s\n", i, strings.Repeat("word ", size/5)))
	}
	popular := doc(-1, 2000)
	for i := range 200 {
		cache.Markdown(doc(i, 1000+(i%7)*1500))
		cache.Markdown(popular)
		if b := cache.Bytes(); b > bound {
			t.Fatalf("after %d documents the cache holds %d bytes, over its bound of %d", i+1, b, bound)
		}
	}
	if n := cache.Len(); n < 5 || n > 60 {
		t.Errorf("the cache holds %d documents of 1-10 KB in %d bytes", n, bound)
	}
	if b := cache.Bytes(); b < bound/2 {
		t.Errorf("the cache holds only %d of its %d bytes", b, bound)
	}
	renders := cache.Renders()
	cache.Markdown(popular)
	if cache.Renders() != renders {
		t.Error("the document viewed after every other one was rendered again")
	}

	// A rendering larger than the whole bound is not kept.
	huge := doc(1000, 2*bound)
	cache.Markdown(huge)
	cache.Markdown(huge)
	if cache.Renders() != renders+2 {
		t.Errorf("a rendering over the bound was cached")
	}
	if cache.Bytes() > bound {
		t.Errorf("caching an oversized rendering took the cache over its bound: %d bytes", cache.Bytes())
	}
}

// Many concurrent views of a document that is not cached render it once.
func TestCacheRendersConcurrentMissesOnce(t *testing.T) {
	cache := render.NewCache(16 << 20)
	// Slow enough to render that the views overlap.
	src := []byte(strings.Repeat(table(20, 2000)+"\n", 2))
	const views = 32
	start := make(chan struct{})
	var wg sync.WaitGroup
	outs := make([]string, views)
	for i := range views {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			outs[i] = string(cache.Markdown(src))
		}()
	}
	close(start)
	wg.Wait()
	if n := cache.Renders(); n != 1 {
		t.Errorf("%d concurrent views of one document rendered it %d times, want once", views, n)
	}
	for i, out := range outs {
		if out != outs[0] || !strings.Contains(out, "<table>") {
			t.Fatalf("view %d got a different or unrendered page (%d bytes)", i, len(out))
		}
	}
}
