package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// Tx runs fn, a change of the domain, in one transaction (transact: on
// SQLite a savepoint of a transaction shared with concurrent writes, one
// fsync for the batch; on PostgreSQL a transaction of its own, run again
// when it loses a race with another replica). What follows the commit
// (dropping cached reads, waking the log's sequencer) happens once fn's
// changes committed.
func (s *Store) Tx(ctx context.Context, fn func(registry.Tx) error) error {
	var t *txn
	err := s.transact(ctx, "transaction", func(ctx context.Context, tx *sql.Tx) error {
		t = &txn{s: s, ctx: ctx, tx: tx}
		return fn(t)
	})
	if err != nil {
		return err
	}
	t.committed()
	return nil
}

// txn is registry.Tx on one run of a transaction: the rows it reads and
// writes, and what its commit must be followed by.
type txn struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
	// logged: an entry was appended (the sequencer is woken);
	// published: the packages that got a version (their cached reads
	// go).
	logged    bool
	published [][2]string
	// members: the members of an organisation changed (pages kept
	// above the store may show them).
	members bool
	// keys: an SSH key was deleted (cached versions it signed link to
	// it).
	keys bool
	// changed: the packages whose row was held to change them (a yank,
	// a deprecation, a setting) or that got a release: their cached
	// reads go.
	changed [][2]string
}

var _ registry.Tx = (*txn)(nil)

func (t *txn) committed() {
	if t.s.cache != nil {
		for _, p := range t.published {
			t.s.cache.published(p[0], p[1])
		}
	}
	for _, p := range t.changed {
		t.s.changedPackage(p[0], p[1])
	}
	if t.logged {
		t.s.notifyLog()
	}
	if t.members {
		t.s.changedMembers()
	}
	if t.keys && t.s.cache != nil {
		t.s.cache.reset()
	}
}

func (t *txn) queryRow(query string, args ...any) *sql.Row {
	return t.s.txQueryRow(t.ctx, t.tx, query, args...)
}

func (t *txn) exec(query string, args ...any) (sql.Result, error) {
	return t.s.txExec(t.ctx, t.tx, query, args...)
}

func (t *txn) SpendNonce(fingerprint, nonce string, at time.Time) (bool, error) {
	res, err := t.exec(sqlSpendNonce, fingerprint, nonce, dbTime(at))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *txn) SSHKeyHas(keyID int64, fingerprint string) (bool, error) {
	var keys int
	err := t.queryRow(sqlKeyStillThere, keyID, fingerprint).Scan(&keys)
	return keys > 0, err
}

func (t *txn) MemberRole(orgID, accountID int64) (registry.Role, error) {
	var role string
	err := t.queryRow(sqlMemberRole, orgID, accountID).Scan(&role)
	if errNoRows(err) {
		return "", nil
	}
	return registry.Role(role), err
}

func (t *txn) PackageFor(in *registry.PublishInput) (int64, error) {
	var id int64
	err := t.queryRow(sqlPackageID, in.OwnerID, in.PackSlug).Scan(&id)
	if !errNoRows(err) {
		return id, err
	}
	now := dbTime(in.Now)
	err = t.queryRow(sqlInsertPackage,
		in.OwnerID, in.PackSlug, in.Name, in.Description, in.Scheme, in.Version, in.SHA256, now, now).Scan(&id)
	switch {
	case errNoRows(err):
		// Created meanwhile by another replica (PostgreSQL).
		err = t.queryRow(sqlPackageID, in.OwnerID, in.PackSlug).Scan(&id)
	case err != nil && t.s.dialect.isForeignKeyViolation(err):
		return 0, notFound("no such account %d", in.OwnerID)
	}
	return id, err
}

// InsertVersion inserts without looking first; DO NOTHING makes a version
// that exists (republished, or published meanwhile by another replica) an
// answer, never a unique-violation fault.
func (t *txn) InsertVersion(packageID int64, in *registry.PublishInput) (*registry.Version, bool, error) {
	now := dbTime(in.Now)
	v := &registry.Version{PackageID: packageID, Version: in.Version, SHA256: in.SHA256,
		Size: int64(len(in.Content)), CreatedAt: now}
	err := t.queryRow(sqlInsertVersion, append([]any{packageID, in.Version, in.Name, in.Description, in.Scheme, in.SHA256,
		int64(len(in.Content)), rowContent(*in), now, ciJSON(in.CI), nullID(in.PublisherID), nullID(in.TokenID)},
		provenanceArgs(in.Provenance)...)...).Scan(&v.ID)
	switch {
	case errNoRows(err):
		return nil, false, nil
	case err != nil && in.Provenance != nil && t.s.dialect.isForeignKeyViolation(err):
		return nil, false, registry.ErrSSHKeyGone
	case err != nil:
		return nil, false, err
	}
	t.published = append(t.published, [2]string{in.OwnerSlug, in.PackSlug})
	return v, true, nil
}

