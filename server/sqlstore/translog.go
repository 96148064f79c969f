package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// The transparency log's storage (docs/protocol.md, Transparency log;
// docs/design.md). log_head.next_index hands out entry indexes: every write
// the log records appends its entry with appendLog inside its own
// transaction, so an entry exists iff the change committed. On PostgreSQL
// the UPDATE of that one row locks it until the appender commits, which
// orders appenders on every replica into one dense sequence; on SQLite the
// one writer does (and a group-commit batch gets consecutive indexes). The
// sequencer (SequenceLog) later hashes entries into tlog's stored hashes,
// under log_tree's row (locked FOR UPDATE on PostgreSQL), so replicas
// sequencing at once take turns.

// logMigration is the migration that creates the log; the store appends
// the versions and keys that exist already right after it, in the same
// transaction (backfillLog).
const logMigration = 7

// logTilesMigration is the migration that makes log_tiles (13 on both
// engines; SQLite has no 12); the store fills it for the tree sequenced
// so far right after it (fillFullTiles).
const logTilesMigration = 13

// appendLog appends entry to the log inside tx and answers its index; the
// row is dated at the entry's time, and when versionID is not 0 the index
// is recorded as that version's log index (on PostgreSQL in the same
// statement: the head's row lock is taken by it and held only until the
// commit, not across round trips; docs/design.md, "Group commit"). Every
// change the log records appends its entry in its own transaction, the one
// the domain built (server/registry), through Tx.AppendLog; the store's
// own appends are a seed's and a backfill's. A new kind of event needs only
// its entry (pkg/translog), built there. The store queues no webhooks: the
// domain queues an event's deliveries with its entry (registry's
// appendEntry), so a migration's or a restore's backfill and a seed queue
// none. Callers signal the sequencer after commit (notifyLog).
func (s *Store) appendLog(ctx context.Context, tx *sql.Tx, entry *translog.Entry, versionID int64) (int64, error) {
	if entry == nil {
		return 0, errors.New("sqlstore: a change the log records came without its log entry")
	}
	at := entry.Time
	data := entry.Marshal()
	if len(data) > translog.MaxEntrySize {
		return 0, invalid("the log entry of this change would be %d bytes, more than %d", len(data), translog.MaxEntrySize)
	}
	return s.dialect.appendLog(ctx, s, tx, data, at, versionID)
}

// notifyLog tells this process's sequencer that an append committed.
func (s *Store) notifyLog() {
	select {
	case s.logAppended <- struct{}{}:
	default:
	}
}

// LogAppended receives after an append of this Store commits.
func (s *Store) LogAppended() <-chan struct{} { return s.logAppended }

// SetLogKey stores the log's keys unless it has some; see registry.LogStore.
func (s *Store) SetLogKey(ctx context.Context, signerKey, verifierKey string) (string, string, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	_, err := s.write.ExecContext(ctx, s.q(`UPDATE log_tree SET signer_key = ?, verifier_key = ? WHERE id = 1 AND verifier_key = ''`),
		signerKey, verifierKey)
	if err != nil {
		return "", "", s.fault("store the log key", err)
	}
	st, err := s.LogState(ctx)
	return st.SignerKey, st.VerifierKey, err
}

// LogState answers where the log stands.
func (s *Store) LogState(ctx context.Context) (registry.LogState, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var st registry.LogState
	err := s.read.QueryRowContext(ctx, `SELECT t.signer_key, t.verifier_key, h.next_index, t.tree_size, t.tiles_size
FROM log_tree t, log_head h WHERE t.id = 1 AND h.id = 1`).Scan(&st.SignerKey, &st.VerifierKey, &st.Entries, &st.TreeSize, &st.TilesSize)
	return st, s.fault("read the log state", err)
}

// SequenceLog hashes new entries into the tree and stores a signed
// checkpoint; see registry.LogStore.
func (s *Store) SequenceLog(ctx context.Context, max int, sign func(size int64, root tlog.Hash) ([]byte, error)) (int64, error) {
	var size int64
	err := s.transact(ctx, "sequence the log", func(ctx context.Context, tx *sql.Tx) (err error) {
		size, err = s.sequenceTx(ctx, tx, max, sign)
		return err
	})
	return size, err
}

