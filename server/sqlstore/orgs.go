package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// Organisations (migrations/*/0011_organisations.sql; docs/design.md,
// Organisations): accounts rows of kind 'org' and their org_members. Every
// change of members appends its log entry in its transaction, and the
// org's accounts row is written first, so that on PostgreSQL changes to one
// organisation's members take turns and the last owner cannot be removed
// by two owners removing each other at once.

func scanMember(row scanner) (*registry.Member, error) {
	var m registry.Member
	var role string
	if err := row.Scan(&m.OrgID, &m.AccountID, &m.Username, &role, &m.CreatedAt); err != nil {
		return nil, err
	}
	m.Role, m.CreatedAt = registry.Role(role), m.CreatedAt.UTC()
	return &m, nil
}

// CreateOrg stores org and creator as its first owner, and appends entry;
// see registry.OrgStore.
func (s *Store) CreateOrg(ctx context.Context, org *registry.Account, creator *registry.Account, entry *translog.Entry) error {
	org.CreatedAt = dbTime(org.CreatedAt)
	org.Kind = registry.KindOrg
	err := s.transact(ctx, "create organisation", func(ctx context.Context, tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, s.q(`INSERT INTO accounts (email, username, password_hash, created_at, kind, display_name)
VALUES ('', ?, '', ?, 'org', ?) RETURNING id`), org.Username, org.CreatedAt, org.DisplayName).Scan(&org.ID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO org_members (org_id, account_id, role, created_at) VALUES (?, ?, ?, ?)`),
			org.ID, creator.ID, string(registry.RoleOwner), org.CreatedAt); err != nil {
			return err
		}
		_, err = s.appendLog(ctx, tx, entry)
		return err
	})
	if err != nil && s.dialect.isUniqueViolation(err) {
		return conflict("the name %s is taken", org.Username)
	}
	if err == nil {
		s.notifyLog()
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

func memberRoleTx(ctx context.Context, s *Store, tx *sql.Tx, orgID, accountID int64) (string, error) {
	var role string
	err := s.txQueryRow(ctx, tx, sqlMemberRole, orgID, accountID).Scan(&role)
	if errNoRows(err) {
		return "", nil
	}
	return role, err
}

func countTx(ctx context.Context, s *Store, tx *sql.Tx, query string, args ...any) (int64, error) {
	var n int64
	err := tx.QueryRowContext(ctx, s.q(query), args...).Scan(&n)
	return n, err
}

// SetMember adds a member or changes its role; see registry.OrgStore.
func (s *Store) SetMember(ctx context.Context, u registry.MemberUpdate) (*registry.MemberChange, error) {
	if u.Entries == nil {
		return nil, errNoEntries(u)
	}
	org, member, role, at := u.Org, u.Member, u.Role, dbTime(u.At)
	var ch *registry.MemberChange
	err := s.transact(ctx, "set member", func(ctx context.Context, tx *sql.Tx) error {
		ch = &registry.MemberChange{}
		changed := false
		if err := s.lockOrg(ctx, tx, org.ID); err != nil {
			return err
		}
		old, err := memberRoleTx(ctx, s, tx, org.ID, member.ID)
		if err != nil {
			return err
		}
		switch {
		case old == string(role):
		case old == "":
			n, err := countTx(ctx, s, tx, `SELECT count(*) FROM org_members WHERE org_id = ?`, org.ID)
			if err != nil {
				return err
			}
			if n >= registry.MaxOrgMembers {
				return conflict("the organisation %s has %d members, the most it may", org.Username, n)
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO org_members (org_id, account_id, role, created_at) VALUES (?, ?, ?, ?)`),
				org.ID, member.ID, string(role), at); err != nil {
				return err
			}
			changed = true
		default:
			if old == string(registry.RoleOwner) {
				if err := s.notLastOwner(ctx, tx, org, member, "demote"); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE org_members SET role = ? WHERE org_id = ? AND account_id = ?`),
				string(role), org.ID, member.ID); err != nil {
				return err
			}
			changed = true
		}
		var revoked map[int64]int
		if old == string(registry.RoleOwner) && role != registry.RoleOwner {
			if revoked, err = s.revokeGrants(ctx, tx, org, member, at, ch); err != nil {
				return err
			}
		}
		if changed {
			if err := s.appendLogs(ctx, tx, u.Entries(ch.RemovedTrustedPublishers, revoked)); err != nil {
				return err
			}
		}
		ch.Changed = changed
		ch.Member, err = scanMember(tx.QueryRowContext(ctx, s.q(memberSelect+` WHERE m.org_id = ? AND m.account_id = ?`), org.ID, member.ID))
		return err
	})
	if err != nil {
		return nil, err
	}
	if ch.Changed {
		s.notifyLog()
		s.changedMembers()
	}
	return ch, nil
}

// RemoveMember removes a member; see registry.OrgStore.
func (s *Store) RemoveMember(ctx context.Context, u registry.MemberUpdate) (*registry.MemberChange, error) {
	if u.Entries == nil {
		return nil, errNoEntries(u)
	}
	org, member, at := u.Org, u.Member, dbTime(u.At)
	var ch *registry.MemberChange
	err := s.transact(ctx, "remove member", func(ctx context.Context, tx *sql.Tx) error {
		ch = &registry.MemberChange{Changed: true}
		if err := s.lockOrg(ctx, tx, org.ID); err != nil {
			return err
		}
		old, err := memberRoleTx(ctx, s, tx, org.ID, member.ID)
		if err != nil {
			return err
		}
		switch old {
		case "":
			return notFound("%s is not a member of the organisation %s", member.Username, org.Username)
		case string(registry.RoleOwner):
			if err := s.notLastOwner(ctx, tx, org, member, "remove"); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM org_members WHERE org_id = ? AND account_id = ?`), org.ID, member.ID); err != nil {
			return err
		}
		revoked, err := s.revokeGrants(ctx, tx, org, member, at, ch)
		if err != nil {
			return err
		}
		return s.appendLogs(ctx, tx, u.Entries(ch.RemovedTrustedPublishers, revoked))
	})
	if err != nil {
		return nil, err
	}
	s.notifyLog()
	s.changedMembers()
	return ch, nil
}

