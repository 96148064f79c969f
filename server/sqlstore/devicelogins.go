package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// The logins of the command line approved in the browser
// (registry.DeviceLoginStore, migrations/*/0018_device_login.sql,
// 0028_device_login_requested_scopes.sql).

const deviceLoginColumns = `id, device_hash, user_hash, name, user_agent, ip, created_at, expires_at, polled_at,
decision, account_id, decided_at, token_name, scopes, packages, token_expires_at, requested_scopes`

// The values of device_logins.decision.
const (
	deviceApproved = "approved"
	deviceDenied   = "denied"
)

func scanDeviceLogin(row scanner) (*registry.DeviceLogin, error) {
	var d registry.DeviceLogin
	var polled, decided, tokenExpires sql.NullTime
	var decision, tokenName, scopes, packages, requested sql.NullString
	var accountID sql.NullInt64
	if err := row.Scan(&d.ID, &d.DeviceHash, &d.UserHash, &d.Name, &d.UserAgent, &d.IP, &d.CreatedAt, &d.ExpiresAt, &polled,
		&decision, &accountID, &decided, &tokenName, &scopes, &packages, &tokenExpires, &requested); err != nil {
		return nil, err
	}
	d.RequestedScopes = wordScopes(splitWords(requested))
	d.CreatedAt, d.ExpiresAt = d.CreatedAt.UTC(), d.ExpiresAt.UTC()
	d.PolledAt, d.DecidedAt = timePtr(polled), timePtr(decided)
	d.AccountID = accountID.Int64
	if decision.String == deviceApproved {
		d.Grant = &registry.DeviceGrant{Name: tokenName.String, Packages: splitWords(packages), ExpiresAt: timePtr(tokenExpires)}
		d.Grant.Scopes = wordScopes(splitWords(scopes))
	}
	return &d, nil
}

// wordScopes are the scopes of stored words; nil stays nil.
func wordScopes(words []string) []registry.Scope {
	if words == nil {
		return nil
	}
	out := make([]registry.Scope, len(words))
	for i, w := range words {
		out[i] = registry.Scope(w)
	}
	return out
}

func (t *txn) CountDeviceLogins(at time.Time) (int, error) {
	var n int
	err := t.queryRow(`SELECT count(*) FROM device_logins WHERE expires_at > ?`, dbTime(at)).Scan(&n)
	return n, err
}

func (t *txn) CountDeviceLoginsOfBlock(block string, at time.Time) (int, error) {
	var n int
	err := t.queryRow(`SELECT count(*) FROM device_logins WHERE ip_block = ? AND expires_at > ?`, block, dbTime(at)).Scan(&n)
	return n, err
}

func (t *txn) FullestDeviceLoginBlock(at time.Time) (string, bool, error) {
	var block string
	err := t.queryRow(`SELECT ip_block FROM device_logins WHERE expires_at > ?
GROUP BY ip_block ORDER BY count(*) DESC, min(created_at) LIMIT 1`, dbTime(at)).Scan(&block)
	if errNoRows(err) {
		return "", false, nil
	}
	return block, err == nil, err
}

func (t *txn) DeleteOldestDeviceLogin(block string, at time.Time) error {
	_, err := t.exec(`DELETE FROM device_logins WHERE id = (
SELECT id FROM device_logins WHERE ip_block = ? AND expires_at > ? ORDER BY created_at, id LIMIT 1)`, block, dbTime(at))
	return err
}

