package render

import (
	"strings"
	"testing"
	"time"
)

// While every rendering slot is taken, a view of a document nobody has
// rendered yet waits at most RenderWait and then shows the text; the
// formatted page comes once a slot is free, and only that one is cached.
func TestBusyRenderersShowTheTextAndCacheNothing(t *testing.T) {
	c := NewCache(1 << 20)
	for range cap(c.slots) {
		c.slots <- struct{}{} // renderings of other documents, under way
	}
	doc := []byte("# Title\n\n*formatted*\n")

	start := time.Now()
	busy := string(c.Markdown(doc))
	waited := time.Since(start)
	if !strings.Contains(busy, "busy rendering other documents") || !strings.Contains(busy, "*formatted*") {
		t.Fatalf("with every slot taken the page is %q, want the text under a busy note", busy)
	}
	if waited < RenderWait || waited > RenderWait+5*time.Second {
		t.Errorf("waited %v for a slot, want about %v", waited, RenderWait)
	}
	if c.Len() != 0 || c.Renders() != 0 {
		t.Errorf("the busy answer was cached or counted: %d entries, %d renders", c.Len(), c.Renders())
	}

	for range cap(c.slots) {
		<-c.slots
	}
	if got := string(c.Markdown(doc)); !strings.Contains(got, "<em>formatted</em>") {
		t.Errorf("with a slot free the page is %q, want it formatted", got)
	}
	if c.Len() != 1 || c.Renders() != 1 {
		t.Errorf("after one real rendering: %d entries, %d renders, want 1 and 1", c.Len(), c.Renders())
	}
}
