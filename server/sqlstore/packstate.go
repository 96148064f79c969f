package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Pack-state entries (docs/protocol.md, Package state): after every event
// of a package the log records, its transaction appends the pack-state
// entry the domain builds from the package's state as that transaction
// leaves it (registry.PackState), and keeps the entry's index in
// packages.log_head. The package's row is locked by then (PostgreSQL; on
// SQLite the one writer), so two events of one package never state the
// same predecessor or a state the other overtook.

// packStateMigration is the migration that brings pack-state entries; the
// store appends a first one for every package that exists right after it
// (backfillPackStates).
const packStateMigration = 24

const (
	sqlPackState = `SELECT CASE WHEN latest_version_id = 0 THEN '' ELSE version END, deprecated, log_head
FROM packages WHERE id = ?`
	sqlYankedVersions = `SELECT version FROM versions WHERE package_id = ? AND yanked_at IS NOT NULL`
	sqlSetLogHead     = `UPDATE packages SET log_head = ? WHERE id = ?`
)

// packStateTx reads packageID's state as tx finds it.
func (s *Store) packStateTx(ctx context.Context, tx *sql.Tx, packageID int64) (registry.PackState, error) {
	var st registry.PackState
	var head sql.NullInt64
	if err := s.txQueryRow(ctx, tx, sqlPackState, packageID).Scan(&st.Latest, &st.Deprecated, &head); err != nil {
		return st, err
	}
	if head.Valid {
		st.Head = &head.Int64
	}
	rows, err := s.txQuery(ctx, tx, sqlYankedVersions, packageID)
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return st, err
		}
		st.Yanked = append(st.Yanked, v)
	}
	return st, rows.Err()
}

// backfillPackStates appends a first pack-state entry for every package
// that has none (made before pack-state entries), by id, with the entries
// Options.LogBackfill builds. The migration that brings them and a restore
// of a dump made before it run it.
func (s *Store) backfillPackStates(ctx context.Context, tx *sql.Tx, at time.Time) error {
	type pack struct {
		id          int64
		owner, pack string
	}
	var packs []pack
	rows, err := tx.QueryContext(ctx, `SELECT p.id, a.username, p.pack_slug FROM packages p JOIN accounts a ON a.id = p.owner_id
WHERE p.log_head IS NULL ORDER BY p.id`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var p pack
		if err := rows.Scan(&p.id, &p.owner, &p.pack); err != nil {
			rows.Close()
			return err
		}
		packs = append(packs, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(packs) > 0 && s.backfill == nil {
		return errNoBackfill
	}
	for _, p := range packs {
		st, err := s.packStateTx(ctx, tx, p.id)
		if err != nil {
			return err
		}
		index, err := s.appendLog(ctx, tx, s.backfill.PackState(p.owner, p.pack, st, at), 0)
		if err != nil {
			return err
		}
		if _, err := s.txExec(ctx, tx, sqlSetLogHead, index, p.id); err != nil {
			return err
		}
	}
	return nil
}

// PackageStates answers packages with their states, by id, after after;
// see registry.LogStore.
func (s *Store) PackageStates(ctx context.Context, after int64, limit int) ([]registry.StoredPackState, error) {
	list, err := queryList(ctx, s, "read package states", limit, func(row scanner) (*registry.StoredPackState, error) {
		var p registry.StoredPackState
		var head sql.NullInt64
		if err := row.Scan(&p.ID, &p.Owner, &p.Pack, &p.Latest, &p.Deprecated, &head); err != nil {
			return nil, err
		}
		if head.Valid {
			p.Head = &head.Int64
		}
		return &p, nil
	}, `SELECT p.id, a.username, p.pack_slug, CASE WHEN p.latest_version_id = 0 THEN '' ELSE p.version END, p.deprecated, p.log_head
FROM packages p JOIN accounts a ON a.id = p.owner_id WHERE p.id > ? ORDER BY p.id LIMIT ?`, after, limit)
	if err != nil || len(list) == 0 {
		return list, err
	}
	type yank struct {
		packageID int64
		version   string
	}
	yanks, err := queryList(ctx, s, "read yanked versions", 0, func(row scanner) (*yank, error) {
		var y yank
		return &y, row.Scan(&y.packageID, &y.version)
	}, `SELECT package_id, version FROM versions WHERE yanked_at IS NOT NULL AND package_id > ? AND package_id <= ?`,
		after, list[len(list)-1].ID)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*registry.StoredPackState, len(list))
	for i := range list {
		byID[list[i].ID] = &list[i]
	}
	for _, y := range yanks {
		if p := byID[y.packageID]; p != nil {
			p.Yanked = append(p.Yanked, y.version)
		}
	}
	return list, nil
}
