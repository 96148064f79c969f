package web

import (
	"testing"
	"time"
)

// A full table forgets expired keys first, then the keys with the fewest
// attempts; lock-outs stay until their window ends, and when nothing but
// lock-outs is left a new key is refused until the first one ends.
func TestFullThrottleEvictsLeastUsedAndFailsClosed(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_900_000_000, 0)
	th := newThrottle(2, time.Hour, defaultThrottleKeys)
	th.maxKeys = 4
	take := func(key string, at time.Duration, want bool) time.Duration {
		t.Helper()
		ok, wait := th.Take(key, t0.Add(at))
		if ok != want {
			t.Fatalf("Take(%q) at +%v = %v, want %v", key, at, ok, want)
		}
		return wait
	}
	take("locked-a", 0, true)
	take("locked-a", 0, true)
	take("locked-b", time.Minute, true)
	take("locked-b", time.Minute, true)
	take("one-try", 2*time.Minute, true)
	take("two-tries-unlocked", 3*time.Minute, true)
	// Full: the key with the fewest attempts goes, the lock-outs stay.
	take("new-1", 4*time.Minute, true)
	if _, ok := th.entries["one-try"]; ok {
		t.Errorf("the least used key was kept")
	}
	take("locked-a", 5*time.Minute, false)
	take("locked-b", 5*time.Minute, false)

	// Nothing but lock-outs: a new key is refused until the first ends.
	take("two-tries-unlocked", 6*time.Minute, true)
	take("new-1", 6*time.Minute, true)
	if wait := take("new-2", 10*time.Minute, false); wait != 50*time.Minute {
		t.Errorf("a refused new key waits %v, want 50m (until locked-a's window ends)", wait)
	}
	take("locked-a", 10*time.Minute, false)
	// Once a window ends, its key is forgotten and a new one fits.
	take("new-2", time.Hour, true)
	take("locked-b", time.Hour, false)
	if len(th.entries) > th.maxKeys {
		t.Errorf("%d entries, bound %d", len(th.entries), th.maxKeys)
	}
}
