package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Passkeys, recovery codes and the ceremonies between their steps
// (registry.PasskeyStore, migrations/*/0023_passkeys.sql).

const passkeyColumns = `id, account_id, credential_id, public_key, sign_count, transports, name, record, created_at, last_used_at`

func scanPasskey(row scanner) (*registry.Passkey, error) {
	var p registry.Passkey
	var transports, record string
	var used sql.NullTime
	var count int64
	if err := row.Scan(&p.ID, &p.AccountID, &p.CredentialID, &p.PublicKey, &count, &transports, &p.Name, &record, &p.CreatedAt, &used); err != nil {
		return nil, err
	}
	p.SignCount = uint32(count)
	p.Transports = strings.Fields(transports)
	p.Record = []byte(record)
	p.CreatedAt = p.CreatedAt.UTC()
	p.LastUsedAt = timePtr(used)
	return &p, nil
}

// CreatePasskey stores p and sets p.ID.
func (s *Store) CreatePasskey(ctx context.Context, p *registry.Passkey) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	p.CreatedAt = dbTime(p.CreatedAt)
	err := s.write.QueryRowContext(ctx, s.q(`INSERT INTO passkeys (account_id, credential_id, public_key, sign_count, transports, name, record, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`), p.AccountID, p.CredentialID, p.PublicKey, int64(p.SignCount),
		strings.Join(p.Transports, " "), p.Name, string(p.Record), p.CreatedAt).Scan(&p.ID)
	switch {
	case err == nil:
		return nil
	case s.dialect.isForeignKeyViolation(err):
		return notFound("no such account %d", p.AccountID)
	case s.dialect.isUniqueViolation(err):
		return conflict("this passkey is registered already")
	}
	return s.fault("create passkey", err)
}

// ListPasskeys lists an account's passkeys, oldest first.
func (s *Store) ListPasskeys(ctx context.Context, accountID int64) ([]registry.Passkey, error) {
	return queryList(ctx, s, "list passkeys", 0, scanPasskey, `SELECT `+passkeyColumns+` FROM passkeys WHERE account_id = ? ORDER BY id`, accountID)
}

// PasskeyByCredentialID finds a passkey by its credential id.
func (s *Store) PasskeyByCredentialID(ctx context.Context, credentialID []byte) (*registry.Passkey, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	p, err := scanPasskey(s.read.QueryRowContext(ctx, s.q(`SELECT `+passkeyColumns+` FROM passkeys WHERE credential_id = ?`), credentialID))
	if errNoRows(err) {
		return nil, notFound("no such passkey")
	}
	if err != nil {
		return nil, s.fault("read passkey", err)
	}
	return p, nil
}

// UsePasskey records a use of a passkey.
func (s *Store) UsePasskey(ctx context.Context, id int64, signCount uint32, at time.Time) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`UPDATE passkeys SET sign_count = ?, last_used_at = ? WHERE id = ?`), int64(signCount), dbTime(at), id)
	return s.oneRow(res, err, "use passkey", func() error { return notFound("no such passkey %d", id) })
}

func (t *txn) CountPasskeys(accountID int64) (int, error) {
	var n int
	err := t.queryRow(`SELECT count(*) FROM passkeys WHERE account_id = ?`, accountID).Scan(&n)
	return n, err
}

func (t *txn) DeletePasskeyRow(accountID, id int64) (bool, error) {
	res, err := t.exec(`DELETE FROM passkeys WHERE id = ? AND account_id = ?`, id, accountID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *txn) SetRequireSecondFactor(accountID int64, on bool) (bool, error) {
	res, err := t.exec(`UPDATE accounts SET require_second_factor = ? WHERE id = ?`, on, accountID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *txn) DeleteRecoveryCodes(accountID int64) error {
	_, err := t.exec(`DELETE FROM recovery_codes WHERE account_id = ?`, accountID)
	return err
}

// ReplaceRecoveryCodes replaces an account's recovery codes.
func (s *Store) ReplaceRecoveryCodes(ctx context.Context, accountID int64, hashes [][]byte, at time.Time) error {
	return s.transact(ctx, "replace recovery codes", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM recovery_codes WHERE account_id = ?`), accountID); err != nil {
			return err
		}
		for _, h := range hashes {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO recovery_codes (account_id, hash, created_at) VALUES (?, ?, ?)`), accountID, h, dbTime(at)); err != nil {
				if s.dialect.isForeignKeyViolation(err) {
					return notFound("no such account %d", accountID)
				}
				return err
			}
		}
		return nil
	})
}

// UseRecoveryCode deletes one of an account's codes: of two uses at once,
// one deletes it and the other finds nothing.
func (s *Store) UseRecoveryCode(ctx context.Context, accountID int64, hash []byte) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`DELETE FROM recovery_codes WHERE account_id = ? AND hash = ?`), accountID, hash)
	return s.oneRow(res, err, "use recovery code", func() error { return notFound("no such recovery code") })
}

