package registry

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"
)

// Download counts (docs/protocol.md, Download counts). A download is a raw
// GET answered with the document; the server tells the Service of each one
// (CountDownload), which counts it in memory by version and UTC day, and
// FlushDownloads adds what was counted to the store. Each replica counts its
// own and adds, so the store holds the sum of them all. Nothing about who
// downloaded is kept.

// DownloadDays is how many days a package's downloads answer names, today
// the last of them.
const DownloadDays = 90

// Day is a UTC calendar day: the days since 1970-01-01.
type Day int32

// DayOf is the UTC day t falls on.
func DayOf(t time.Time) Day {
	return Day(t.Unix() / 86400)
}

// Time is the start of the day, in UTC.
func (d Day) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// String is the day as a date, 2006-01-02.
func (d Day) String() string { return d.Time().Format(time.DateOnly) }

// DownloadCount is a number of downloads of one version on one day, as a
// flush adds it to the store.
type DownloadCount struct {
	PackageID, VersionID int64
	Day                  Day
	Count                int64
}

// DayCount is the downloads of every version of a package on one day.
type DayCount struct {
	Day   Day
	Count int64
}

// VersionDownloads is the downloads of one version on every day.
type VersionDownloads struct {
	Version string
	Count   int64
}

// Downloads are a package's download counts: Versions holds every version
// of the package (none downloaded: 0), Days the DownloadDays days up to
// today, oldest first, each there (none: 0).
type Downloads struct {
	Total    int64
	Versions []VersionDownloads
	Days     []DayCount
}

// DownloadStore keeps the download counts.
type DownloadStore interface {
	// AddDownloads adds each count to its version's day and its package's
	// total, in one transaction: all or none.
	AddDownloads(ctx context.Context, counts []DownloadCount) error
	// PackageDownloads answers the downloads of every version of the
	// package packageID, and its downloads of each day from since on
	// that have any.
	PackageDownloads(ctx context.Context, packageID int64, since Day) ([]VersionDownloads, []DayCount, error)
}

type downloadKey struct {
	packageID, versionID int64
	day                  Day
}

// downloadCounter holds the downloads counted since the last flush.
type downloadCounter struct {
	mu     sync.Mutex
	counts map[downloadKey]int64
	// flushing serialises flushes, so a failed flush's counts are put
	// back before the next one takes the map.
	flushing sync.Mutex
}

// CountDownload counts one download of v (a raw GET answered with its
// document) on today's date by the service's clock. It only touches
// memory: the raw path stays fast.
func (s *Service) CountDownload(v *Version) {
	key := downloadKey{packageID: v.PackageID, versionID: v.ID, day: DayOf(s.Now())}
	c := &s.downloads
	c.mu.Lock()
	if c.counts == nil {
		c.counts = make(map[downloadKey]int64)
	}
	c.counts[key]++
	c.mu.Unlock()
}

// FlushDownloads adds the downloads counted since the last flush to the
// store. When the store fails, the counts are kept for the next flush, so
// an outage loses none while the process lives.
func (s *Service) FlushDownloads(ctx context.Context) error {
	c := &s.downloads
	c.flushing.Lock()
	defer c.flushing.Unlock()
	c.mu.Lock()
	taken := c.counts
	c.counts = nil
	c.mu.Unlock()
	if len(taken) == 0 {
		return nil
	}
	counts := make([]DownloadCount, 0, len(taken))
	for k, n := range taken {
		counts = append(counts, DownloadCount{PackageID: k.packageID, VersionID: k.versionID, Day: k.day, Count: n})
	}
	// One order for every replica: two flushes at once lock the same
	// rows in the same order, and never deadlock.
	slices.SortFunc(counts, func(a, b DownloadCount) int {
		if a.PackageID != b.PackageID {
			return cmp.Compare(a.PackageID, b.PackageID)
		}
		if a.VersionID != b.VersionID {
			return cmp.Compare(a.VersionID, b.VersionID)
		}
		return cmp.Compare(a.Day, b.Day)
	})
	err := s.store.AddDownloads(ctx, counts)
	if err != nil {
		c.mu.Lock()
		if c.counts == nil {
			c.counts = taken
		} else {
			for k, n := range taken {
				c.counts[k] += n
			}
		}
		c.mu.Unlock()
	}
	return err
}

// RunDownloadFlusher flushes the downloads counted every interval until
// ctx ends, telling onError of a flush that failed (its counts wait for
// the next). The flush at shutdown is the caller's, after the server has
// stopped answering.
func (s *Service) RunDownloadFlusher(ctx context.Context, interval time.Duration, onError func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.FlushDownloads(ctx); err != nil && onError != nil {
				onError(err)
			}
		}
	}
}

// PackageDownloads answers owner/pack's download counts as flushed so far:
// every version's, and the last DownloadDays days' by the service's clock.
// NotFound when there is no such package.
func (s *Service) PackageDownloads(ctx context.Context, owner, pack string) (*Package, *Downloads, error) {
	p, err := s.Package(ctx, owner, pack)
	if err != nil {
		return nil, nil, err
	}
	today := DayOf(s.Now())
	first := today - DownloadDays + 1
	versions, days, err := s.store.PackageDownloads(ctx, p.ID, first)
	if err != nil {
		return nil, nil, err
	}
	d := &Downloads{Versions: versions, Days: make([]DayCount, DownloadDays)}
	for _, v := range versions {
		d.Total += v.Count
	}
	for i := range d.Days {
		d.Days[i].Day = first + Day(i)
	}
	for _, dc := range days {
		if i := int(dc.Day - first); i >= 0 && i < DownloadDays {
			d.Days[i].Count += dc.Count
		}
	}
	return p, d, nil
}
