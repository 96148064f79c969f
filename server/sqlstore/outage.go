package sqlstore

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// outage tracks whether the database is reachable, so that an outage is
// logged once, with its cause, when it starts, and once when it ends,
// rather than once per request that it fails (docs/operations.md, Logs).
// The first fault that finds the database unreachable (fault, errors.go)
// starts it; a probe then pings the database, at growing intervals of at
// most outageProbeMax, until it answers.
type outage struct {
	log *slog.Logger

	mu     sync.Mutex
	down   bool
	since  time.Time
	closed bool
	stop   chan struct{} // closed by Close: the probe ends
}

const (
	outageProbeFirst = 100 * time.Millisecond
	outageProbeMax   = time.Second
)

func newOutage(log *slog.Logger) *outage {
	if log == nil {
		log = slog.Default()
	}
	return &outage{log: log, stop: make(chan struct{})}
}

// unreachable records that cause found the database unreachable; the first
// such fault of an outage logs it and starts the probe.
func (s *Store) unreachable(cause error) {
	o := s.outage
	o.mu.Lock()
	if o.down || o.closed {
		o.mu.Unlock()
		return
	}
	o.down, o.since = true, time.Now()
	o.mu.Unlock()
	o.log.Warn("the database is unreachable: requests that need it are answered 503 until it answers again",
		"engine", s.dialect.name(), "error", cause.Error())
	go s.probeOutage()
}

// probeOutage pings the database until it answers, then ends the outage.
func (s *Store) probeOutage() {
	o := s.outage
	pause := outageProbeFirst
	for {
		t := time.NewTimer(pause)
		select {
		case <-o.stop:
			t.Stop()
			return
		case <-t.C:
		}
		s.dropIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		err := s.probe(ctx)
		cancel()
		if err == nil {
			o.mu.Lock()
			o.down = false
			downFor := time.Since(o.since)
			o.mu.Unlock()
			o.log.Info("the database answers again", "engine", s.dialect.name(), "down_for", downFor.Round(time.Millisecond).String())
			return
		}
		pause = min(2*pause, outageProbeMax)
	}
}

// probe reads the database itself (not SELECT 1, which SQLite answers
// without reading its file).
func (s *Store) probe(ctx context.Context) error {
	var n int
	return s.write.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n)
}

// dropIdleConnections closes the idle connections of the pools that an
// outage may have broken (on PostgreSQL those opened before the outage
// would each fail one request after the database answers again).
func (s *Store) dropIdleConnections() { s.dialect.dropIdle(s.write, s.search, s.suggest) }

func (o *outage) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.closed = true
		close(o.stop)
	}
}