// CountRecoveryCodes counts an account's unused codes.
func (s *Store) CountRecoveryCodes(ctx context.Context, accountID int64) (int, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var n int
	err := s.read.QueryRowContext(ctx, s.q(`SELECT count(*) FROM recovery_codes WHERE account_id = ?`), accountID).Scan(&n)
	return n, s.fault("count recovery codes", err)
}

const ceremonyColumns = `hash, kind, account_id, session, created_at, expires_at`

func scanCeremony(row scanner) (*registry.Ceremony, error) {
	var c registry.Ceremony
	var account sql.NullInt64
	var session string
	if err := row.Scan(&c.Hash, &c.Kind, &account, &session, &c.CreatedAt, &c.ExpiresAt); err != nil {
		return nil, err
	}
	c.AccountID = account.Int64
	if session != "" {
		c.Session = []byte(session)
	}
	c.CreatedAt, c.ExpiresAt = c.CreatedAt.UTC(), c.ExpiresAt.UTC()
	return &c, nil
}

func (t *txn) DeleteExpiredCeremonies(at time.Time) error {
	_, err := t.exec(`DELETE FROM webauthn_ceremonies WHERE expires_at <= ?`, dbTime(at))
	return err
}

func (t *txn) DeleteCeremoniesBeyond(accountID int64, keep int) error {
	_, err := t.exec(`DELETE FROM webauthn_ceremonies WHERE id IN (
SELECT id FROM webauthn_ceremonies WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT 1000000 OFFSET ?)`, accountID, keep)
	return err
}

func (t *txn) InsertCeremony(c *registry.Ceremony) error {
	c.CreatedAt, c.ExpiresAt = dbTime(c.CreatedAt), dbTime(c.ExpiresAt)
	var account any
	if c.AccountID != 0 {
		account = c.AccountID
	}
	_, err := t.exec(`INSERT INTO webauthn_ceremonies (hash, kind, account_id, session, created_at, expires_at)
VALUES (?, ?, ?, ?, ?, ?)`, c.Hash, c.Kind, account, string(c.Session), c.CreatedAt, c.ExpiresAt)
	return t.insertFault(err, c.AccountID, "a ceremony with this id exists already")
}

// SpendChallenge records the hash of a challenge as used until it
// expires, deleting the expired ones on the way; Conflict when it was
// used already: of two spends at once, one stores it.
func (s *Store) SpendChallenge(ctx context.Context, hash []byte, at, until time.Time) error {
	return s.transact(ctx, "spend challenge", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM webauthn_spent_challenges WHERE expires_at <= ?`), dbTime(at)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO webauthn_spent_challenges (hash, expires_at) VALUES (?, ?)`), hash, dbTime(until))
		if s.dialect.isUniqueViolation(err) {
			return conflict("this challenge was used already")
		}
		return err
	})
}

// ServerSecret answers the secret stored under name, storing fresh first
// when there is none: of replicas that start at once, the first to store
// wins and all read its secret.
func (s *Store) ServerSecret(ctx context.Context, name string, fresh []byte, at time.Time) ([]byte, error) {
	var secret []byte
	err := s.transact(ctx, "server secret", func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO server_secrets (name, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`),
			name, fresh, dbTime(at)); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.q(`SELECT secret FROM server_secrets WHERE name = ?`), name).Scan(&secret)
	})
	return secret, err
}

// CeremonyByHash reads a ceremony that has not expired at now.
func (s *Store) CeremonyByHash(ctx context.Context, hash []byte, now time.Time) (*registry.Ceremony, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	c, err := scanCeremony(s.write.QueryRowContext(ctx, s.q(`SELECT `+ceremonyColumns+` FROM webauthn_ceremonies WHERE hash = ? AND expires_at > ?`), hash, dbTime(now)))
	if errNoRows(err) {
		return nil, notFound("no such ceremony")
	}
	if err != nil {
		return nil, s.fault("read ceremony", err)
	}
	return c, nil
}

// SetCeremonySession replaces the session of a ceremony under way.
func (s *Store) SetCeremonySession(ctx context.Context, hash, session []byte, now time.Time) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`UPDATE webauthn_ceremonies SET session = ? WHERE hash = ? AND expires_at > ?`), string(session), hash, dbTime(now))
	return s.oneRow(res, err, "set ceremony session", func() error { return notFound("no such ceremony") })
}

// TakeCeremony deletes a ceremony and answers it if it had not expired:
// of two takes at once, one gets it.
func (s *Store) TakeCeremony(ctx context.Context, hash []byte, now time.Time) (*registry.Ceremony, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	c, err := scanCeremony(s.write.QueryRowContext(ctx, s.q(`DELETE FROM webauthn_ceremonies WHERE hash = ? RETURNING `+ceremonyColumns), hash))
	if errNoRows(err) {
		return nil, notFound("no such ceremony")
	}
	if err != nil {
		return nil, s.fault("take ceremony", err)
	}
	if !c.ExpiresAt.After(dbTime(now)) {
		return nil, notFound("no such ceremony")
	}
	return c, nil
}
