package sqlstore

import (
	"context"
	"database/sql"

	"github.com/pact-registry/pact/server/registry"
)

// Organisations (migrations/*/0011_organisations.sql; docs/design.md,
// Organisations): accounts rows of kind 'org' and their org_members. The
// changes of members are the domain's (registry.SetOrgMember), made
// through the rows of tx.go.

func scanMember(row scanner) (*registry.Member, error) {
	var m registry.Member
	var role string
	if err := row.Scan(&m.OrgID, &m.AccountID, &m.Username, &role, &m.CreatedAt); err != nil {
		return nil, err
	}
	m.Role, m.CreatedAt = registry.Role(role), m.CreatedAt.UTC()
	return &m, nil
}

func (t *txn) InsertOrg(org *registry.Account) error {
	org.CreatedAt = dbTime(org.CreatedAt)
	org.Kind = registry.KindOrg
	err := t.queryRow(`INSERT INTO accounts (email, username, password_hash, created_at, kind, display_name)
VALUES ('', ?, '', ?, 'org', ?) RETURNING id`, org.Username, org.CreatedAt, org.DisplayName).Scan(&org.ID)
	if err != nil && t.s.dialect.isUniqueViolation(err) {
		return conflict("the name %s is taken", org.Username)
	}
	return err
}

const memberSelect = `SELECT m.org_id, m.account_id, a.username, m.role, m.created_at FROM org_members m JOIN accounts a ON a.id = m.account_id`

// OrgMembers lists an organisation's members, owners first, then by username.
func (s *Store) OrgMembers(ctx context.Context, orgID int64) ([]registry.Member, error) {
	return queryList(ctx, s, "list members", 0, scanMember,
		memberSelect+` WHERE m.org_id = ? ORDER BY CASE m.role WHEN 'owner' THEN 0 ELSE 1 END, lower(a.username)`, orgID)
}

// OrgsOf lists the organisations accountID is a member of, by name; each
// Member's Username is the organisation's name.
func (s *Store) OrgsOf(ctx context.Context, accountID int64) ([]registry.Member, error) {
	return queryList(ctx, s, "list organisations", 0, scanMember,
		`SELECT m.org_id, m.account_id, o.username, m.role, m.created_at FROM org_members m JOIN accounts o ON o.id = m.org_id
WHERE m.account_id = ? ORDER BY lower(o.username)`, accountID)
}

// MemberRole reads accountID's role in orgID from the database.
func (s *Store) MemberRole(ctx context.Context, orgID, accountID int64) (registry.Role, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var role string
	err := s.read.QueryRowContext(ctx, s.q(`SELECT role FROM org_members WHERE org_id = ? AND account_id = ?`), orgID, accountID).Scan(&role)
	if errNoRows(err) {
		return "", nil
	}
	if err != nil {
		return "", s.fault("read member", err)
	}
	return registry.Role(role), nil
}

// lockOrg writes the organisation's row, which on PostgreSQL locks it
// until commit; SQLite has one writer at a time.
func (s *Store) lockOrg(ctx context.Context, tx *sql.Tx, orgID int64) error {
	res, err := tx.ExecContext(ctx, s.q(`UPDATE accounts SET kind = kind WHERE id = ? AND kind = 'org'`), orgID)
	return s.oneRow(res, err, "lock organisation", func() error { return notFound("no organisation %d", orgID) })
}

// changedMembers bumps the generation: pages kept above the store may
// show members (the keys of /{org}.keys, the organisation's page).
func (s *Store) changedMembers() {
	if s.cache != nil {
		s.cache.generation.Add(1)
	}
}

// CountOwned counts ownerID's packages that have a latest version.
func (s *Store) CountOwned(ctx context.Context, ownerID int64) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var n int64
	err := s.read.QueryRowContext(ctx, s.q(`SELECT count(*) FROM packages WHERE owner_id = ? AND latest_version_id <> 0`), ownerID).Scan(&n)
	return n, s.fault("count packages", err)
}

// CountOwnedOrgs counts the organisations accountID is an owner of.
func (s *Store) CountOwnedOrgs(ctx context.Context, accountID int64) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var n int64
	err := s.read.QueryRowContext(ctx, s.q(`SELECT count(*) FROM org_members WHERE account_id = ? AND role = 'owner'`), accountID).Scan(&n)
	return n, s.fault("count organisations", err)
}
