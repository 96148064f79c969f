package sqlstore

import (
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// The rows of yanks, deprecations and package settings (registry.Tx). The
// changes are the domain's (registry.SetYanked, SetDeprecated,
// SetTrustedPublishingOnly), each one transaction of Store.Tx.

// sqlLockPackage writes the package's row without changing it, which
// holds it until the transaction ends (PostgreSQL; on SQLite the one
// writer), and answers it as scanPackage reads it: the row as it is once
// any transaction that held it before committed.
const sqlLockPackage = `UPDATE packages SET latest_version_id = latest_version_id WHERE id = ?
RETURNING id, owner_id, (SELECT a.username FROM accounts a WHERE a.id = packages.owner_id), pack_slug, name,
description, scheme, version, sha256, latest_version_id, created_at, updated_at, deprecated, trusted_publishing_only, downloads`

// LockPackage holds the package's row; its cached reads are dropped once
// the transaction commits, as the row is held to change the package.
func (t *txn) LockPackage(packageID int64) (*registry.Package, error) {
	pkg, err := scanPackage(t.queryRow(sqlLockPackage, packageID))
	if errNoRows(err) {
		return nil, notFound("no such package %d", packageID)
	}
	if err != nil {
		return nil, err
	}
	t.changed = append(t.changed, [2]string{pkg.OwnerSlug, pkg.PackSlug})
	return pkg, nil
}

func (t *txn) VersionOf(packageID int64, version string) (*registry.Version, error) {
	v, err := scanVersion(t.queryRow(`SELECT `+versionColumns+` FROM versions v WHERE v.package_id = ? AND v.version = ?`, packageID, version))
	if errNoRows(err) {
		return nil, nil
	}
	return v, err
}

func (t *txn) SetYanked(versionID int64, yanked bool, reason string, at time.Time) error {
	var err error
	if yanked {
		_, err = t.exec(`UPDATE versions SET yanked_at = COALESCE(yanked_at, ?), yank_reason = ? WHERE id = ?`, dbTime(at), reason, versionID)
	} else {
		_, err = t.exec(`UPDATE versions SET yanked_at = NULL, yank_reason = '' WHERE id = ?`, versionID)
	}
	return err
}

func (t *txn) UnyankedVersions(packageID int64) ([]registry.Version, error) {
	return txList(t, func(row scanner) (*registry.Version, error) {
		v := registry.Version{PackageID: packageID}
		return &v, row.Scan(&v.ID, &v.Version, &v.Name, &v.Description, &v.Scheme, &v.SHA256)
	}, `SELECT id, version, name, description, scheme, sha256 FROM versions WHERE package_id = ? AND yanked_at IS NULL ORDER BY id`, packageID)
}

func (t *txn) SetLatest(packageID int64, v *registry.Version) error {
	var err error
	if v == nil {
		_, err = t.exec(`UPDATE packages SET version = '', sha256 = '', latest_version_id = 0 WHERE id = ?`, packageID)
	} else {
		_, err = t.exec(sqlSetLatest, v.Name, v.Description, v.Scheme, v.Version, v.SHA256, v.ID, packageID)
	}
	return err
}

func (t *txn) SetDeprecated(packageID int64, message string) error {
	_, err := t.exec(`UPDATE packages SET deprecated = ? WHERE id = ?`, message, packageID)
	return err
}

func (t *txn) SetTrustedPublishingOnly(packageID int64, only bool) error {
	_, err := t.exec(`UPDATE packages SET trusted_publishing_only = ? WHERE id = ?`, only, packageID)
	return err
}

// changedPackage drops what a yank or deprecation of owner/pack made stale
// in this process: its documents (a pinned one carries its yank, the
// latest may be another version now) and, by the generation, every list
// page kept above the store.
func (s *Store) changedPackage(owner, pack string) {
	if s.cache != nil {
		s.cache.packageChanged(owner, pack)
	}
}

// allYanked is the answer for the latest version of a package whose every
// version is yanked.
func allYanked(p *registry.Package) error {
	return notFound("every version of %s/%s is yanked, so it has no latest version; name a version (@VERSION) to fetch a yanked one",
		p.OwnerSlug, p.PackSlug)
}
