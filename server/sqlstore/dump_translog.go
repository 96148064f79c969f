package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// The transparency log in a dump (format version 3): its entries, stored
// hashes and checkpoints as tables, and one log_state record with the
// next index, the tree size and the keys (the signer key is "" when the
// operator keeps it outside the database). A restored registry's log is
// the dumped one, so `pactd log check` passes on it and clients that pinned
// its key keep verifying.

func init() {
	tables = append(tables,
		table{"log_entries", "log_entry", "log entries", `idx, entry, created_at`, `idx`, false,
			func() record { return new(logEntryRecord) }, func(c *BackupCounts) *int64 { return &c.LogEntries }},
		table{"log_hashes", "log_hash", "log hashes", `id, hash`, `id`, false,
			func() record { return new(logHashRecord) }, func(c *BackupCounts) *int64 { return &c.LogHashes }},
		table{"log_checkpoints", "log_checkpoint", "log checkpoints", `size, note, created_at`, `size`, false,
			func() record { return new(logCheckpointRecord) }, func(c *BackupCounts) *int64 { return &c.LogCheckpoints }},
	)
}

type logEntryRecord struct {
	typed
	Index     int64     `json:"index"`
	Entry     []byte    `json:"entry"`
	CreatedAt time.Time `json:"created_at"`
}

func (r *logEntryRecord) dest() []any  { return []any{&r.Index, &r.Entry, &r.CreatedAt} }
func (r *logEntryRecord) args() []any  { return []any{r.Index, r.Entry, r.CreatedAt.UTC()} }
func (r *logEntryRecord) normalize()   { r.CreatedAt = r.CreatedAt.UTC() }
func (r *logEntryRecord) getID() int64 { return r.Index }

type logHashRecord struct {
	typed
	ID   int64  `json:"id"`
	Hash []byte `json:"hash"`
}

func (r *logHashRecord) dest() []any  { return []any{&r.ID, &r.Hash} }
func (r *logHashRecord) args() []any  { return []any{r.ID, r.Hash} }
func (r *logHashRecord) normalize()   {}
func (r *logHashRecord) getID() int64 { return r.ID }

type logCheckpointRecord struct {
	typed
	Size      int64     `json:"size"`
	Note      []byte    `json:"note"`
	CreatedAt time.Time `json:"created_at"`
}

func (r *logCheckpointRecord) dest() []any  { return []any{&r.Size, &r.Note, &r.CreatedAt} }
func (r *logCheckpointRecord) args() []any  { return []any{r.Size, r.Note, r.CreatedAt.UTC()} }
func (r *logCheckpointRecord) normalize()   { r.CreatedAt = r.CreatedAt.UTC() }
func (r *logCheckpointRecord) getID() int64 { return r.Size }

const logStateType = "log_state"

type logStateRecord struct {
	typed
	NextIndex   int64  `json:"next_index"`
	TreeSize    int64  `json:"tree_size"`
	SignerKey   string `json:"signer_key"`
	VerifierKey string `json:"verifier_key"`
}

func (s *Store) dumpLogState(ctx context.Context, tx *sql.Tx, enc *json.Encoder) error {
	r := logStateRecord{typed: typed{Type: logStateType}}
	err := tx.QueryRowContext(ctx, `SELECT h.next_index, t.tree_size, t.signer_key, t.verifier_key
FROM log_head h, log_tree t WHERE h.id = 1 AND t.id = 1`).Scan(&r.NextIndex, &r.TreeSize, &r.SignerKey, &r.VerifierKey)
	if err != nil {
		return s.fault("dump the log state", err)
	}
	return enc.Encode(r)
}

func (s *Store) restoreLogState(ctx context.Context, tx *sql.Tx, line []byte) error {
	var r logStateRecord
	if err := strictUnmarshal(line, &r); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE log_head SET next_index = ? WHERE id = 1`), r.NextIndex); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q(`UPDATE log_tree SET tree_size = ?, signer_key = ?, verifier_key = ? WHERE id = 1`),
		r.TreeSize, r.SignerKey, r.VerifierKey)
	return err
}

// clearEmptyLog forgets the checkpoints of an empty log (a pactd that
// served the new database before the restore signs one of size 0), so
// the database still counts as empty; its key stays unless the dump
// brings one.
func (s *Store) clearEmptyLog(ctx context.Context, tx *sql.Tx) error {
	var entries int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM log_entries`).Scan(&entries); err != nil || entries > 0 {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM log_checkpoints`)
	if err == nil {
		_, err = tx.ExecContext(ctx, `UPDATE log_tree SET tree_size = 0, tiles_size = 0 WHERE id = 1`)
	}
	return err
}
