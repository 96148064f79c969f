package sqlstore

// Download counts in a dump (format version 3, added without changing the
// version): each version's count of each day, and (packageRecord.Downloads)
// each package's total. They are statistics, but an operator moving a
// registry keeps them; a dump made before them restores with none.

func init() {
	tables = append(tables,
		table{"downloads", "download", "download counts", `version_id, day, count`, `version_id, day`, false,
			func() record { return new(downloadRecord) }, func(c *BackupCounts) *int64 { return &c.Downloads }},
	)
}

type downloadRecord struct {
	typed
	VersionID int64 `json:"version_id"`
	Day       int64 `json:"day"` // days since 1970-01-01, UTC
	Count     int64 `json:"count"`
}

func (r *downloadRecord) dest() []any  { return []any{&r.VersionID, &r.Day, &r.Count} }
func (r *downloadRecord) args() []any  { return []any{r.VersionID, r.Day, r.Count} }
func (r *downloadRecord) normalize()   {}
func (r *downloadRecord) getID() int64 { return 0 }
