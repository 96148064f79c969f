package sqlstore

import (
	"context"
	"database/sql"
)

// maxWriteAttempts bounds the runs of a PostgreSQL write transaction that
// lost a race with another replica (deadlock, serialization failure, unique
// violation).
const maxWriteAttempts = 5

// transact runs write in one transaction and answers its error in the
// Store's terms (fault, named op). On SQLite the transaction is shared with
// the writes of concurrent callers (groupCommitter: one fsync for a batch,
// write in a savepoint of its own); on PostgreSQL it is write's own, run
// again from the start when it loses a race with another replica. Either
// way, nil means write's changes committed, and an error that they did not.
// write may run more than once, so it must set what it answers afresh on
// each run. What follows the commit (dropping cached reads, waking the
// log's sequencer) is the caller's, after transact returns nil.
func (s *Store) transact(ctx context.Context, op string, write func(ctx context.Context, tx *sql.Tx) error) error {
	if s.group != nil {
		return s.fault(op, s.group.do(ctx, write))
	}
	for attempt := 1; ; attempt++ {
		err := s.transactOnce(ctx, write)
		if err != nil && attempt < maxWriteAttempts && s.dialect.isRetryable(err) && ctx.Err() == nil {
			continue
		}
		return s.fault(op, err)
	}
}

// transactOnce is one run of write in a transaction of its own, under the
// Store's deadline.
func (s *Store) transactOnce(ctx context.Context, write func(ctx context.Context, tx *sql.Tx) error) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := write(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}
