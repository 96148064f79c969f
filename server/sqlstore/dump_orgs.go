package sqlstore

import "time"

// Organisations in a dump (format version 3, added without changing the
// version): the organisations themselves are accounts rows (kind and
// display_name), each version names its publisher and token, and this
// table the members. A dump made before organisations restores with none.

func init() {
	tables = append(tables,
		table{"org_members", "org_member", "organisation members", `org_id, account_id, role, created_at`, `org_id, account_id`, false,
			func() record { return new(orgMemberRecord) }, func(c *BackupCounts) *int64 { return &c.OrgMembers }},
	)
}

type orgMemberRecord struct {
	typed
	OrgID     int64     `json:"org_id"`
	AccountID int64     `json:"account_id"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"created_at"`
}

func (r *orgMemberRecord) dest() []any  { return []any{&r.OrgID, &r.AccountID, &r.Role, &r.CreatedAt} }
func (r *orgMemberRecord) args() []any  { return []any{r.OrgID, r.AccountID, r.Role, r.CreatedAt.UTC()} }
func (r *orgMemberRecord) normalize()   { r.CreatedAt = r.CreatedAt.UTC() }
func (r *orgMemberRecord) getID() int64 { return 0 }
