package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/semaphore"

	"github.com/pact-registry/pact/server/registry"
)

// bodyBudget bounds the bytes of request bodies being read and decoded at
// once, across all requests. Each request limits its own body, but memory
// grows with the number of clients sending large bodies at the same time;
// enough of them exhaust it. A request reserves its body's declared size
// (or the most it may send) before reading a byte, and gives it back once
// the body is decoded. When the budget is spent, requests wait briefly in
// arrival order, then get 503 with Retry-After; reads never reserve.
type bodyBudget struct {
	sem  *semaphore.Weighted
	size int64
	wait time.Duration
}

func newBodyBudget(size int64, wait time.Duration) *bodyBudget {
	if size <= 0 {
		return nil
	}
	return &bodyBudget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// reserve takes n bytes of the budget; release gives them back.
func (b *bodyBudget) reserve(ctx context.Context, n int64) (release func(), err error) {
	if b == nil || n <= 0 {
		return func() {}, nil
	}
	// A body larger than the whole budget may still be read, alone.
	n = min(n, b.size)
	if !b.sem.TryAcquire(n) {
		waitCtx, cancel := context.WithTimeout(ctx, b.wait)
		defer cancel()
		if err := b.sem.Acquire(waitCtx, n); err != nil {
			return nil, &retryError{
				err:   registry.Errorf(registry.Unavailable, "the server is reading too many large requests at once: retry shortly"),
				after: time.Second,
			}
		}
	}
	return func() { b.sem.Release(n) }, nil
}

// reserveBody reserves budget for the body of c's request, which may be at
// most limit bytes long, before anything of it is read. A body declared
// larger than limit is refused at once.
func (s *Server) reserveBody(c *gin.Context, limit int64) (release func(), err error) {
	n := c.Request.ContentLength
	if n > limit {
		return nil, readError(&http.MaxBytesError{Limit: limit})
	}
	if n < 0 { // chunked: it may be as long as the limit
		n = limit
	}
	// Not c itself: a gin.Context is reused once the request is answered,
	// and the wait's timer may still look at its parent then.
	release, err = s.bodies.reserve(c.Request.Context(), n)
	if err != nil {
		// Read the refused body to its end, through a small buffer: a
		// server that answers and closes while the client is still sending
		// makes the client see a broken pipe instead of the 503.
		_, _ = io.Copy(io.Discard, http.MaxBytesReader(c.Writer, c.Request.Body, limit))
		return nil, err
	}
	return release, nil
}

// readBody reads the whole body of r, at most limit bytes. A body of
// declared length is read into one buffer of exactly that size, so it
// costs its own size in memory once.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	r.Body = body
	if n := r.ContentLength; n >= 0 && n <= limit {
		buf := make([]byte, n)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, readError(err)
		}
		return buf, nil
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(body); err != nil {
		return nil, readError(err)
	}
	return buf.Bytes(), nil
}
