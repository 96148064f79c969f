package web

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// throttle counts attempts per key in fixed windows: a key may make max
// attempts in its window, then it is refused until the window ends. An
// attempt is counted when it is let through, so a burst of parallel guesses
// cannot slip past the count. It lives in memory, so each replica counts on
// its own; that still bounds guessing, which is what it is for.
//
// The table is bounded. When it is full, expired entries go first, then
// the entries with the fewest attempts (oldest first among equals), so a
// flood of new keys cannot wipe the count of a key that is close to its
// limit. A key that is locked out is never forgotten before its window
// ends: if nothing but lock-outs is left, new keys are refused until the
// first one ends (failing closed, not open).
type throttle struct {
	mu      sync.Mutex
	max     int
	window  time.Duration
	maxKeys int
	entries map[string]*throttleEntry
	// fullUntil: the table held nothing but lock-outs at the last sweep,
	// and the first of them ends then; until that, or until an entry
	// is released, sweeping again cannot free a place.
	fullUntil time.Time
}

type throttleEntry struct {
	count int
	start time.Time
}

// defaultThrottleKeys bounds the memory a flood of distinct keys can take
// (about 150 bytes a key). Filling a table with lock-outs takes max
// checked passwords per key, far more than pactd can hash in a window.
const defaultThrottleKeys = 100_000

// newThrottle allows max attempts per key in each window, keeping at most
// maxKeys keys.
func newThrottle(max int, window time.Duration, maxKeys int) *throttle {
	return &throttle{max: max, window: window, maxKeys: maxKeys, entries: make(map[string]*throttleEntry)}
}

// Take counts one attempt for key at now, or refuses it and says how long
// until the key may try again.
func (t *throttle) Take(key string, now time.Time) (ok bool, wait time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, found := t.entries[key]
	if found && now.Sub(e.start) >= t.window {
		e.count, e.start = 0, now
	}
	if !found {
		if len(t.entries) >= t.maxKeys && !t.makeRoom(now) {
			return false, t.fullUntil.Sub(now)
		}
		e = &throttleEntry{start: now}
		t.entries[key] = e
	}
	if e.count >= t.max {
		return false, e.start.Add(t.window).Sub(now)
	}
	e.count++
	return true, 0
}

// Release gives back one attempt of key, for attempts that turned out fine.
func (t *throttle) Release(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.entries[key]; ok && e.count > 0 {
		e.count--
		t.fullUntil = time.Time{}
	}
}

// Reset forgets key, after a successful log-in.
func (t *throttle) Reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, key)
}

// makeRoom frees places in a full table and reports whether there is one.
// It frees a tenth of the table at a time, so a flood of new keys costs one
// sweep per many keys rather than one per key.
func (t *throttle) makeRoom(now time.Time) bool {
	if now.Before(t.fullUntil) {
		return false
	}
	var unlocked []string
	for k, e := range t.entries {
		switch {
		case now.Sub(e.start) >= t.window:
			delete(t.entries, k)
		case e.count < t.max:
			unlocked = append(unlocked, k)
		}
	}
	target := t.maxKeys - max(1, t.maxKeys/10)
	if excess := len(t.entries) - target; excess > 0 {
		slices.SortFunc(unlocked, func(a, b string) int {
			ea, eb := t.entries[a], t.entries[b]
			if c := cmp.Compare(ea.count, eb.count); c != 0 {
				return c
			}
			return ea.start.Compare(eb.start)
		})
		for _, k := range unlocked[:min(excess, len(unlocked))] {
			delete(t.entries, k)
		}
	}
	if len(t.entries) < t.maxKeys {
		t.fullUntil = time.Time{}
		return true
	}
	t.fullUntil = now.Add(t.window)
	for _, e := range t.entries {
		if end := e.start.Add(t.window); end.Before(t.fullUntil) {
			t.fullUntil = end
		}
	}
	return false
}
