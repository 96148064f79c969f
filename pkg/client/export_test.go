package client

import (
	"context"
	"sync"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
)

// Shared with the external tests of package client_test.
func SharedPactd() *pactdtest.Server { return sharedPactd }

// UseFakeClock makes c wait on a clock that its sleeps advance, so tests of
// the log's waits take no time.
func UseFakeClock(c *Client) {
	now := time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	c.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c.sleep = func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(d)
		return nil
	}
}

// PactdBin is the pactd built for the tests.
func PactdBin() string { return pactdBin }

// SetSleep makes c pause between polls and retries with sleep instead of
// waiting.
func SetSleep(c *Client, sleep func(ctx context.Context, d time.Duration) error) { c.sleep = sleep }
