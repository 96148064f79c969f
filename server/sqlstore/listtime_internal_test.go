package sqlstore

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
)

// The list parses SQLite's stored times itself; it must read what
// go-sqlite3 writes, and what go-sqlite3's own parsing reads, the same way.
func TestListTimeReadsWhatSQLiteStores(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	zones := []*time.Location{time.UTC, time.FixedZone("east", 5*3600+30*60), time.FixedZone("west", -7*3600)}
	for i := range 2000 {
		want := time.Unix(r.Int64N(5e9)-1e9, 0).Add(time.Duration(r.IntN(1e9)))
		switch i % 3 {
		case 0:
			want = want.Truncate(time.Second)
		case 1:
			want = want.Truncate(time.Microsecond)
		}
		stored := want.In(zones[i%len(zones)]).Format(sqlite3.SQLiteTimestampFormats[0])
		got, err := listTime(stored)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("listTime(%q) = %v, %v; want %v in UTC", stored, got, err, want)
		}
	}
	// Other spellings SQLite time text takes (go-sqlite3 reads them too).
	for odd, want := range map[string]time.Time{
		"2026-11-23T04:55:31Z":        time.Date(2026, 11, 23, 4, 55, 31, 0, time.UTC),
		"2026-11-23 04:55:31.5+01:00": time.Date(2026, 11, 23, 3, 55, 31, 5e8, time.UTC),
		"2026-11-23 04:55:31":         time.Date(2026, 11, 23, 4, 55, 31, 0, time.UTC),
	} {
		if got, err := listTime(odd); err != nil || !got.Equal(want) {
			t.Errorf("listTime(%q) = %v, %v; want %v", odd, got, err, want)
		}
	}
	for _, bad := range []string{"", "2026-02-30 00:00:00+00:00", "yesterday", "2026-11-23 24:00:00+00:00"} {
		if _, err := listTime(bad); err == nil {
			t.Errorf("listTime(%q) succeeded", bad)
		}
	}
}
