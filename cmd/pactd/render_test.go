package main_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// wideTableDoc is a pack document whose table has a cols-column header
// and rows one-cell rows, which GFM pads to the header's width: about
// 3*cols bytes that once asked the renderer for cols*rows cells.
func wideTableDoc(name string, cols, rows int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n```yaml pact:pack\nname: %s\nversion: 1.0.0\n```\n\n", name, name)
	b.WriteString(strings.Repeat("|a", cols) + "|\n")
	b.WriteString(strings.Repeat("|-", cols) + "|\n")
	b.WriteString(strings.Repeat("|\n", rows))
	return b.String()
}

// One anonymous view of a small document with a huge padded table used to
// take pactd from 90 MB to 1.5 GB (2,000 × 2,000) or kill it (4,000 ×
// 4,000). Now the page answers at once with the document as text and a
// note, and pactd's peak RSS stays low.
func TestWideTablePageIsBounded(t *testing.T) {
	srv, token := startWithToken(t, "alice", filepath.Join(t.TempDir(), "pact.db"))
	user := newAPIUser(srv.URL, token, 8)
	anonymous := newAPIUser(srv.URL, "", 8)

	for _, size := range []int{2000, 4000} {
		name := fmt.Sprintf("wide-%d", size)
		doc := wideTableDoc(name, size, size)
		if status, body, err := user.publish(doc); err != nil || status != http.StatusCreated && status != http.StatusOK {
			t.Fatalf("publishing the %d-byte %d × %d document: status %d, error %v: %s", len(doc), size, size, status, err, body)
		}
		start := time.Now()
		status, _, body, err := anonymous.get("/alice/" + name)
		elapsed := time.Since(start)
		if err != nil || status != http.StatusOK {
			t.Fatalf("GET /alice/%s: status %d, error %v: %.300s", name, status, err, body)
		}
		page := string(body)
		if !strings.Contains(page, `class="render-note"`) || !strings.Contains(page, fmt.Sprintf("a table has %d columns", size)) {
			t.Errorf("the page of the %d × %d document has no note saying why it is shown as text", size, size)
		}
		if strings.Contains(page, "<table>\n<thead>\n<tr>\n<th>a</th>") {
			t.Errorf("the %d × %d table was rendered", size, size)
		}
		if len(body) > 4*len(doc)+64<<10 {
			t.Errorf("the page is %d bytes for a %d-byte document", len(body), len(doc))
		}
		// Generous: the machine is shared and tests may run under -race;
		// the page answers in milliseconds when it is quiet.
		if elapsed > 5*time.Second {
			t.Errorf("GET /alice/%s took %v", name, elapsed)
		}
		t.Logf("%d × %d (%d bytes): page of %d bytes in %v", size, size, len(doc), len(body), elapsed)
	}

	// Uncached, many at once: still one rendering each, still small.
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, _, err := anonymous.get(fmt.Sprintf("/alice/wide-%d@1.0.0", 2000+i%2*2000))
			if err != nil || status != http.StatusOK {
				t.Errorf("concurrent view: status %d, error %v", status, err)
			}
		}()
	}
	wg.Wait()

	peak := srv.PeakRSSMiB()
	t.Logf("pactd peak RSS: %.1f MiB", peak)
	if peak >= 200 {
		t.Errorf("pactd's peak RSS reached %.1f MiB publishing and viewing the wide tables, want under 200", peak)
	}
	if status, _, _, err := anonymous.get("/api/packages"); err != nil || status != http.StatusOK {
		t.Errorf("pactd stopped answering: status %d, error %v", status, err)
	}
}
