package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pact-registry/pact/server/registry"
)

// Seed loads packages in bulk, one version each, in a single transaction:
// the fast path behind the benchmark's million-package database, where one
// Publish per package would take an fsync each. Every input must name a
// package that does not exist yet, owned by an existing account, and come
// with its log entries (registry.ReadyAll); the publish rules
// (nonces, same-version checks, membership) are not applied, and no
// webhook delivery is queued (the domain queues those with the changes it
// makes), so Seed is for filling a fresh database, never for serving users.
func (s *Store) Seed(ctx context.Context, inputs []registry.SeedInput) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return s.fault("seed", err)
	}
	defer tx.Rollback()

	// The search index is built for the whole batch at the end, a step
	// that may take longer than a request's statement timeout.
	if err := s.dialect.search().deferIndex(ctx, tx); err != nil {
		return s.fault("seed", err)
	}
	if err := s.dialect.liftStatementTimeout(ctx, tx); err != nil {
		return s.fault("seed", err)
	}
	firstID := int64(-1)
	prepare := func(query string) (*sql.Stmt, error) { return tx.PrepareContext(ctx, s.q(query)) }
	insertPackage, err := prepare(`INSERT INTO packages
(owner_id, pack_slug, name, description, scheme, version, sha256, latest_version_id, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?) RETURNING id`)
	if err != nil {
		return s.fault("seed", err)
	}
	defer insertPackage.Close()
	insertVersion, err := prepare(`INSERT INTO versions
(package_id, version, name, description, scheme, sha256, size, content, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`)
	if err != nil {
		return s.fault("seed", err)
	}
	defer insertVersion.Close()
	setLatest, err := prepare(`UPDATE packages SET latest_version_id = ? WHERE id = ?`)
	if err != nil {
		return s.fault("seed", err)
	}
	defer setLatest.Close()
	setLogIndex, err := prepare(`UPDATE versions SET log_index = ? WHERE id = ?`)
	if err != nil {
		return s.fault("seed", err)
	}
	defer setLogIndex.Close()

	for i := range inputs {
		in := &inputs[i]
		if in.Provenance != nil {
			return invalid("seed: package %s/%s: signed versions cannot be seeded", in.OwnerSlug, in.PackSlug)
		}
		if in.Entry == nil || in.State == nil {
			return fmt.Errorf("sqlstore: seed: %s/%s %s comes without its log entries (registry.ReadyAll)", in.OwnerSlug, in.PackSlug, in.Version)
		}
		now := dbTime(in.Now)
		var packageID, versionID int64
		if err := insertPackage.QueryRowContext(ctx, in.OwnerID, in.PackSlug, in.Name, in.Description, in.Scheme,
			in.Version, in.SHA256, now, now).Scan(&packageID); err != nil {
			return s.fault(fmt.Sprintf("seed package %s/%s", in.OwnerSlug, in.PackSlug), err)
		}
		if err := insertVersion.QueryRowContext(ctx, packageID, in.Version, in.Name, in.Description, in.Scheme,
			in.SHA256, int64(len(in.Content)), in.Content, now).Scan(&versionID); err != nil {
			return s.fault(fmt.Sprintf("seed version %s/%s", in.OwnerSlug, in.PackSlug), err)
		}
		if _, err := setLatest.ExecContext(ctx, versionID, packageID); err != nil {
			return s.fault("seed", err)
		}
		// Seeded versions are logged as published ones are (translog.go),
		// with the entries the domain made (registry.ReadyAll).
		index, err := s.appendLog(ctx, tx, in.Entry, 0)
		if err != nil {
			return s.fault("seed: log the version", err)
		}
		if _, err := setLogIndex.ExecContext(ctx, index, versionID); err != nil {
			return s.fault("seed", err)
		}
		index, err = s.appendLog(ctx, tx, in.State, 0)
		if err == nil {
			_, err = s.txExec(ctx, tx, sqlSetLogHead, index, packageID)
		}
		if err != nil {
			return s.fault("seed: log the package's state", err)
		}
		if firstID < 0 {
			firstID = packageID
		}
	}
	if err := s.dialect.search().index(ctx, s, tx, max(firstID, 0)); err != nil {
		return s.fault("seed: search index", err)
	}
	err = tx.Commit()
	if s.cache != nil {
		s.cache.reset()
	}
	if err == nil {
		s.notifyLog()
	}
	return s.fault("seed", err)
}
