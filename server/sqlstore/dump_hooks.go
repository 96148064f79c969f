package sqlstore

import "time"

// Webhooks in a dump (format version 3, added without changing the
// version): the hooks, their secrets included (a restored registry signs
// as the old one did), failing and disabled as they were. Their queue of
// deliveries (hook_deliveries) is not dumped: it is a registry's work in
// progress, and a restored registry does not send again the events of
// before. A dump made before webhooks restores with none.

func init() {
	tables = append(tables,
		table{"hooks", "hook", "webhooks", `id, owner_id, package, url, secret, events, created_by, created_at, failing_since, disabled_at, disabled_note`, `id`, true,
			func() record { return new(hookRecord) }, func(c *BackupCounts) *int64 { return &c.Hooks }},
	)
}

type hookRecord struct {
	typed
	ID           int64      `json:"id"`
	OwnerID      int64      `json:"owner_id"`
	Package      string     `json:"package"`
	URL          string     `json:"url"`
	Secret       string     `json:"secret"`
	Events       string     `json:"events"`
	CreatedBy    int64      `json:"created_by"`
	CreatedAt    time.Time  `json:"created_at"`
	FailingSince *time.Time `json:"failing_since"`
	DisabledAt   *time.Time `json:"disabled_at"`
	DisabledNote string     `json:"disabled_note"`
}

func (r *hookRecord) dest() []any {
	return []any{&r.ID, &r.OwnerID, &r.Package, &r.URL, &r.Secret, &r.Events, &r.CreatedBy, &r.CreatedAt, &r.FailingSince, &r.DisabledAt, &r.DisabledNote}
}
func (r *hookRecord) args() []any {
	return []any{r.ID, r.OwnerID, r.Package, r.URL, r.Secret, r.Events, r.CreatedBy, r.CreatedAt.UTC(), nullable(r.FailingSince), nullable(r.DisabledAt), r.DisabledNote}
}
func (r *hookRecord) normalize() {
	r.CreatedAt = r.CreatedAt.UTC()
	utcPtr(r.FailingSince)
	utcPtr(r.DisabledAt)
}
func (r *hookRecord) getID() int64 { return r.ID }
