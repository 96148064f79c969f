package sqlstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Migrations are numbered files, NNNN_what.sql, one directory per engine.
// A released migration never changes; new ones get the next number.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

type migration struct {
	version int64
	name    string
	sql     string
}

func loadMigrations(dialect string) ([]migration, error) {
	dir := path.Join("migrations", dialect)
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		number, _, ok := strings.Cut(e.Name(), "_")
		version, err := strconv.ParseInt(number, 10, 64)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("sqlstore: migration %s/%s is not named NNNN_name.sql", dir, e.Name())
		}
		text, err := fs.ReadFile(migrationFiles, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: version, name: e.Name(), sql: string(text)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("sqlstore: two migrations numbered %d in %s", out[i].version, dir)
		}
	}
	return out, nil
}

// migrate applies every migration not applied yet, each in its own
// transaction together with its schema_migrations row. It uses the caller's
// context without the statement timeout: a migration may be slow, and a
// replica may wait while another one migrates.
func (s *Store) migrate(ctx context.Context) error {
	migrations, err := loadMigrations(s.dialect.name())
	if err != nil {
		return err
	}
	for _, m := range migrations {
		if err := s.applyMigration(ctx, m); err != nil {
			return s.fault("migration "+m.name, err)
		}
	}
	return nil
}

func (s *Store) applyMigration(ctx context.Context, m migration) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := s.dialect.lockMigrations(ctx, tx); err != nil {
		return err
	}
	// Created here, under the lock, because concurrent CREATE TABLE IF NOT
	// EXISTS can fail on PostgreSQL.
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    BIGINT PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP
)`); err != nil {
		return err
	}
	var applied int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT count(*) FROM schema_migrations WHERE version = ?`), m.version).Scan(&applied); err != nil {
		return err
	}
	if applied > 0 {
		return tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if m.version == logMigration {
		if err := s.backfillLog(ctx, tx); err != nil {
			return err
		}
	}
	if m.version == packStateMigration {
		if err := s.backfillPackStates(ctx, tx, time.Now()); err != nil {
			return err
		}
	}
	if m.version == logTilesMigration {
		if err := s.fillFullTiles(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, name) VALUES (?, ?)`), m.version, m.name); err != nil {
		return err
	}
	return tx.Commit()
}