// errNoEntries refuses a member change the domain did not finish
// (registry.NewMemberUpdate).
func errNoEntries(u registry.MemberUpdate) error {
	return fmt.Errorf("sqlstore: the change of %s in %s comes without its log entries (registry.NewMemberUpdate)", u.Member.Username, u.Org.Username)
}

// appendLogs appends entries in order, inside tx.
func (s *Store) appendLogs(ctx context.Context, tx *sql.Tx, entries []*translog.Entry) error {
	for _, e := range entries {
		if _, err := s.appendLog(ctx, tx, e); err != nil {
			return err
		}
	}
	return nil
}

// revokeGrants deletes the trusted publishers member made for org and
// revokes the tokens exchanged through them that are active at at; see
// registry.OrgStore. It lists both in ch and answers, by trusted publisher,
// how many tokens it revoked through each, for the change's log entries.
// The caller holds org's row lock, which CreateTrustedPublisher (with its
// RequireOwner) and an exchanged token's CreateToken take too.
func (s *Store) revokeGrants(ctx context.Context, tx *sql.Tx, org, member *registry.Account, at time.Time, ch *registry.MemberChange) (map[int64]int, error) {
	rows, err := tx.QueryContext(ctx, s.q(trustedPublisherSelect+` WHERE p.account_id = ? AND p.created_by = ? ORDER BY p.id`), org.ID, member.ID)
	if err != nil {
		return nil, err
	}
	var removed []registry.TrustedPublisher
	for rows.Next() {
		p, err := scanTrustedPublisher(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		removed = append(removed, *p)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(removed) == 0 {
		return nil, err
	}
	gone := map[int64]int{} // trusted publisher id → tokens revoked through it
	for _, p := range removed {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM trusted_publishers WHERE id = ?`), p.ID); err != nil {
			return nil, err
		}
		gone[p.ID] = 0
	}
	type exchanged struct {
		id  int64
		via string
	}
	var active []exchanged
	rows, err = tx.QueryContext(ctx, s.q(`SELECT id, trusted_publishers FROM tokens WHERE account_id = ? AND trusted_publishers IS NOT NULL
AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY id`), org.ID, at)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var t exchanged
		if err := rows.Scan(&t.id, &t.via); err != nil {
			rows.Close()
			return nil, err
		}
		active = append(active, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var revoked []int64
	for _, t := range active {
		hit := false
		for _, word := range strings.Fields(t.via) {
			id, err := strconv.ParseInt(word, 10, 64)
			if _, ok := gone[id]; err == nil && ok {
				gone[id]++
				hit = true
			}
		}
		if !hit {
			continue
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE tokens SET revoked_at = ? WHERE id = ?`), at, t.id); err != nil {
			return nil, err
		}
		revoked = append(revoked, t.id)
	}
	ch.RemovedTrustedPublishers, ch.RevokedTokens = removed, revoked
	return gone, nil
}

// notLastOwner refuses to demote or remove member when it is org's only owner.
func (s *Store) notLastOwner(ctx context.Context, tx *sql.Tx, org, member *registry.Account, what string) error {
	n, err := countTx(ctx, s, tx, `SELECT count(*) FROM org_members WHERE org_id = ? AND role = 'owner'`, org.ID)
	if err != nil {
		return err
	}
	if n <= 1 {
		return conflict("cannot %s %s: it is the last owner of the organisation %s, which always keeps one; make another member an owner first",
			what, member.Username, org.Username)
	}
	return nil
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
