package api

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// firstPageCache keeps the encoded answers of GET /api/packages without a
// cursor (the first pages: the home of every client) for as long as the
// service's generation stays the same, so the hottest list costs a map
// lookup instead of a query and a JSON encoding. It is the only cache of
// list pages. The generation moves with every write on SQLite, where this
// process makes every change; on PostgreSQL, where other replicas publish
// unseen, there is none and nothing is kept. An answer is kept under the
// generation read before it was made: if a publish ran meanwhile, the
// entry is never served. Deeper pages go to the store every time; keyset
// paging makes them as cheap as the first.
type firstPageCache struct {
	svc *registry.Service

	mu    sync.RWMutex
	pages map[string]cachedPage // by raw query string
}

type cachedPage struct {
	generation  uint64
	contentType string
	// encoding and vary are the answer's Content-Encoding and Vary: a
	// page is kept in the form it was sent, under a key that says whether
	// the client took gzip.
	encoding, vary string
	body           []byte
}

const (
	maxCachedPages     = 256
	maxCachedPageBytes = 256 << 10
)

// emptyPage marks an answer not worth keeping: an empty list may be filled
// behind the store's back (a restore into the empty database).
var emptyPage = []byte(`"packages":[]`)

func newFirstPageCache(svc *registry.Service) *firstPageCache {
	return &firstPageCache{svc: svc, pages: map[string]cachedPage{}}
}

// serve is the middleware in front of the list handler.
func (fc *firstPageCache) serve(c *gin.Context) {
	if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead {
		return
	}
	generation, ok := fc.svc.Generation()
	if !ok {
		return
	}
	if _, deep := c.GetQuery("cursor"); deep {
		return
	}
	key := c.Request.URL.RawQuery
	if httpx.AcceptsGzip(c.Request) {
		key = "gzip " + key // a query string holds no space
	}
	fc.mu.RLock()
	page, hit := fc.pages[key]
	fc.mu.RUnlock()
	if hit && page.generation == generation {
		h := c.Writer.Header()
		h.Set("Content-Type", page.contentType)
		if page.vary != "" {
			h.Set("Vary", page.vary)
		}
		if page.encoding != "" {
			h.Set("Content-Encoding", page.encoding)
		}
		h.Set("Content-Length", strconv.Itoa(len(page.body)))
		c.Status(http.StatusOK)
		_, _ = c.Writer.Write(page.body)
		c.Abort()
		return
	}

	if c.Request.Method == http.MethodHead {
		return // a HEAD answer has no body to keep
	}
	rec := &recordingWriter{ResponseWriter: c.Writer}
	c.Writer = rec
	c.Next()
	c.Writer = rec.ResponseWriter
	if rec.Status() != http.StatusOK || rec.tooLarge || bytes.Contains(rec.body.Bytes(), emptyPage) {
		return
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if len(fc.pages) >= maxCachedPages {
		clear(fc.pages) // only many distinct queries fill it
	}
	h := rec.Header()
	fc.pages[key] = cachedPage{generation: generation, contentType: h.Get("Content-Type"), encoding: h.Get("Content-Encoding"),
		vary: h.Get("Vary"), body: rec.body.Bytes()}
}

// recordingWriter passes a response through and keeps a copy of its body.
type recordingWriter struct {
	gin.ResponseWriter
	body     bytes.Buffer
	tooLarge bool
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.record(p)
	return w.ResponseWriter.Write(p)
}

func (w *recordingWriter) WriteString(s string) (int, error) {
	w.record([]byte(s))
	return w.ResponseWriter.WriteString(s)
}

func (w *recordingWriter) record(p []byte) {
	if w.tooLarge || w.body.Len()+len(p) > maxCachedPageBytes {
		w.tooLarge = true
		return
	}
	w.body.Write(p)
}
