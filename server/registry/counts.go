package registry

import (
	"context"
	"sync"
	"time"
)

// Counts are how many packages and versions a registry holds, yanked ones
// included; the home page shows them.
type Counts struct {
	Packages, Versions int64
}

const (
	// countsMaxAge bounds how long Counts answers a count it made before:
	// on PostgreSQL, where other replicas publish unseen, a publish shows
	// in the counts within this time.
	countsMaxAge = 30 * time.Second
	// countsMinAge is how long a count is answered although writes moved
	// the store's generation since: at most one count a second, however
	// busy the publishes.
	countsMinAge = time.Second
)

// countsCache keeps the last count of packages and versions.
type countsCache struct {
	mu         sync.Mutex
	counts     Counts
	at         time.Time // by the service's clock; zero: never counted
	generation uint64
}

// Counts answers how many packages and versions the registry holds. A
// count reads an index of each table (about 10 ms a million rows on
// SQLite), so the answer is kept: while the store's generation stays the
// same (SQLite, where this process makes every write) or, without one
// (PostgreSQL), for countsMaxAge; never recounted within countsMinAge.
// One caller counts at a time; the others wait for its answer.
func (s *Service) Counts(ctx context.Context) (Counts, error) {
	c := &s.counts
	c.mu.Lock()
	defer c.mu.Unlock()
	now := s.now()
	generation, ok := s.store.Generation()
	if !c.at.IsZero() {
		age := now.Sub(c.at)
		fresh := age >= 0 && age < countsMaxAge && (!ok || generation == c.generation)
		if fresh || age >= 0 && age < countsMinAge {
			return c.counts, nil
		}
	}
	// The generation is read before counting: a publish that commits
	// meanwhile moves it, and the next call counts again.
	packages, versions, err := s.store.CountPackages(ctx)
	if err != nil {
		return Counts{}, err
	}
	c.counts, c.at, c.generation = Counts{Packages: packages, Versions: versions}, now, generation
	return c.counts, nil
}
