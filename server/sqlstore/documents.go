package sqlstore

import (
	"context"

	"github.com/pact-registry/pact/server/registry"
)

// RowDocuments answers versions whose rows still hold their document; see
// registry.DocumentStore.
func (s *Store) RowDocuments(ctx context.Context, after int64, limit int) ([]registry.Version, error) {
	return queryList(ctx, s, "read documents", limit, func(row scanner) (*registry.Version, error) {
		var v registry.Version
		if err := row.Scan(&v.ID, &v.SHA256, &v.Size, &v.Content); err != nil {
			return nil, err
		}
		return &v, nil
	}, `SELECT v.id, v.sha256, v.size, v.content FROM versions v
WHERE v.id > ? AND length(v.content) > 0 ORDER BY v.id LIMIT ?`, after, limit)
}

// FreeRowDocument empties a version's content once its document is on the
// blob store; see registry.Tx. The cache may keep the bytes it read
// before: they are the same.
func (t *txn) FreeRowDocument(id int64, sha256 string) (bool, error) {
	res, err := t.exec(`UPDATE versions SET content = ? WHERE id = ? AND sha256 = ?`, []byte{}, id, sha256)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// freeRow runs the update that empties one row's bytes, answering missing
// when it matched no row.
func (s *Store) freeRow(ctx context.Context, op string, missing error, query string, args ...any) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(query), args...)
	if err != nil {
		return s.fault(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return s.fault(op, err)
	}
	if n == 0 {
		return missing
	}
	return nil
}

// DocumentNames calls fn with every version's sha256, reading them in
// pages by id, so no statement runs long.
func (s *Store) DocumentNames(ctx context.Context, fn func(sha256 string) error) error {
	const page = 10000
	var after int64
	for {
		type name struct {
			id     int64
			sha256 string
		}
		names, err := queryList(ctx, s, "read document names", page, func(row scanner) (*name, error) {
			var n name
			return &n, row.Scan(&n.id, &n.sha256)
		}, `SELECT v.id, v.sha256 FROM versions v WHERE v.id > ? ORDER BY v.id LIMIT ?`, after, page)
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := fn(n.sha256); err != nil {
				return err
			}
			after = n.id
		}
		if len(names) < page {
			return nil
		}
	}
}

// RowTiles answers full log tiles whose rows still hold their bytes; see
// registry.DocumentStore.
func (s *Store) RowTiles(ctx context.Context, afterLevel int, afterN int64, limit int) ([]registry.FullTile, error) {
	return queryList(ctx, s, "read log tiles", limit, func(row scanner) (*registry.FullTile, error) {
		var t registry.FullTile
		if err := row.Scan(&t.Level, &t.N, &t.Data); err != nil {
			return nil, err
		}
		t.Size = int64(len(t.Data))
		return &t, nil
	}, `SELECT level, n, data FROM log_tiles
WHERE sha256 = '' AND (level > ? OR level = ? AND n > ?) ORDER BY level, n LIMIT ?`, afterLevel, afterLevel, afterN, limit)
}

// FreeRowTile empties a full tile's row once its bytes are on the blob
// store; see registry.DocumentStore.
func (s *Store) FreeRowTile(ctx context.Context, level int, n int64, sha256 string, size int64) error {
	return s.freeRow(ctx, "free a log tile", notFound("no full log tile %d/%d", level, n),
		`UPDATE log_tiles SET data = ?, sha256 = ?, size = ? WHERE level = ? AND n = ?`, []byte{}, sha256, size, level, n)
}

// TileNames calls fn with the sha256 of every full tile on the blob
// store, reading them in pages by (level, n).
func (s *Store) TileNames(ctx context.Context, fn func(sha256 string) error) error {
	const page = 10000
	level, after := -2, int64(-1)
	for {
		tiles, err := queryList(ctx, s, "read log tile names", page, func(row scanner) (*registry.FullTile, error) {
			var t registry.FullTile
			return &t, row.Scan(&t.Level, &t.N, &t.SHA256)
		}, `SELECT level, n, sha256 FROM log_tiles
WHERE (level > ? OR level = ? AND n > ?) ORDER BY level, n LIMIT ?`, level, level, after, page)
		if err != nil {
			return err
		}
		for _, t := range tiles {
			if t.SHA256 != "" {
				if err := fn(t.SHA256); err != nil {
					return err
				}
			}
			level, after = t.Level, t.N
		}
		if len(tiles) < page {
			return nil
		}
	}
}
