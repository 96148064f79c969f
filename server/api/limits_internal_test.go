package api

import (
	"context"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

func TestPublishSlotsBoundConcurrency(t *testing.T) {
	slots := newPublishSlots(1, 20*time.Millisecond)
	release, err := slots.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := slots.acquire(context.Background()); registry.ErrorCode(err) != registry.Unavailable || httpx.RetryAfterSeconds(err) != 1 {
		t.Errorf("second publish while the only slot is held: %v (retry after %d s), want 503 with Retry-After 1", err, httpx.RetryAfterSeconds(err))
	}
	release()
	release2, err := slots.acquire(context.Background())
	if err != nil {
		t.Errorf("after release: %v", err)
	} else {
		release2()
	}
}

func TestKeyedLimiterForgetsIdleClients(t *testing.T) {
	l := newKeyedLimiter(Limit{Rate: 10, Burst: 1})
	now := time.Unix(1_000_000, 0)
	for i := 0; i < 100; i++ {
		l.allow(string(rune('a'+i%26))+string(rune('a'+i/26)), now)
	}
	if ok, wait := l.allow("aa", now); ok || wait <= 0 {
		t.Errorf("second request in the same instant: allowed=%v wait=%v", ok, wait)
	}
	l.allow("fresh", now.Add(2*time.Minute))
	if n := len(l.buckets); n != 1 {
		t.Errorf("%d buckets after everyone went idle, want 1", n)
	}
	if newKeyedLimiter(Limit{}) != nil {
		t.Errorf("a zero limit must turn limiting off")
	}
}