func (t *txn) InsertDeviceLogin(d *registry.DeviceLogin) error {
	d.CreatedAt, d.ExpiresAt = dbTime(d.CreatedAt), dbTime(d.ExpiresAt)
	var requested any
	if len(d.RequestedScopes) > 0 {
		requested = joinWords(d.RequestedScopes)
	}
	err := t.queryRow(`INSERT INTO device_logins (device_hash, user_hash, name, user_agent, ip, ip_block, created_at, expires_at, requested_scopes)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		d.DeviceHash, d.UserHash, d.Name, d.UserAgent, d.IP, d.Block, d.CreatedAt, d.ExpiresAt, requested).Scan(&d.ID)
	if err != nil && t.s.dialect.isUniqueViolation(err) {
		return conflict("a device login with this code exists already")
	}
	return err
}

// PendingDeviceLogin reads a login waiting for its decision by its user
// code's hash.
func (s *Store) PendingDeviceLogin(ctx context.Context, userHash []byte, now time.Time) (*registry.DeviceLogin, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	d, err := scanDeviceLogin(s.read.QueryRowContext(ctx, s.q(`SELECT `+deviceLoginColumns+` FROM device_logins
WHERE user_hash = ? AND decision IS NULL AND expires_at > ?`), userHash, dbTime(now)))
	if errNoRows(err) {
		return nil, notFound("no such device login")
	}
	if err != nil {
		return nil, s.fault("read device login", err)
	}
	return d, nil
}

// DecideDeviceLogin records a decision in one UPDATE that finds the login
// still waiting, so two decisions cannot both be recorded.
func (s *Store) DecideDeviceLogin(ctx context.Context, userHash []byte, d registry.DeviceDecision) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	decision := deviceDenied
	var name, scopes, packages, expires any
	if g := d.Grant; g != nil {
		decision, name, scopes, packages, expires = deviceApproved, g.Name, joinWords(g.Scopes), joinWords(g.Packages), nullTime(g.ExpiresAt)
	}
	res, err := s.write.ExecContext(ctx, s.q(`UPDATE device_logins SET decision = ?, account_id = ?, decided_at = ?,
token_name = ?, scopes = ?, packages = ?, token_expires_at = ?
WHERE user_hash = ? AND decision IS NULL AND expires_at > ?`),
		decision, d.AccountID, dbTime(d.At), name, scopes, packages, expires, userHash, dbTime(d.At))
	if err != nil && s.dialect.isForeignKeyViolation(err) {
		return notFound("no such account %d", d.AccountID)
	}
	return s.oneRow(res, err, "decide device login", func() error { return notFound("no such device login") })
}

// PollDeviceLogin records a poll with the UPDATE that answers the login,
// unless the last poll was too recent; then it only reads it.
func (s *Store) PollDeviceLogin(ctx context.Context, deviceHash []byte, at, since time.Time) (*registry.DeviceLogin, bool, error) {
	var d *registry.DeviceLogin
	var recorded bool
	err := s.transact(ctx, "poll device login", func(ctx context.Context, tx *sql.Tx) error {
		var err error
		d, err = scanDeviceLogin(tx.QueryRowContext(ctx, s.q(`UPDATE device_logins SET polled_at = ?
WHERE device_hash = ? AND (polled_at IS NULL OR polled_at <= ?) RETURNING `+deviceLoginColumns), dbTime(at), deviceHash, dbTime(since)))
		recorded = err == nil
		if errNoRows(err) {
			d, err = scanDeviceLogin(tx.QueryRowContext(ctx, s.q(`SELECT `+deviceLoginColumns+` FROM device_logins WHERE device_hash = ?`), deviceHash))
			if errNoRows(err) {
				return notFound("no such device login")
			}
		}
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return d, recorded, nil
}

// ExchangeDeviceLogin deletes the login and stores its token in one
// transaction: of two polls that run alongside, one deletes the row and
// the other finds none.
func (s *Store) ExchangeDeviceLogin(ctx context.Context, deviceHash []byte, now time.Time, t *registry.Token) error {
	return s.transact(ctx, "exchange device login", func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM device_logins WHERE device_hash = ? AND decision = ? AND expires_at > ?`),
			deviceHash, deviceApproved, dbTime(now))
		if err := s.oneRow(res, err, "exchange device login", func() error { return notFound("no such device login") }); err != nil {
			return err
		}
		return s.insertToken(ctx, tx, t)
	})
}

// PruneDeviceLogins deletes the expired logins, by their index on
// expires_at.
func (s *Store) PruneDeviceLogins(ctx context.Context, before time.Time) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`DELETE FROM device_logins WHERE expires_at <= ?`), dbTime(before))
	if err != nil {
		return 0, s.fault("prune device logins", err)
	}
	n, err := res.RowsAffected()
	return n, s.fault("prune device logins", err)
}
