package sqlstore

import (
	"context"
	"database/sql"

	"github.com/pact-registry/pact/server/registry"
)

// sqlAddDownloads adds a count to a version's day: additive, so the flushes
// of several replicas add up. A version that is no longer there (a restore
// replaced the database since the download) is skipped rather than failing
// the flush and keeping its counts for ever.
const sqlAddDownloads = `INSERT INTO downloads (version_id, day, count)
SELECT CAST(? AS BIGINT), CAST(? AS INTEGER), CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM versions WHERE id = ?)
ON CONFLICT (version_id, day) DO UPDATE SET count = downloads.count + excluded.count`

const sqlAddPackageDownloads = `UPDATE packages SET downloads = downloads + ? WHERE id = ?`

// AddDownloads adds counts (registry.DownloadStore) in one transaction.
// It moves the generation, so the list pages kept above the store show
// the new totals; the documents kept stay.
func (s *Store) AddDownloads(ctx context.Context, counts []registry.DownloadCount) error {
	if len(counts) == 0 {
		return nil
	}
	err := s.transact(ctx, "add downloads", func(ctx context.Context, tx *sql.Tx) error {
		var pkg, total int64
		for i, c := range counts {
			if _, err := s.txExec(ctx, tx, sqlAddDownloads, c.VersionID, int64(c.Day), c.Count, c.VersionID); err != nil {
				return err
			}
			total += c.Count
			pkg = c.PackageID
			// counts come sorted by package: one update per package.
			if i+1 == len(counts) || counts[i+1].PackageID != pkg {
				if _, err := s.txExec(ctx, tx, sqlAddPackageDownloads, total, pkg); err != nil {
					return err
				}
				total = 0
			}
		}
		return nil
	})
	if err == nil && s.cache != nil {
		s.cache.generation.Add(1)
	}
	return err
}

// sqlPackageDownloads reads a package's downloads in one statement, so
// in one snapshot: a flush that commits meanwhile shows in both halves or
// in neither. Its first rows are each version's total (day -1), then the
// days from the given one on that have any (version ”).
const sqlPackageDownloads = `SELECT v.version, -1, CAST(COALESCE(SUM(d.count), 0) AS BIGINT) FROM versions v
LEFT JOIN downloads d ON d.version_id = v.id
WHERE v.package_id = ? GROUP BY v.id, v.version
UNION ALL
SELECT '', d.day, CAST(SUM(d.count) AS BIGINT) FROM downloads d
JOIN versions v ON v.id = d.version_id
WHERE v.package_id = ? AND d.day >= ? GROUP BY d.day`

// PackageDownloads answers the downloads of every version of packageID
// (registry.DownloadStore) and its days from since on that have any.
func (s *Store) PackageDownloads(ctx context.Context, packageID int64, since registry.Day) ([]registry.VersionDownloads, []registry.DayCount, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	const op = "read downloads"
	rows, err := s.read.QueryContext(ctx, s.q(sqlPackageDownloads), packageID, packageID, int64(since))
	if err != nil {
		return nil, nil, s.fault(op, err)
	}
	defer rows.Close()
	var versions []registry.VersionDownloads
	var days []registry.DayCount
	for rows.Next() {
		var version string
		var day, count int64
		if err := rows.Scan(&version, &day, &count); err != nil {
			return nil, nil, s.fault(op, err)
		}
		if day < 0 {
			versions = append(versions, registry.VersionDownloads{Version: version, Count: count})
		} else {
			days = append(days, registry.DayCount{Day: registry.Day(day), Count: count})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, s.fault(op, err)
	}
	return versions, days, nil
}
