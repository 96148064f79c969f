package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/pact-registry/pact/server/registry"
)

// Releases (registry.ReleaseStore; migrations/*/0010_releases.sql).

const releaseColumns = `rel.id, rel.package_id, rel.version_id, a.username, p.pack_slug, v.version, v.sha256,
rel.artifact_index_url, rel.contract_url, rel.source_git_commit, rel.artifacts, rel.sha256, rel.log_index, rel.created_at`

const releaseFrom = ` FROM releases rel JOIN versions v ON v.id = rel.version_id JOIN packages p ON p.id = rel.package_id
JOIN accounts a ON a.id = p.owner_id`

func scanRelease(row scanner) (*registry.Release, error) {
	var r registry.Release
	var artifacts string
	var logIndex sql.NullInt64
	if err := row.Scan(&r.ID, &r.PackageID, &r.VersionID, &r.Owner, &r.Pack, &r.Version, &r.ContractSHA256,
		&r.ArtifactIndexURL, &r.ContractURL, &r.SourceGitCommit, &artifacts, &r.SHA256, &logIndex, &r.CreatedAt); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(artifacts), &r.Artifacts); err != nil {
		return nil, err
	}
	r.ArtifactCount = len(r.Artifacts)
	if logIndex.Valid {
		r.LogIndex = &logIndex.Int64
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

func (t *txn) HasVersion(packageID, versionID int64) (bool, error) {
	return t.exists(`SELECT 1 FROM versions WHERE id = ? AND package_id = ?`, versionID, packageID)
}

// InsertRelease inserts with ON CONFLICT DO NOTHING (both engines): a
// concurrent registration of the same version waits for the other, and a
// shared group-commit transaction is not aborted.
func (t *txn) InsertRelease(r *registry.Release) (bool, error) {
	artifacts := r.Artifacts
	if artifacts == nil {
		artifacts = []json.RawMessage{}
	}
	text, err := json.Marshal(artifacts)
	if err != nil {
		return false, err
	}
	err = t.queryRow(`INSERT INTO releases (package_id, version_id, artifact_index_url, contract_url,
source_git_commit, artifacts, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (version_id) DO NOTHING RETURNING id`, r.PackageID, r.VersionID, r.ArtifactIndexURL, r.ContractURL,
		r.SourceGitCommit, string(text), r.SHA256, dbTime(r.CreatedAt)).Scan(&r.ID)
	switch {
	case errNoRows(err):
		return false, nil
	case err != nil:
		return false, err
	}
	// The package's pages show its releases.
	t.changed = append(t.changed, [2]string{r.Owner, r.Pack})
	return true, nil
}

func (t *txn) ReleaseOfVersion(versionID int64) (*registry.Release, error) {
	return scanRelease(t.queryRow(`SELECT `+releaseColumns+releaseFrom+` WHERE rel.version_id = ?`, versionID))
}

func (t *txn) SetReleaseLogIndex(id, index int64) error {
	_, err := t.exec(`UPDATE releases SET log_index = ? WHERE id = ?`, index, id)
	return err
}

// ReleaseOf answers the release of one version.
func (s *Store) ReleaseOf(ctx context.Context, owner, pack, version string) (*registry.Release, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	r, err := scanRelease(s.read.QueryRowContext(ctx, s.q(`SELECT `+releaseColumns+releaseFrom+`
WHERE lower(a.username) = lower(?) AND p.pack_slug = ? AND v.version = ?`), owner, strings.ToLower(pack), version))
	if errNoRows(err) {
		if _, err := s.PackageBySlug(ctx, owner, pack); err != nil {
			return nil, err
		}
		return nil, notFound("%s/%s %s has no release", owner, pack, version)
	}
	if err != nil {
		return nil, s.fault("read release", err)
	}
	return r, nil
}

// releaseSummaryColumns are releaseColumns with the artifacts counted, not
// read: a list of releases shows the count (registry.ReleaseStore).
func (s *Store) releaseSummaryColumns() string {
	return strings.Replace(releaseColumns, "rel.artifacts", s.dialect.jsonArrayLength("rel.artifacts"), 1)
}

func scanReleaseSummary(row scanner) (*registry.Release, error) {
	var r registry.Release
	var logIndex sql.NullInt64
	if err := row.Scan(&r.ID, &r.PackageID, &r.VersionID, &r.Owner, &r.Pack, &r.Version, &r.ContractSHA256,
		&r.ArtifactIndexURL, &r.ContractURL, &r.SourceGitCommit, &r.ArtifactCount, &r.SHA256, &logIndex, &r.CreatedAt); err != nil {
		return nil, err
	}
	if logIndex.Valid {
		r.LogIndex = &logIndex.Int64
	}
	r.CreatedAt = r.CreatedAt.UTC()
	return &r, nil
}

// ListReleases lists a package's releases newest first, their artifacts
// counted.
func (s *Store) ListReleases(ctx context.Context, packageID int64, before int64, limit int) ([]registry.Release, error) {
	query := `SELECT ` + s.releaseSummaryColumns() + releaseFrom + ` WHERE rel.package_id = ?`
	args := []any{packageID}
	if before > 0 {
		query += ` AND rel.id < ?`
		args = append(args, before)
	}
	query += ` ORDER BY rel.id DESC LIMIT ?`
	args = append(args, limit)
	return queryList(ctx, s, "list releases", 0, scanReleaseSummary, query, args...)
}

// LoggedReleases answers releases by id, for the log check.
func (s *Store) LoggedReleases(ctx context.Context, after int64, limit int) ([]registry.Release, error) {
	return queryList(ctx, s, "read releases", limit, scanRelease,
		`SELECT `+releaseColumns+releaseFrom+` WHERE rel.id > ? ORDER BY rel.id LIMIT ?`, after, limit)
}