func (s *Store) sequenceTx(ctx context.Context, tx *sql.Tx, max int, sign func(int64, tlog.Hash) ([]byte, error)) (int64, error) {
	var size, tilesSize int64
	if err := tx.QueryRowContext(ctx, `SELECT tree_size, tiles_size FROM log_tree WHERE id = 1`+s.dialect.forUpdate()).Scan(&size, &tilesSize); err != nil {
		return 0, err
	}
	rows, err := tx.QueryContext(ctx, s.q(`SELECT idx, entry FROM log_entries WHERE idx >= ? ORDER BY idx LIMIT ?`), size, max)
	if err != nil {
		return 0, err
	}
	var entries [][]byte
	for rows.Next() {
		var idx int64
		var data []byte
		if err := rows.Scan(&idx, &data); err != nil {
			rows.Close()
			return 0, err
		}
		if idx != size+int64(len(entries)) {
			break // appends commit in index order, so a gap is never seen; stop at one all the same
		}
		entries = append(entries, data)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(entries) == 0 {
		var signed int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT count(*) FROM log_checkpoints WHERE size = ?`), size).Scan(&signed); err != nil {
			return 0, err
		}
		if signed > 0 {
			// Nothing new; the tiles of what an older pactd sequenced
			// may still be missing.
			return size, s.storeTilesUpTo(ctx, tx, tilesSize, size, size, s.txHashReader(ctx, tx))
		}
	}

	// New hashes are kept here until they are written; older ones are
	// read from the table (a few per entry: the tree's right edge).
	known := map[int64]tlog.Hash{}
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		var missing []int64
		for _, x := range indexes {
			if _, ok := known[x]; !ok {
				missing = append(missing, x)
			}
		}
		if len(missing) > 0 {
			got, err := s.readHashes(ctx, tx, missing)
			if err != nil {
				return nil, err
			}
			for i, x := range missing {
				known[x] = got[i]
			}
		}
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			out[i] = known[x]
		}
		return out, nil
	})
	var newIDs []int64
	for i, data := range entries {
		n := size + int64(i)
		hashes, err := tlog.StoredHashes(n, data, reader)
		if err != nil {
			return 0, err
		}
		first := tlog.StoredHashIndex(0, n)
		for j, h := range hashes {
			known[first+int64(j)] = h
			newIDs = append(newIDs, first+int64(j))
		}
	}
	newSize := size + int64(len(entries))
	for start := 0; start < len(newIDs); start += 256 {
		chunk := newIDs[start:min(start+256, len(newIDs))]
		args := make([]any, 0, 2*len(chunk))
		for _, id := range chunk {
			h := known[id]
			args = append(args, id, h[:])
		}
		values := strings.TrimSuffix(strings.Repeat("(?, ?), ", len(chunk)), ", ")
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO log_hashes (id, hash) VALUES `+values), args...); err != nil {
			return 0, err
		}
	}
	if err := s.storeTilesUpTo(ctx, tx, tilesSize, size, newSize, reader); err != nil {
		return 0, err
	}
	root, err := tlog.TreeHash(newSize, reader)
	if err != nil {
		return 0, err
	}
	signed, err := sign(newSize, root)
	if err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO log_checkpoints (size, note, created_at) VALUES (?, ?, ?)`),
		newSize, signed, dbTime(time.Now())); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE log_tree SET tree_size = ? WHERE id = 1`), newSize); err != nil {
		return 0, err
	}
	return newSize, nil
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readHashes reads stored hashes by index, in the order asked.
func (s *Store) readHashes(ctx context.Context, db queryer, indexes []int64) ([]tlog.Hash, error) {
	byID := make(map[int64]tlog.Hash, len(indexes))
	for start := 0; start < len(indexes); start += 512 {
		chunk := indexes[start:min(start+512, len(indexes))]
		args := make([]any, len(chunk))
		for i, x := range chunk {
			args[i] = x
		}
		rows, err := db.QueryContext(ctx, s.q(`SELECT id, hash FROM log_hashes WHERE id IN (`+
			strings.TrimSuffix(strings.Repeat("?, ", len(chunk)), ", ")+`)`), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var h []byte
			if err := rows.Scan(&id, &h); err != nil {
				rows.Close()
				return nil, err
			}
			if len(h) != tlog.HashSize {
				rows.Close()
				return nil, fmt.Errorf("stored hash %d is %d bytes long", id, len(h))
			}
			byID[id] = tlog.Hash(h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		h, ok := byID[x]
		if !ok {
			return nil, notFound("the log has no stored hash %d", x)
		}
		out[i] = h
	}
	return out, nil
}

// LogHashes answers stored hashes by index.
func (s *Store) LogHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	hashes, err := s.readHashes(ctx, s.read, indexes)
	return hashes, s.fault("read log hashes", err)
}

// LatestCheckpoint answers the checkpoint of the largest tree.
func (s *Store) LatestCheckpoint(ctx context.Context) (int64, []byte, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var size int64
	var signed []byte
	err := s.read.QueryRowContext(ctx, `SELECT size, note FROM log_checkpoints ORDER BY size DESC LIMIT 1`).Scan(&size, &signed)
	if errNoRows(err) {
		return 0, nil, registry.Errorf(registry.Unavailable, "the log has no checkpoint yet: try again in a moment")
	}
	return size, signed, s.fault("read the checkpoint", err)
}

// LogCheckpoints calls fn for every checkpoint, smallest first.
func (s *Store) LogCheckpoints(ctx context.Context, fn func(size int64, signed []byte) error) error {
	for after := int64(-1); ; {
		type cp struct {
			size   int64
			signed []byte
		}
		list, err := queryList(ctx, s, "read checkpoints", 256, func(row scanner) (*cp, error) {
			var c cp
			return &c, row.Scan(&c.size, &c.signed)
		}, `SELECT size, note FROM log_checkpoints WHERE size > ? ORDER BY size LIMIT 256`, after)
		if err != nil {
			return err
		}
		for _, c := range list {
			if err := fn(c.size, c.signed); err != nil {
				return err
			}
			after = c.size
		}
		if len(list) < 256 {
			return nil
		}
	}
}

// LogEntries answers the entries with index in [start, end).
func (s *Store) LogEntries(ctx context.Context, start, end int64) ([][]byte, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	entries, err := s.readEntries(ctx, s.read, start, end)
	return entries, s.fault("read log entries", err)
}

// readEntries reads the entries with index in [start, end), which must
// all exist.
func (s *Store) readEntries(ctx context.Context, db queryer, start, end int64) ([][]byte, error) {
	rows, err := db.QueryContext(ctx, s.q(`SELECT idx, entry FROM log_entries WHERE idx >= ? AND idx < ? ORDER BY idx`), start, end)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([][]byte, 0, end-start)
	for rows.Next() {
		var idx int64
		var data []byte
		if err := rows.Scan(&idx, &data); err != nil {
			return nil, err
		}
		if idx != start+int64(len(out)) {
			return nil, fmt.Errorf("log entry %d is missing", start+int64(len(out)))
		}
		out = append(out, data)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if int64(len(out)) != end-start {
		return nil, fmt.Errorf("log entry %d is missing", start+int64(len(out)))
	}
	return out, nil
}

// Full tiles stored whole (docs/design.md): a full hash tile or entry
// bundle never changes, so the sequencer stores its bytes, as served, in
// the transaction that makes it full, and a read of one is one row by key
// instead of 256. Partial tiles, at the tree's right edge, are still made
// from log_hashes and log_entries.

// defaultTileCatchUp bounds the entries whose full tiles one sequencing
// round stores when it catches up with what an older pactd sequenced (a
// replica not yet upgraded): 64 hash tiles and 64 bundles, so the round
// stays short; the next rounds go on from there (Options.TileCatchUp).
const defaultTileCatchUp = 64 * translog.TileWidth

// storeTilesUpTo stores the full tiles of the tree that are not stored yet:
// those past tiles (tiles_size) up to the round's new size, or only up to
// tiles+s.tileCatchUp while more than that many entries below the round's
// old size lack theirs. It moves tiles_size to where it stopped.
func (s *Store) storeTilesUpTo(ctx context.Context, tx *sql.Tx, tiles, size, newSize int64, reader tlog.HashReader) error {
	to := newSize
	if size-tiles > s.tileCatchUp {
		to = tiles + s.tileCatchUp
	}
	if tiles >= to {
		return nil
	}
	if err := s.storeFullTiles(ctx, tx, tiles, to, reader); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q(`UPDATE log_tree SET tiles_size = ? WHERE id = 1`), to)
	return err
}

// txHashReader reads the tree's stored hashes inside tx.
func (s *Store) txHashReader(ctx context.Context, tx *sql.Tx) tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		return s.readHashes(ctx, tx, indexes)
	})
}

