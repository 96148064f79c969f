package sqlstore

import (
	"context"
	"database/sql"
)

// Statements of the publish path, prepared once on SQLite's writer pool
// when the store opens (docs/design.md, "Statements prepared once"):
// SQLite compiles a statement, and every trigger it fires, at each
// prepare, and mattn/go-sqlite3 keeps no statement cache of its own. A
// transaction reuses the compiled statement of its connection through
// (*sql.Tx).StmtContext. PostgreSQL needs none of this: pgx caches
// prepared statements per connection itself.
var hotStatements = []string{
	sqlSpendNonce, sqlKeyStillThere, sqlMemberRole, sqlPackageID, sqlInsertPackage, sqlSameVersion,
	sqlInsertVersion, sqlTouchPackage, sqlSetLatest, sqlAppendLogHead, sqlAppendLogEntry,
	sqlVersionLogged, sqlPackageByID, sqlPackState, sqlYankedVersions, sqlSetLogHead,
}

// The publish path's statements. A publish of a new version of a package
// that exists runs seven of them (docs/design.md, "Group commit"): each is a
// call into SQLite on the one writer, so each one left out is time the
// writer gives to the next publish.
const (
	sqlSpendNonce = `INSERT INTO nonces (fingerprint, nonce, spent_at) VALUES (?, ?, ?)
ON CONFLICT (fingerprint, nonce) DO NOTHING`
	sqlKeyStillThere = `SELECT count(*) FROM ssh_keys WHERE id = ? AND fingerprint = ?`
	sqlMemberRole    = `SELECT role FROM org_members WHERE org_id = ? AND account_id = ?`
	sqlPackageID     = `SELECT id FROM packages WHERE owner_id = ? AND pack_slug = ?`
	// No row back: another replica created the package meanwhile
	// (PostgreSQL); sqlPackageID then finds it.
	sqlInsertPackage = `INSERT INTO packages
(owner_id, pack_slug, name, description, scheme, version, sha256, latest_version_id, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)
ON CONFLICT (owner_id, pack_slug) DO NOTHING
RETURNING id`
	sqlSameVersion   = `SELECT sha256, log_index, id, created_at FROM versions WHERE package_id = ? AND version = ?`
	sqlInsertVersion = `INSERT INTO versions
(package_id, version, name, description, scheme, sha256, size, content, created_at, ci, publisher_id, token_id,
 key_id, key_fingerprint, signed_timestamp, nonce, signature, signed_name, signed_description, public_key)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (package_id, version) DO NOTHING
RETURNING id`
	// sqlTouchPackage answers the package as scanPackage reads it:
	// packageColumns, then its latest version (NULL while the package is
	// new or every version is yanked). That is the row's own version
	// column, which always names the row's latest_version_id: on
	// PostgreSQL, an UPDATE that waited for a concurrent publish's lock
	// answers that publish's row, while a subquery would still read the
	// versions table as it was when the UPDATE began.
	sqlTouchPackage = `UPDATE packages SET updated_at = ? WHERE id = ?
RETURNING id, owner_id, (SELECT a.username FROM accounts a WHERE a.id = packages.owner_id), pack_slug, name,
description, scheme, version, sha256, latest_version_id, created_at, updated_at, deprecated, trusted_publishing_only, downloads,
CASE WHEN latest_version_id = 0 THEN NULL ELSE version END`
	sqlSetLatest = `UPDATE packages
SET name = ?, description = ?, scheme = ?, version = ?, sha256 = ?, latest_version_id = ?
WHERE id = ?`
	sqlAppendLogHead  = `UPDATE log_head SET next_index = next_index + 1 WHERE id = 1 RETURNING next_index - 1`
	sqlAppendLogEntry = `INSERT INTO log_entries (idx, entry, created_at) VALUES (?, ?, ?)`
	sqlVersionLogged  = `UPDATE versions SET log_index = ? WHERE id = ?`
	// sqlAppendLogPostgres is the three above in one statement
	// (PostgreSQL only: SQLite has no data-modifying WITH). Its last
	// argument is the version to mark, or 0 for none.
	sqlAppendLogPostgres = `WITH head AS (
	UPDATE log_head SET next_index = next_index + 1 WHERE id = 1 RETURNING next_index - 1 AS idx
), entry AS (
	INSERT INTO log_entries (idx, entry, created_at) SELECT idx, CAST(? AS BYTEA), CAST(? AS TIMESTAMPTZ) FROM head RETURNING idx
), logged AS (
	UPDATE versions SET log_index = (SELECT idx FROM entry) WHERE id = CAST(? AS BIGINT)
)
SELECT idx FROM entry`
	sqlPackageByID = `SELECT ` + packageColumns + packageFrom + ` WHERE p.id = ?`
)

// readHotStatements are the statements of the read paths that serve the
// most requests from the database beside the point reads (pointread.go,
// which prepare the raw document's and the full log tile's on their own
// connections): the package page's document, latest and pinned.
// Prepared once, they save database/sql and the driver a statement look-up
// and a dozen allocations a read.
var readHotStatements = []string{versionDocumentQuery(false, false), versionDocumentQuery(false, true)}

// prepareHot prepares hotStatements on the writer pool,
// readHotStatements on the reader pool and pointStatements on the point
// reads' (SQLite only). A statement that fails to prepare is left out and
// runs unprepared.
func (s *Store) prepareHot(ctx context.Context) {
	if s.dialect.cachesStatements() {
		return
	}
	s.stmts = make(map[string]*sql.Stmt, len(hotStatements))
	for _, q := range hotStatements {
		if st, err := s.write.PrepareContext(ctx, q); err == nil {
			s.stmts[q] = st
		}
	}
	if s.point != nil {
		s.point.prepare(ctx)
	}
	s.readStmts = make(map[string]*sql.Stmt, len(readHotStatements))
	for _, q := range readHotStatements {
		if st, err := s.read.PrepareContext(ctx, q); err == nil {
			s.readStmts[q] = st
		}
	}
}

// readQueryRow runs query on the reader pool, prepared once when it is a
// read-hot statement.
func (s *Store) readQueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := s.readStmts[query]; ok {
		return st.QueryRowContext(ctx, args...)
	}
	return s.read.QueryRowContext(ctx, s.q(query), args...)
}

// closeHot finalizes the prepared statements before the pools close.
func (s *Store) closeHot() {
	for _, st := range s.stmts {
		st.Close()
	}
	for _, st := range s.readStmts {
		st.Close()
	}
	s.stmts, s.readStmts = nil, nil
}

// txExec runs query in tx, prepared once when it is a hot statement.
func (s *Store) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st, ok := s.stmts[query]; ok {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, s.q(query), args...)
}

// txQuery is txExec for a query answering rows.
func (s *Store) txQuery(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	if st, ok := s.stmts[query]; ok {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, s.q(query), args...)
}

// txQueryRow is txExec for a query answering one row.
func (s *Store) txQueryRow(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st, ok := s.stmts[query]; ok {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, s.q(query), args...)
}
