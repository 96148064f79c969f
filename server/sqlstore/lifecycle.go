package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// Yanks, deprecations and package settings (registry.LifecycleStore). Each
// is one transaction, so whatever else must happen with them (a record of
// the event) can join it.

// SetYanked yanks or un-yanks one version and moves the package's latest
// version accordingly; see registry.LifecycleStore.
func (s *Store) SetYanked(ctx context.Context, c registry.YankChange) (*registry.Package, *registry.Version, error) {
	if c.Entry == nil || c.LatestOf == nil || c.State == nil {
		return nil, nil, fmt.Errorf("sqlstore: the yank of %s comes without its log entry or rule of latest (registry.NewYankChange)", c.Version)
	}
	var pkg *registry.Package
	var v *registry.Version
	err := s.transact(ctx, "yank", func(ctx context.Context, tx *sql.Tx) (err error) {
		pkg, v, err = s.setYankedTx(ctx, tx, c)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	s.notifyLog()
	s.changedPackage(pkg)
	return pkg, v, nil
}

func (s *Store) setYankedTx(ctx context.Context, tx *sql.Tx, c registry.YankChange) (*registry.Package, *registry.Version, error) {
	packageID, version := c.PackageID, c.Version
	// Writing the package row first locks it (PostgreSQL), as a publish
	// does before it compares versions: a concurrent publish of the same
	// package waits, then compares with the latest chosen here.
	res, err := tx.ExecContext(ctx, s.q(`UPDATE packages SET latest_version_id = latest_version_id WHERE id = ?`), packageID)
	if err := s.oneRow(res, err, "yank", func() error { return notFound("no such package %d", packageID) }); err != nil {
		return nil, nil, err
	}
	// The state before, for c.Entry: the domain logs only a change.
	var wasYanked bool
	var oldReason string
	err = tx.QueryRowContext(ctx, s.q(`SELECT yanked_at IS NOT NULL, yank_reason FROM versions WHERE package_id = ? AND version = ?`),
		packageID, version).Scan(&wasYanked, &oldReason)
	if err != nil && !errNoRows(err) {
		return nil, nil, err
	}
	if c.Yanked {
		res, err = tx.ExecContext(ctx, s.q(`UPDATE versions SET yanked_at = COALESCE(yanked_at, ?), yank_reason = ?
WHERE package_id = ? AND version = ?`), dbTime(c.At), c.Reason, packageID, version)
	} else {
		res, err = tx.ExecContext(ctx, s.q(`UPDATE versions SET yanked_at = NULL, yank_reason = ''
WHERE package_id = ? AND version = ?`), packageID, version)
	}
	if err != nil {
		return nil, nil, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return nil, nil, err
	} else if n == 0 {
		pkg, err := s.packageByID(ctx, tx, packageID)
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, notFound("no version %s of %s/%s", version, pkg.OwnerSlug, pkg.PackSlug)
	}
	if err := s.chooseLatest(ctx, tx, packageID, c.LatestOf); err != nil {
		return nil, nil, err
	}
	pkg, err := s.packageByID(ctx, tx, packageID)
	if err != nil {
		return nil, nil, err
	}
	if entry := c.Entry(wasYanked, oldReason); entry != nil {
		if _, err := s.appendLog(ctx, tx, entry); err != nil {
			return nil, nil, err
		}
		if _, err := s.appendPackState(ctx, tx, packageID, c.State); err != nil {
			return nil, nil, err
		}
	}
	v, err := scanVersion(tx.QueryRowContext(ctx, s.q(`SELECT `+versionColumns+` FROM versions v
WHERE v.package_id = ? AND v.version = ?`), packageID, version))
	if err != nil {
		return nil, nil, err
	}
	return pkg, v, nil
}

// chooseLatest makes the package's latest version the one latestOf, the
// domain's rule, picks among its versions that are not yanked, in publish
// order; with none, the package has no latest version (its name,
// description and scheme stay those of the last one).
func (s *Store) chooseLatest(ctx context.Context, tx *sql.Tx, packageID int64, latestOf func([]string) int) error {
	type candidate struct {
		id                                      int64
		version, name, description, scheme, sha string
	}
	rows, err := tx.QueryContext(ctx, s.q(`SELECT id, version, name, description, scheme, sha256 FROM versions
WHERE package_id = ? AND yanked_at IS NULL ORDER BY id`), packageID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var candidates []candidate
	var names []string
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.version, &c.name, &c.description, &c.scheme, &c.sha); err != nil {
			return err
		}
		candidates = append(candidates, c)
		names = append(names, c.version)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	i := latestOf(names)
	if i < 0 {
		_, err = tx.ExecContext(ctx, s.q(`UPDATE packages SET version = '', sha256 = '', latest_version_id = 0 WHERE id = ?`), packageID)
		return err
	}
	c := candidates[i]
	_, err = tx.ExecContext(ctx, s.q(`UPDATE packages
SET name = ?, description = ?, scheme = ?, version = ?, sha256 = ?, latest_version_id = ?
WHERE id = ?`), c.name, c.description, c.scheme, c.version, c.sha, c.id, packageID)
	return err
}

// SetDeprecated sets or clears a package's deprecation message and appends
// the pack-state entry c.State answers; see registry.LifecycleStore.
func (s *Store) SetDeprecated(ctx context.Context, c registry.DeprecationChange) (*registry.Package, error) {
	if c.State == nil {
		return nil, fmt.Errorf("sqlstore: the deprecation of package %d comes without its log entry (registry.NewDeprecationChange)", c.PackageID)
	}
	var pkg *registry.Package
	var logged bool
	err := s.transact(ctx, "deprecate", func(ctx context.Context, tx *sql.Tx) error {
		logged = false
		// The message before, read from the row this UPDATE locks
		// (PostgreSQL), so the entry logged is the change that was made.
		var was string
		err := tx.QueryRowContext(ctx, s.q(`UPDATE packages SET deprecated = deprecated WHERE id = ? RETURNING deprecated`), c.PackageID).Scan(&was)
		if errNoRows(err) {
			return notFound("no such package %d", c.PackageID)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE packages SET deprecated = ? WHERE id = ?`), c.Message, c.PackageID); err != nil {
			return err
		}
		index, err := s.appendPackState(ctx, tx, c.PackageID, func(st registry.PackState) *translog.Entry {
			return c.State(was, st)
		})
		if err != nil {
			return err
		}
		logged = index != nil
		if pkg, err = s.packageByID(ctx, tx, c.PackageID); err != nil || !logged {
			return err
		}
		// The webhooks of a deprecation that changed something, with the
		// pack-state entry that records it.
		return s.queueHooks(ctx, tx, s.hooks.Deprecation(pkg.OwnerSlug, pkg.PackSlug, c.Message, c.At), index)
	})
	if err != nil {
		return nil, err
	}
	if logged {
		s.notifyLog()
	}
	s.changedPackage(pkg)
	return pkg, nil
}

// SetTrustedPublishingOnly turns a package's trusted-publishing-only
// setting on or off and appends the entry c.Entry answers; see
// registry.LifecycleStore.
func (s *Store) SetTrustedPublishingOnly(ctx context.Context, c registry.TrustedPublishingChange) (*registry.Package, error) {
	if c.Entry == nil {
		return nil, fmt.Errorf("sqlstore: the change of package %d's trusted publishing comes without its log entry (registry.NewTrustedPublishingChange)", c.PackageID)
	}
	var pkg *registry.Package
	var logged bool
	err := s.transact(ctx, "set trusted publishing only", func(ctx context.Context, tx *sql.Tx) error {
		logged = false
		// The setting before, read from the row this UPDATE locks
		// (PostgreSQL): a concurrent change or publish of the package
		// waits, so the entry logged is the change that was made.
		var was bool
		err := tx.QueryRowContext(ctx, s.q(`UPDATE packages SET trusted_publishing_only = trusted_publishing_only WHERE id = ?
RETURNING trusted_publishing_only`), c.PackageID).Scan(&was)
		if errNoRows(err) {
			return notFound("no such package %d", c.PackageID)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE packages SET trusted_publishing_only = ? WHERE id = ?`), c.Only, c.PackageID); err != nil {
			return err
		}
		if pkg, err = s.packageByID(ctx, tx, c.PackageID); err != nil {
			return err
		}
		if entry := c.Entry(was); entry != nil {
			if _, err := s.appendLog(ctx, tx, entry); err != nil {
				return err
			}
			logged = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if logged {
		s.notifyLog()
	}
	s.changedPackage(pkg)
	return pkg, nil
}

func (s *Store) packageByID(ctx context.Context, tx *sql.Tx, packageID int64) (*registry.Package, error) {
	p, err := scanPackage(tx.QueryRowContext(ctx, s.q(`SELECT `+packageColumns+packageFrom+` WHERE p.id = ?`), packageID))
	if errNoRows(err) {
		return nil, notFound("no such package %d", packageID)
	}
	return p, err
}

// changedPackage drops what a yank or deprecation of p made stale in this
// process: its documents (a pinned one carries its yank, the latest may be
// another version now) and, by the generation, every list page kept above
// the store.
func (s *Store) changedPackage(p *registry.Package) {
	if s.cache != nil {
		s.cache.packageChanged(p.OwnerSlug, p.PackSlug)
	}
}

// allYanked is the answer for the latest version of a package whose every
// version is yanked.
func allYanked(p *registry.Package) error {
	return notFound("every version of %s/%s is yanked, so it has no latest version; name a version (@VERSION) to fetch a yanked one",
		p.OwnerSlug, p.PackSlug)
}
