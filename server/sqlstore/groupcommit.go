package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// maxGroupedWrites bounds one shared transaction, so one batch cannot hold
// the writer for long.
const maxGroupedWrites = 128

// errStoreClosed answers writes that arrive after Close.
var errStoreClosed = errors.New("sqlstore: the store is closed")

// groupCommitter runs the writes of concurrent callers in shared
// transactions, so that one fsync (SQLite, synchronous=FULL) makes a whole
// batch durable instead of one write. It needs no waiting to form a batch:
// while one batch commits, the writes that arrive queue up and become the
// next batch. Each write runs in its own savepoint, so a write that fails
// (a version conflict, a spent nonce) changes nothing and the others still
// commit. A caller is answered only after the batch's commit, so whatever
// it was told succeeded is durable.
type groupCommitter struct {
	db      *sql.DB
	timeout time.Duration
	jobs    chan *writeJob
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
	// batches counts the shared transactions run, for tests.
	batches atomic.Int64
}

type writeJob struct {
	ctx context.Context
	run func(ctx context.Context, tx *sql.Tx) error
	err chan error
}

func newGroupCommitter(db *sql.DB, timeout time.Duration) *groupCommitter {
	g := &groupCommitter{
		db:      db,
		timeout: timeout,
		jobs:    make(chan *writeJob, maxGroupedWrites),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go g.loop()
	return g
}

// do runs write inside a shared transaction and returns once that
// transaction has committed (nil) or write's changes were rolled back (its
// error, or the commit's).
func (g *groupCommitter) do(ctx context.Context, write func(ctx context.Context, tx *sql.Tx) error) error {
	job := &writeJob{ctx: ctx, run: write, err: make(chan error, 1)}
	select {
	case g.jobs <- job:
	case <-ctx.Done():
		return ctx.Err()
	case <-g.stop:
		return errStoreClosed
	}
	// A queued job is answered once its fate is known, never before.
	select {
	case err := <-job.err:
		return err
	case <-g.stopped:
		// The loop answered everything it took before it stopped; a job
		// queued after it drained the queue was never taken.
		select {
		case err := <-job.err:
			return err
		default:
			return errStoreClosed
		}
	}
}

// close stops the loop after the batch in progress; queued writes fail.
func (g *groupCommitter) close() {
	g.once.Do(func() {
		close(g.stop)
		<-g.stopped
	})
}

func (g *groupCommitter) loop() {
	defer close(g.stopped)
	batch := make([]*writeJob, 0, maxGroupedWrites)
	for {
		batch = batch[:0]
		select {
		case job := <-g.jobs:
			batch = append(batch, job)
		case <-g.stop:
			g.failQueued()
			return
		}
	fill:
		for len(batch) < maxGroupedWrites {
			select {
			case job := <-g.jobs:
				batch = append(batch, job)
			default:
				break fill
			}
		}
		g.commit(batch)
	}
}

func (g *groupCommitter) failQueued() {
	for {
		select {
		case job := <-g.jobs:
			job.err <- errStoreClosed
		default:
			return
		}
	}
}

// commit runs a batch in one transaction and answers every job.
func (g *groupCommitter) commit(batch []*writeJob) {
	g.batches.Add(1)
	errs := make([]error, len(batch))
	if err := g.runBatch(batch, errs); err != nil {
		// The transaction is gone: nothing of the batch was kept.
		for i := range errs {
			errs[i] = err
		}
	}
	for i, job := range batch {
		job.err <- errs[i]
	}
}

// runBatch fills errs with each job's own outcome; its error, when not
// nil, is the whole batch's.
func (g *groupCommitter) runBatch(batch []*writeJob, errs []error) error {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, job := range batch {
		if err := job.ctx.Err(); err != nil {
			errs[i] = err // the caller gave up before its turn
			continue
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT pact_write"); err != nil {
			return err
		}
		if errs[i] = job.run(ctx, tx); errs[i] != nil {
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO pact_write"); err != nil {
				// SQLite ends the whole transaction after some errors
				// (a full disk): then the job's error is the batch's.
				return errs[i]
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE pact_write"); err != nil {
			return err
		}
	}
	return tx.Commit()
}
