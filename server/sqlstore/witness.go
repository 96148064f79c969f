package sqlstore

import (
	"context"
	"database/sql"

	"github.com/pact-registry/pact/server/registry"
)

// What the transparency log's witnesses answered (registry.WitnessStore;
// migration 0019): each witness's state, their cosignatures of the latest
// checkpoints, and the witnessed checkpoint that /log/checkpoint serves.

// witnessLockKey is an arbitrary constant naming the PostgreSQL advisory
// lock that lets one replica at a time push to the witnesses.
const witnessLockKey = 7_346_572_019

// WitnessTurn runs push while this Store holds the witnesses' turn: no
// other turn of it is under way, and on PostgreSQL none of another
// process either. There the turn is a session advisory lock, tried (never
// waited for) on a connection of its own and held for the round, so
// replicas push one at a time and a replica that dies mid-round releases
// it with its session. A SQLite file has one pactd.
func (s *Store) WitnessTurn(ctx context.Context, push func(ctx context.Context) error) (bool, error) {
	if !s.witnessTurn.TryLock() {
		return false, nil
	}
	defer s.witnessTurn.Unlock()
	release, got, err := s.dialect.tryTurn(ctx, s.write, witnessLockKey, s.timeout)
	if err != nil || !got {
		return false, s.fault("take the witnesses' turn", err)
	}
	defer release()
	return true, push(ctx)
}

// WitnessState answers the witnesses' rows, the cosignatures of size and
// the witnessed checkpoint.
func (s *Store) WitnessState(ctx context.Context, size int64) (registry.WitnessState, error) {
	st := registry.WitnessState{WitnessedSize: -1}
	witnesses, err := queryList(ctx, s, "read the witnesses", 8, func(row scanner) (*registry.WitnessStatus, error) {
		var w registry.WitnessStatus
		var since sql.NullTime
		if err := row.Scan(&w.Key, &w.Size, &since, &w.Error, &w.CheckedAt); err != nil {
			return nil, err
		}
		if since.Valid {
			t := since.Time.UTC()
			w.FailingSince = &t
		}
		w.CheckedAt = w.CheckedAt.UTC()
		return &w, nil
	}, `SELECT witness_key, size, failing_since, error, checked_at FROM log_witnesses ORDER BY witness_key`)
	if err != nil {
		return st, err
	}
	st.Witnesses = witnesses
	st.Cosignatures, err = queryList(ctx, s, "read cosignatures", 8, func(row scanner) (*registry.Cosignature, error) {
		var c registry.Cosignature
		var line string
		if err := row.Scan(&c.Key, &line, &c.SignedAt); err != nil {
			return nil, err
		}
		c.Line, c.SignedAt = []byte(line), c.SignedAt.UTC()
		return &c, nil
	}, `SELECT witness_key, line, signed_at FROM log_cosignatures WHERE size = ? ORDER BY witness_key`, size)
	if err != nil {
		return st, err
	}
	var ok bool
	st.WitnessedSize, st.Witnessed, ok, err = s.WitnessedCheckpoint(ctx)
	if !ok {
		st.WitnessedSize, st.Witnessed = -1, nil
	}
	return st, err
}

// SaveWitnessRound stores a round of pushes in one transaction.
func (s *Store) SaveWitnessRound(ctx context.Context, r registry.WitnessRound) error {
	return s.transact(ctx, "store the witnesses' answers", func(ctx context.Context, tx *sql.Tx) error {
		for _, w := range r.Witnesses {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO log_witnesses (witness_key, size, failing_since, error, checked_at)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (witness_key) DO UPDATE SET size = excluded.size, failing_since = excluded.failing_since,
error = excluded.error, checked_at = excluded.checked_at`),
				w.Key, w.Size, nullTime(w.FailingSince), w.Error, dbTime(w.CheckedAt)); err != nil {
				return err
			}
		}
		for _, c := range r.Cosignatures {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO log_cosignatures (size, witness_key, line, signed_at) VALUES (?, ?, ?, ?)
ON CONFLICT (size, witness_key) DO UPDATE SET line = excluded.line, signed_at = excluded.signed_at`),
				r.Size, c.Key, string(c.Line), dbTime(c.SignedAt)); err != nil {
				return err
			}
		}
		if r.Witnessed == nil {
			return nil
		}
		// Only forward: a round that read an older checkpoint than another
		// replica's later one does not replace it.
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO log_witnessed (id, size, note) VALUES (1, ?, ?)
ON CONFLICT (id) DO UPDATE SET size = excluded.size, note = excluded.note WHERE log_witnessed.size <= excluded.size`),
			r.Size, r.Witnessed); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM log_cosignatures WHERE size < (SELECT size FROM log_witnessed WHERE id = 1)`)
		return err
	})
}

// WitnessedCheckpoint answers the witnessed checkpoint.
func (s *Store) WitnessedCheckpoint(ctx context.Context) (int64, []byte, bool, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var size int64
	var note []byte
	err := s.read.QueryRowContext(ctx, `SELECT size, note FROM log_witnessed WHERE id = 1`).Scan(&size, &note)
	if errNoRows(err) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, s.fault("read the witnessed checkpoint", err)
	}
	return size, note, true, nil
}
