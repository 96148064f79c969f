package admission

import "testing"

// A key's count is how often it was recorded, up to the counters' cap,
// and the counts fade by half every fadeAfter times the entries (at least
// minWindow) of records.
func TestFilterCountsAndFades(t *testing.T) {
	f := NewFilter(100) // halved every minWindow records
	hot, warm, cold := HashString("hot"), HashString("warm"), HashString("cold")
	for range 40 {
		f.Record(hot)
	}
	for range 6 {
		f.Record(warm)
	}
	if got := f.Count(hot); got != maxCount {
		t.Errorf("40 records counted %d, want the cap %d", got, maxCount)
	}
	if got := f.Count(warm); got != 6 {
		t.Errorf("6 records counted %d", got)
	}
	if got := f.Count(cold); got != 0 {
		t.Errorf("a key never recorded counted %d", got)
	}
	// minWindow records in all halve every count. (The
	// other records are of two keys: many distinct ones would share
	// counters with these, and count-min counts those shares too.)
	others := [2]uint64{HashString("other-1"), HashString("other-2")}
	for i := range minWindow - 46 - 1 {
		f.Record(others[i%2])
	}
	if got := f.Count(warm); got != 6 {
		t.Errorf("a record before the halving: 6 counts %d", got)
	}
	f.Record(others[0])
	if got := f.Count(hot); got != maxCount/2 {
		t.Errorf("after a halving %d counts %d, want %d", maxCount, got, maxCount/2)
	}
	if got := f.Count(warm); got != 3 {
		t.Errorf("after a halving 6 counts %d, want 3", got)
	}
}

// A candidate asked for more often before its miss than every victim is
// taken in, one asked for less often than any victim is not, and between
// equals the coin decides. A victim is judged by its own tally: it starts
// at the sketch's count, grows with its hits and fades with the sketch.
func TestFilterAdmits(t *testing.T) {
	f := NewFilter(100)
	flips := 0
	f.Coin = func() bool { flips++; return flips%2 == 1 }
	record := func(name string, n int) uint64 {
		k := HashString(name)
		for range n {
			f.Record(k)
		}
		return k
	}
	cached := func(name string, n int) *Tally {
		tally := f.Start(record(name, n))
		return &tally
	}
	hot, warm, cold := cached("hot", 20), cached("warm", 3), cached("cold", 1)
	// A miss is recorded before the cache asks: warm's earlier reads are 3.
	missedWarm := record("missed-warm", 4)
	newcomer := record("newcomer", 1)

	if !f.Admit(missedWarm, []*Tally{cold}) || flips != 0 {
		t.Errorf("a document read 3 times before was not taken in over one read once, or the coin was asked")
	}
	if f.Admit(newcomer, []*Tally{cold, hot}) || flips != 0 {
		t.Errorf("a first read was taken in over a hot document, or the coin was asked")
	}
	if f.Admit(missedWarm, []*Tally{cold, warm, hot}) || flips != 0 {
		t.Errorf("a warm document evicted a hotter one")
	}
	if !f.Admit(missedWarm, []*Tally{warm}) || f.Admit(missedWarm, []*Tally{warm}) || flips != 2 {
		t.Errorf("between equals the coin did not decide (asked %d times)", flips)
	}
	// A saturated count cannot tell its last read apart: two hot documents
	// are equals.
	missedHot := record("missed-hot", 30)
	if !f.Admit(missedHot, []*Tally{hot}) || flips != 3 {
		t.Errorf("a hot miss against a hot victim did not go to the coin (asked %d times)", flips)
	}

	// A hit raises the tally; a halving of the sketch halves it.
	f.Hit(cold)
	if f.Admit(newcomer, []*Tally{cold}) || cold.n != 2 {
		t.Errorf("a tally of 1 hit once holds %d, want 2, and keeps a first read out", cold.n)
	}
	for f.epoch == 0 {
		f.Record(HashString("other"))
	}
	f.Hit(warm)
	if warm.n != 3/2+1 {
		t.Errorf("after a halving and a hit, a tally of 3 holds %d, want 2", warm.n)
	}
	if f.Admit(newcomer, []*Tally{hot}) || hot.n != maxCount/2 {
		t.Errorf("after a halving a victim's tally of %d holds %d, want %d", maxCount, hot.n, maxCount/2)
	}
}

// A cold entry whose key shares all its counters with a hot key counts as
// hot in the sketch, but its own tally fades while it sits unread: a hot
// entry that left is taken in over it after a halving.
func TestFilterVictimsFadeThoughTheSketchIsShared(t *testing.T) {
	f := NewFilter(100)
	f.Coin = func() bool { return false }
	// Taken in when hot (as a key sharing a hot key's counters would be).
	stale := f.Start(func() uint64 {
		k := HashString("stale")
		for range 20 {
			f.Record(k)
		}
		return k
	}())
	missedHot := HashString("missed-hot")
	for range 9 {
		f.Record(missedHot)
	}
	if f.Admit(missedHot, []*Tally{&stale}) {
		t.Fatal("a miss read 8 times before was taken in over an entry counted 15")
	}
	// The sketch halves; the stale entry is not looked up, the hot one is.
	for f.epoch == 0 {
		f.Record(HashString("other"))
	}
	for range 5 {
		f.Record(missedHot)
	}
	if !f.Admit(missedHot, []*Tally{&stale}) {
		t.Errorf("a hot miss (sketch %d) was kept out by an entry unread since the halving (tally %d)",
			f.Count(missedHot), stale.n)
	}
}
