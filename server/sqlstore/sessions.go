package sqlstore

import (
	"context"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// CreateSession stores sess and sets sess.ID. NotFound when the account does
// not exist. Sessions that expired by sess.CreatedAt are deleted on the way,
// so logins keep the table small.
func (s *Store) CreateSession(ctx context.Context, sess *registry.Session) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	sess.CreatedAt = dbTime(sess.CreatedAt)
	sess.ExpiresAt = dbTime(sess.ExpiresAt)
	if _, err := s.write.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE expires_at <= ?`), sess.CreatedAt); err != nil {
		return s.fault("delete expired sessions", err)
	}
	err := s.write.QueryRowContext(ctx, s.q(`INSERT INTO sessions (account_id, hash, created_at, expires_at)
VALUES (?, ?, ?, ?) RETURNING id`), sess.AccountID, sess.Hash, sess.CreatedAt, sess.ExpiresAt).Scan(&sess.ID)
	switch {
	case err == nil:
		return nil
	case s.dialect.isForeignKeyViolation(err):
		return notFound("no such account %d", sess.AccountID)
	case s.dialect.isUniqueViolation(err):
		return conflict("a session with this hash exists already")
	}
	return s.fault("create session", err)
}

// SessionByHash returns the session when it has not expired at now.
func (s *Store) SessionByHash(ctx context.Context, hash []byte, now time.Time) (*registry.Session, error) {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	var sess registry.Session
	err := s.read.QueryRowContext(ctx, s.q(`SELECT id, account_id, hash, created_at, expires_at FROM sessions
WHERE hash = ? AND expires_at > ?`), hash, dbTime(now)).
		Scan(&sess.ID, &sess.AccountID, &sess.Hash, &sess.CreatedAt, &sess.ExpiresAt)
	if errNoRows(err) {
		return nil, notFound("no such session")
	}
	if err != nil {
		return nil, s.fault("read session", err)
	}
	sess.CreatedAt, sess.ExpiresAt = sess.CreatedAt.UTC(), sess.ExpiresAt.UTC()
	return &sess, nil
}

// DeleteSession forgets a session (log out). Deleting a session that does
// not exist succeeds: the caller is logged out either way.
func (s *Store) DeleteSession(ctx context.Context, hash []byte) error {
	ctx, cancel := s.deadline(ctx)
	defer cancel()
	_, err := s.write.ExecContext(ctx, s.q(`DELETE FROM sessions WHERE hash = ?`), hash)
	return s.fault("delete session", err)
}
