package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

const sessionColumns = `id, account_id, hash, created_at, expires_at, last_seen_at, user_agent, ip`

func scanSession(row scanner) (*registry.Session, error) {
	var sess registry.Session
	var seen sql.NullTime
	if err := row.Scan(&sess.ID, &sess.AccountID, &sess.Hash, &sess.CreatedAt, &sess.ExpiresAt, &seen, &sess.UserAgent, &sess.IP); err != nil {
		return nil, err
	}
	sess.CreatedAt, sess.ExpiresAt = sess.CreatedAt.UTC(), sess.ExpiresAt.UTC()
	sess.LastSeenAt = sess.CreatedAt
	if seen.Valid {
		sess.LastSeenAt = seen.Time.UTC()
	}
	return &sess, nil
}

// SessionByHash returns the session when it has not expired at now.
func (s *Store) SessionByHash(ctx context.Context, hash []byte, now time.Time) (*registry.Session, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	sess, err := scanSession(s.read.QueryRowContext(ctx, s.q(`SELECT `+sessionColumns+` FROM sessions
WHERE hash = ? AND expires_at > ?`), hash, dbTime(now)))
	if errNoRows(err) {
		return nil, notFound("no such session")
	}
	if err != nil {
		return nil, s.fault("read session", err)
	}
	return sess, nil
}

// DeleteSession forgets a session (log out). Deleting a session that does
// not exist succeeds: the caller is logged out either way.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	_, err := s.write.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE hash = ?`), hash)
	return s.fault("delete session", err)
}

// TouchSession records when a session was last seen.
func (s *Store) TouchSession(ctx context.Context, sessionID int64, at time.Time) error {
	return s.touch(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id = ?`, dbTime(at), sessionID, "touch session",
		func() error { return notFound("no such session %d", sessionID) })
}

// ListSessions lists an account's unexpired sessions, the most recently
// seen first.
func (s *Store) ListSessions(ctx context.Context, accountID int64, now time.Time, limit int) ([]registry.Session, error) {
	return queryList(ctx, s, "list sessions", 0, scanSession, `SELECT `+sessionColumns+` FROM sessions
WHERE account_id = ? AND expires_at > ? ORDER BY last_seen_at DESC, id DESC LIMIT ?`, accountID, dbTime(now), limit)
}

// DeleteAccountSession deletes one of accountID's sessions.
func (s *Store) DeleteAccountSession(ctx context.Context, accountID, sessionID int64) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE id = ? AND account_id = ?`), sessionID, accountID)
	return s.oneRow(res, err, "delete session", func() error { return notFound("no such session %d", sessionID) })
}

// DeleteAccountSessions deletes every session of accountID but exceptID.
func (s *Store) DeleteAccountSessions(ctx context.Context, accountID, exceptID int64) (int64, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	res, err := s.write.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE account_id = ? AND id <> ?`), accountID, exceptID)
	if err != nil {
		return 0, s.fault("delete sessions", err)
	}
	n, err := res.RowsAffected()
	return n, s.fault("delete sessions", err)
}