// VersionRow reads a version that exists: versions are never deleted, so
// a missing row is the database's fault.
func (t *txn) VersionRow(packageID int64, version string) (*registry.Version, error) {
	v := &registry.Version{PackageID: packageID, Version: version}
	var logIndex sql.NullInt64
	if err := t.queryRow(sqlSameVersion, packageID, version).Scan(&v.SHA256, &logIndex, &v.ID, &v.CreatedAt); err != nil {
		return nil, err
	}
	if logIndex.Valid {
		v.LogIndex = &logIndex.Int64
	}
	v.CreatedAt = v.CreatedAt.UTC()
	return v, nil
}

func (t *txn) PackageByID(packageID int64) (*registry.Package, error) {
	return scanPackage(t.queryRow(sqlPackageByID, packageID))
}

func (t *txn) TouchPackage(packageID int64, at time.Time) (*registry.Package, string, error) {
	var latest sql.NullString // NULL: no latest version
	pkg, err := scanPackageAnd(t.queryRow(sqlTouchPackage, dbTime(at), packageID), &latest)
	if err != nil {
		return nil, "", err
	}
	return pkg, latest.String, nil
}

func (t *txn) PackState(packageID int64) (registry.PackState, error) {
	return t.s.packStateTx(t.ctx, t.tx, packageID)
}

func (t *txn) SetLogHead(packageID, index int64) error {
	_, err := t.exec(sqlSetLogHead, index, packageID)
	return err
}

func (t *txn) AppendLog(entry *translog.Entry, versionID int64) (int64, error) {
	index, err := t.s.appendLog(t.ctx, t.tx, entry, versionID)
	if err == nil {
		t.logged = true
	}
	return index, err
}

func (t *txn) LockOrg(orgID int64) error {
	return t.s.lockOrg(t.ctx, t.tx, orgID)
}

func (t *txn) CountMembers(orgID int64, role registry.Role) (int64, error) {
	var n int64
	var err error
	if role == "" {
		err = t.queryRow(`SELECT count(*) FROM org_members WHERE org_id = ?`, orgID).Scan(&n)
	} else {
		err = t.queryRow(`SELECT count(*) FROM org_members WHERE org_id = ? AND role = ?`, orgID, string(role)).Scan(&n)
	}
	return n, err
}

func (t *txn) AddMember(orgID, accountID int64, role registry.Role, at time.Time) error {
	_, err := t.exec(`INSERT INTO org_members (org_id, account_id, role, created_at) VALUES (?, ?, ?, ?)`,
		orgID, accountID, string(role), dbTime(at))
	t.members = t.members || err == nil
	return err
}

func (t *txn) SetMemberRole(orgID, accountID int64, role registry.Role) error {
	_, err := t.exec(`UPDATE org_members SET role = ? WHERE org_id = ? AND account_id = ?`, string(role), orgID, accountID)
	t.members = t.members || err == nil
	return err
}

func (t *txn) DeleteMember(orgID, accountID int64) error {
	_, err := t.exec(`DELETE FROM org_members WHERE org_id = ? AND account_id = ?`, orgID, accountID)
	t.members = t.members || err == nil
	return err
}

func (t *txn) Member(orgID, accountID int64) (*registry.Member, error) {
	return scanMember(t.queryRow(memberSelect+` WHERE m.org_id = ? AND m.account_id = ?`, orgID, accountID))
}

func (t *txn) TrustedPublishersMadeBy(accountID, maker int64) ([]registry.TrustedPublisher, error) {
	return txList(t, scanTrustedPublisher, trustedPublisherSelect+` WHERE p.account_id = ? AND p.created_by = ? ORDER BY p.id`, accountID, maker)
}

func (t *txn) DeleteTrustedPublisherRow(id int64) error {
	_, err := t.exec(`DELETE FROM trusted_publishers WHERE id = ?`, id)
	return err
}

func (t *txn) ActiveExchangedTokens(accountID int64, at time.Time) ([]registry.ExchangedToken, error) {
	return txList(t, func(row scanner) (*registry.ExchangedToken, error) {
		var tok registry.ExchangedToken
		var via string
		if err := row.Scan(&tok.ID, &via); err != nil {
			return nil, err
		}
		for _, word := range strings.Fields(via) {
			if id, err := strconv.ParseInt(word, 10, 64); err == nil {
				tok.Via = append(tok.Via, id)
			}
		}
		return &tok, nil
	}, `SELECT id, trusted_publishers FROM tokens WHERE account_id = ? AND trusted_publishers IS NOT NULL
AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY id`, accountID, dbTime(at))
}

