package api

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Limit is a token-bucket rate: Rate requests per second on average, bursts
// of up to Burst. A zero Rate turns the limit off.
type Limit struct {
	Rate  float64
	Burst int
}

// Limits are the abuse guards of the API.
type Limits struct {
	PerIP    Limit // every /api request, by client address
	PerIPLog Limit // every /log request, by client address
	// LogWaitsPerIP bounds the GET /log/checkpoint?wait=1 held at once
	// from one client address; past it the answer is 429. 0: no bound.
	LogWaitsPerIP int
	PerToken      Limit // token routes, by token
	PerKey        Limit // signed publishes, by SSH key (after the signature holds)
	// DeviceLogins are the logins of the command line begun
	// (POST /api/login/device), by client address: each waits ten
	// minutes in the database.
	DeviceLogins Limit
	// MaxConcurrentPublishes bounds publishes parsed and stored at once;
	// further ones wait up to PublishQueueWait, then get 503.
	MaxConcurrentPublishes int
	PublishQueueWait       time.Duration
	// BodyBudget bounds the bytes of request bodies read and decoded at
	// once across all requests; further bodies wait up to BodyBudgetWait,
	// then get 503.
	BodyBudget     int64
	BodyBudgetWait time.Duration
}

// DefaultLimits suit one registry host; pactd serve exposes each as a flag
// but DeviceLogins.
var DefaultLimits = Limits{
	PerIP:                  Limit{Rate: 50, Burst: 200},
	PerIPLog:               Limit{Rate: 100, Burst: 400},
	LogWaitsPerIP:          8,
	PerToken:               Limit{Rate: 20, Burst: 100},
	PerKey:                 Limit{Rate: 20, Burst: 100},
	DeviceLogins:           Limit{Rate: 1.0 / 60, Burst: 10},
	MaxConcurrentPublishes: 32,
	PublishQueueWait:       10 * time.Second,
	BodyBudget:             64 << 20,
	BodyBudgetWait:         2 * time.Second,
}

// keyedLimiter keeps one token bucket per key (address, token, SSH key) and
// forgets buckets that have been idle long enough to be full again.
type keyedLimiter struct {
	limit     Limit
	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	limiter *rate.Limiter
	seen    time.Time
}

func newKeyedLimiter(l Limit) *keyedLimiter {
	if l.Rate <= 0 {
		return nil
	}
	if l.Burst < 1 {
		l.Burst = 1
	}
	return &keyedLimiter{limit: l, buckets: map[string]*bucket{}}
}

// allow takes one token from key's bucket, or says how long to wait.
func (k *keyedLimiter) allow(key string, now time.Time) (bool, time.Duration) {
	if k == nil {
		return true, 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweep(now)
	b, ok := k.buckets[key]
	if !ok {
		b = &bucket{limiter: rate.NewLimiter(rate.Limit(k.limit.Rate), k.limit.Burst)}
		k.buckets[key] = b
	}
	b.seen = now
	r := b.limiter.ReserveN(now, 1)
	if delay := r.DelayFrom(now); delay > 0 {
		r.CancelAt(now)
		return false, delay
	}
	return true, 0
}

// sweep drops buckets idle long enough to have refilled, so memory stays
// bounded by the number of clients active in the last minutes.
func (k *keyedLimiter) sweep(now time.Time) {
	if now.Sub(k.lastSweep) < time.Minute {
		return
	}
	k.lastSweep = now
	refill := time.Duration(float64(k.limit.Burst)/k.limit.Rate*float64(time.Second)) + time.Minute
	for key, b := range k.buckets {
		if now.Sub(b.seen) > refill {
			delete(k.buckets, key)
		}
	}
}

// publishSlots bounds concurrent publishes: parsing is CPU-bound and
// every publish ends in the one durable write path.
type publishSlots struct {
	slots chan struct{}
	wait  time.Duration
}

func newPublishSlots(n int, wait time.Duration) *publishSlots {
	if n <= 0 {
		return nil
	}
	return &publishSlots{slots: make(chan struct{}, n), wait: wait}
}

// acquire takes a slot, waiting up to the queue wait; release gives it back.
func (p *publishSlots) acquire(ctx context.Context) (release func(), err error) {
	if p == nil {
		return func() {}, nil
	}
	timer := time.NewTimer(p.wait)
	defer timer.Stop()
	select {
	case p.slots <- struct{}{}:
		return func() { <-p.slots }, nil
	case <-timer.C:
		return nil, httpx.RetryLater(registry.Errorf(registry.Unavailable, "too many publishes in progress: retry shortly"), time.Second)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// concurrentCap bounds what one key (a client address) holds at once.
type concurrentCap struct {
	max  int
	mu   sync.Mutex
	held map[string]int
}

func newConcurrentCap(max int) *concurrentCap {
	if max <= 0 {
		return nil
	}
	return &concurrentCap{max: max, held: map[string]int{}}
}

// take holds one more for key, or answers false when key holds max.
func (k *concurrentCap) take(key string) (release func(), ok bool) {
	if k == nil {
		return func() {}, true
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.held[key] >= k.max {
		return nil, false
	}
	k.held[key]++
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.held[key]--; k.held[key] == 0 {
			delete(k.held, key)
		}
	}, true
}
