package httpx

import (
	"context"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/pact-registry/pact/server/registry"
)

// BodyBudget bounds the bytes of request bodies being read and decoded at
// once, across all requests. Each request limits its own body, but memory
// grows with the number of clients sending large bodies at the same time;
// enough of them exhaust it. A request reserves its body's declared size
// (or the most it may send) before reading a byte, and gives it back once
// the body is decoded. When the budget is spent, requests wait briefly in
// arrival order, then get 503 with Retry-After; reads never reserve.
type BodyBudget struct {
	sem  *semaphore.Weighted
	size int64
	wait time.Duration
}

// NewBodyBudget makes a budget of size bytes; 0 turns it off.
func NewBodyBudget(size int64, wait time.Duration) *BodyBudget {
	if size <= 0 {
		return nil
	}
	return &BodyBudget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// Reserve takes n bytes of the budget; release gives them back.
func (b *BodyBudget) Reserve(ctx context.Context, n int64) (release func(), err error) {
	if b == nil || n <= 0 {
		return func() {}, nil
	}
	// A body larger than the whole budget may still be read, alone.
	n = min(n, b.size)
	if !b.sem.TryAcquire(n) {
		waitCtx, cancel := context.WithTimeout(ctx, b.wait)
		defer cancel()
		if err := b.sem.Acquire(waitCtx, n); err != nil {
			return nil, RetryLater(registry.Errorf(registry.Unavailable,
				"the server is reading too many large requests at once: retry shortly"), time.Second)
		}
	}
	return func() { b.sem.Release(n) }, nil
}