func (t *txn) RevokeTokenAt(id int64, at time.Time) error {
	_, err := t.exec(`UPDATE tokens SET revoked_at = ? WHERE id = ?`, dbTime(at), id)
	return err
}

// txList reads every row of query in t's transaction.
func txList[T any](t *txn, scan func(scanner) (*T, error), query string, args ...any) ([]T, error) {
	rows, err := t.s.txQuery(t.ctx, t.tx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, *v)
	}
	return list, rows.Err()
}

func (t *txn) SSHKeyOf(accountID, keyID int64) (*registry.SSHKey, string, error) {
	k := &registry.SSHKey{ID: keyID, AccountID: accountID}
	var owner string
	err := t.queryRow(`SELECT k.public_key, k.fingerprint, a.username FROM ssh_keys k
JOIN accounts a ON a.id = k.account_id WHERE k.id = ? AND k.account_id = ?`, keyID, accountID).Scan(&k.PublicKey, &k.Fingerprint, &owner)
	if errNoRows(err) {
		return nil, "", notFound("no such SSH key %d", keyID)
	}
	return k, owner, err
}

// DeleteSSHKeyRow sets the key_id of the versions the key signed to NULL
// (the foreign key's ON DELETE).
func (t *txn) DeleteSSHKeyRow(keyID int64) error {
	_, err := t.exec(`DELETE FROM ssh_keys WHERE id = ?`, keyID)
	t.keys = t.keys || err == nil
	return err
}

func (t *txn) DeleteExpiredSessions(at time.Time) error {
	_, err := t.exec(`DELETE FROM sessions WHERE expires_at <= ?`, dbTime(at))
	return err
}

func (t *txn) InsertSession(sess *registry.Session) error {
	sess.CreatedAt, sess.ExpiresAt, sess.LastSeenAt = dbTime(sess.CreatedAt), dbTime(sess.ExpiresAt), dbTime(sess.LastSeenAt)
	err := t.queryRow(`INSERT INTO sessions (account_id, hash, created_at, expires_at, last_seen_at, user_agent, ip)
VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, sess.AccountID, sess.Hash, sess.CreatedAt, sess.ExpiresAt, sess.LastSeenAt, sess.UserAgent, sess.IP).Scan(&sess.ID)
	return t.insertFault(err, sess.AccountID, "a session with this hash exists already")
}

func (t *txn) DeleteSessionsBeyond(accountID int64, keep int) error {
	_, err := t.exec(`DELETE FROM sessions WHERE account_id = ? AND id NOT IN (
  SELECT id FROM sessions WHERE account_id = ? ORDER BY last_seen_at DESC, id DESC LIMIT ?)`, accountID, accountID, keep)
	return err
}

// LockAccount writes the row without changing it, which on PostgreSQL
// locks it until the transaction ends.
func (t *txn) LockAccount(id int64) (bool, error) {
	res, err := t.exec(`UPDATE accounts SET kind = kind WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *txn) AccountExists(id int64) (bool, error) {
	return t.exists(`SELECT 1 FROM accounts WHERE id = ?`, id)
}

// exists reports whether query, a SELECT 1 of at most one row, finds it.
func (t *txn) exists(query string, args ...any) (bool, error) {
	var one int
	err := t.queryRow(query, args...).Scan(&one)
	if errNoRows(err) {
		return false, nil
	}
	return err == nil, err
}

func (t *txn) InsertTrustedPublisher(p *registry.TrustedPublisher) error {
	p.CreatedAt = dbTime(p.CreatedAt)
	if p.ExpiresAt != nil {
		expires := dbTime(*p.ExpiresAt)
		p.ExpiresAt = &expires
	}
	claims, err := json.Marshal(p.Claims)
	if err != nil {
		return err
	}
	makerID, makerToken := makerColumns(p)
	err = t.queryRow(`INSERT INTO trusted_publishers (account_id, issuer, packages, claims, created_at, expires_at,
created_by, created_by_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, p.AccountID, p.Issuer, strings.Join(p.Packages, " "),
		string(claims), p.CreatedAt, nullTime(p.ExpiresAt), makerID, makerToken).Scan(&p.ID)
	if err != nil && t.s.dialect.isForeignKeyViolation(err) {
		return notFound("no such account %d", p.AccountID)
	}
	return err
}
