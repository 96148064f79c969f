package sqlstore

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// A kept estimate is used for gramStatsTTL after it was read, however
// often it is asked for; the kept trigrams stay within two generations of
// gramStatsSize whatever is searched for; forget drops them all.
func TestGramStatsKeptForTheirTime(t *testing.T) {
	defer func(size int, ttl time.Duration) { gramStatsSize, gramStatsTTL = size, ttl }(gramStatsSize, gramStatsTTL)
	gramStatsSize, gramStatsTTL = 100, 30*time.Second
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var g gramStats
	st := gramStat{count: 3, newest: sql.NullInt64{Int64: 9, Valid: true}, read: t0}
	g.put("abc", st)
	for _, c := range []struct {
		after time.Duration
		kept  bool
	}{{0, true}, {10 * time.Second, true}, {29 * time.Second, true}, {30 * time.Second, false}, {31 * time.Second, false}} {
		got, ok := g.get("abc", t0.Add(c.after))
		if ok != c.kept || ok && got.count != 3 {
			t.Errorf("%s after it was read: kept %v (%+v), want %v", c.after, ok, got, c.kept)
		}
	}

	for i := range 10 * gramStatsSize {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		g.put(fmt.Sprintf("g%05d", i), gramStat{count: int64(i), read: at})
		if n := len(g.now) + len(g.old); n > 2*gramStatsSize {
			t.Fatalf("after %d trigrams: %d kept, want at most %d", i+1, n, 2*gramStatsSize)
		}
	}
	last := fmt.Sprintf("g%05d", 10*gramStatsSize-1)
	if _, ok := g.get(last, t0.Add(time.Second)); !ok {
		t.Errorf("the newest trigram is not kept")
	}
	if _, ok := g.get("g00000", t0.Add(time.Second)); ok {
		t.Errorf("the oldest of %d trigrams is still kept", 10*gramStatsSize)
	}

	g.forget()
	if _, ok := g.get(last, t0.Add(time.Second)); ok {
		t.Errorf("kept after forget")
	}
}