// storeFullTiles stores the full tiles a tree of size to holds and one of
// size from does not, inside tx; reader answers the tree's stored hashes.
func (s *Store) storeFullTiles(ctx context.Context, tx *sql.Tx, from, to int64, reader tlog.HashReader) error {
	return translog.FullTiles(from, to, func(t tlog.Tile) error {
		var data []byte
		var err error
		if t.L == -1 {
			var entries [][]byte
			if entries, err = s.readEntries(ctx, tx, t.N*translog.TileWidth, (t.N+1)*translog.TileWidth); err == nil {
				data, err = translog.EncodeBundle(entries)
			}
		} else {
			data, err = tlog.ReadTileData(t, reader)
		}
		if err != nil {
			return fmt.Errorf("the full log tile %s: %w", translog.TilePath(t), err)
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO log_tiles (level, n, data) VALUES (?, ?, ?)
ON CONFLICT (level, n) DO NOTHING`), t.L, t.N, data)
		return err
	})
}

// fillFullTiles stores every full tile of the sequenced tree afresh: after
// the migration that made log_tiles, and after a restore.
func (s *Store) fillFullTiles(ctx context.Context, tx *sql.Tx) error {
	var size int64
	if err := tx.QueryRowContext(ctx, `SELECT tree_size FROM log_tree WHERE id = 1`).Scan(&size); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM log_tiles`); err != nil {
		return err
	}
	if err := s.storeFullTiles(ctx, tx, 0, size, s.txHashReader(ctx, tx)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, s.q(`UPDATE log_tree SET tiles_size = ? WHERE id = 1`), size)
	return err
}

const sqlLogFullTile = `SELECT data, sha256, size FROM log_tiles WHERE level = ? AND n = ?`

// LogFullTile answers a full tile as stored: its bytes, or the name of
// its blob once they are on the blob store; see registry.LogStore.
func (s *Store) LogFullTile(ctx context.Context, level int, n int64) (registry.FullTile, bool, error) {
	t := registry.FullTile{Level: level, N: n}
	err := s.pointRow(ctx, sqlLogFullTile, func(row scanner) error { return row.Scan(&t.Data, &t.SHA256, &t.Size) }, level, n)
	if errNoRows(err) {
		return registry.FullTile{}, false, nil
	}
	return t, err == nil, s.fault("read a log tile", err)
}

// LoggedVersions answers versions with their documents, by id.
func (s *Store) LoggedVersions(ctx context.Context, after int64, limit int) ([]registry.LoggedVersion, error) {
	return queryList(ctx, s, "read versions", limit, func(row scanner) (*registry.LoggedVersion, error) {
		var v registry.LoggedVersion
		var idx sql.NullInt64
		if err := row.Scan(&v.ID, &v.Owner, &v.Pack, &v.Version, &v.SHA256, &v.Content, &idx); err != nil {
			return nil, err
		}
		if idx.Valid {
			v.LogIndex = &idx.Int64
		}
		return &v, nil
	}, `SELECT v.id, a.username, p.pack_slug, v.version, v.sha256, v.content, v.log_index
FROM versions v JOIN packages p ON p.id = v.package_id JOIN accounts a ON a.id = p.owner_id
WHERE v.id > ? ORDER BY v.id LIMIT ?`, after, limit)
}

// TrustedPublishingOnlyPackages answers the packages set to trusted
// publishing only, by id, after after; see registry.LogStore.
func (s *Store) TrustedPublishingOnlyPackages(ctx context.Context, after int64, limit int) ([]registry.Package, error) {
	return queryList(ctx, s, "read package settings", limit, scanPackage,
		`SELECT `+packageColumns+packageFrom+` WHERE p.trusted_publishing_only AND p.id > ? ORDER BY p.id LIMIT ?`, after, limit)
}

// errNoBackfill refuses a database or dump from before the log when the
// Store was opened without the domain's entries for it.
var errNoBackfill = errors.New("sqlstore: this database or dump holds versions or SSH keys from before the transparency log, " +
	"and the Store was opened without the entries to log them with (Options.LogBackfill)")

// backfillLog appends the versions and keys that exist but are not logged
// yet, in the order they were made (time, then versions before keys, then
// id), with the entries Options.LogBackfill builds, and gives each version
// its log_index. The migration that creates the log and a restore of a
// dump made before it run it.
func (s *Store) backfillLog(ctx context.Context, tx *sql.Tx) error {
	type event struct {
		at      time.Time
		kind    int // 0 version, 1 key
		id      int64
		entry   *translog.Entry
		version bool
	}
	var events []event
	rows, err := tx.QueryContext(ctx, `SELECT v.id, a.username, p.pack_slug, v.version, v.sha256, v.size, v.created_at,
v.key_fingerprint, v.signed_timestamp, v.nonce, v.signed_name, v.signed_description, v.public_key
FROM versions v JOIN packages p ON p.id = v.package_id JOIN accounts a ON a.id = p.owner_id
WHERE v.log_index IS NULL ORDER BY v.id`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, size int64
		var owner, pack, version, sum string
		var at time.Time
		var fingerprint, nonce, signedName, signedDescription, publicKey sql.NullString
		var timestamp sql.NullInt64
		if err := rows.Scan(&id, &owner, &pack, &version, &sum, &size, &at, &fingerprint, &timestamp, &nonce,
			&signedName, &signedDescription, &publicKey); err != nil {
			rows.Close()
			return err
		}
		var p *registry.Provenance
		if fingerprint.Valid {
			p = &registry.Provenance{Fingerprint: fingerprint.String, Timestamp: timestamp.Int64, Nonce: nonce.String,
				SignedLinesKnown: signedName.Valid && signedDescription.Valid, SignedName: signedName.String,
				SignedDescription: signedDescription.String, PublicKey: publicKey.String}
		}
		if s.backfill == nil {
			rows.Close()
			return errNoBackfill
		}
		events = append(events, event{at: at.UTC(), kind: 0, id: id, version: true,
			entry: s.backfill.Publish(owner, pack, version, sum, size, at, p)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var logged int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM log_entries`).Scan(&logged); err != nil {
		return err
	}
	if logged == 0 {
		// Keys are logged as they are added from now on; the ones that
		// exist are appended once, with the log's first entries.
		rows, err = tx.QueryContext(ctx, `SELECT k.id, a.username, k.fingerprint, k.public_key, k.created_at
FROM ssh_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.id`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k registry.SSHKey
			var owner string
			if err := rows.Scan(&k.ID, &owner, &k.Fingerprint, &k.PublicKey, &k.CreatedAt); err != nil {
				rows.Close()
				return err
			}
			if s.backfill == nil {
				rows.Close()
				return errNoBackfill
			}
			events = append(events, event{at: k.CreatedAt.UTC(), kind: 1, id: k.ID, entry: s.backfill.KeyAdd(owner, &k)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	sort.SliceStable(events, func(i, j int) bool {
		a, b := events[i], events[j]
		if !a.at.Equal(b.at) {
			return a.at.Before(b.at)
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.id < b.id
	})
	for _, e := range events {
		index, err := s.appendLog(ctx, tx, e.entry, 0)
		if err != nil {
			return err
		}
		if e.version {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE versions SET log_index = ? WHERE id = ?`), index, e.id); err != nil {
				return err
			}
		}
	}
	return nil
}
