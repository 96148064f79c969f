package registry

import (
	"context"
	"crypto/sha256"
	"time"
)

// Dashboard sessions live on the server: the browser holds a random id and
// the database only its SHA-256, so a leaked database opens no sessions.
const (
	// SessionLifetime is how long a session lasts after log-in.
	SessionLifetime     = 14 * 24 * time.Hour
	sessionRandomLength = 43 // base62 characters ≈ 256 bits
	// maxSessionIDLength bounds what is hashed for a cookie; longer values
	// cannot be ids this service made.
	maxSessionIDLength = 200
)

func sessionHash(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return sum[:]
}

// StartSession opens a session for accountID and returns its id, the
// secret the browser keeps.
func (s *Service) StartSession(ctx context.Context, accountID int64) (string, error) {
	id := NewSecret("", sessionRandomLength)
	now := s.now()
	sess := &Session{AccountID: accountID, Hash: sessionHash(id), CreatedAt: now, ExpiresAt: now.Add(SessionLifetime)}
	if err := s.store.CreateSession(ctx, sess); err != nil {
		return "", err
	}
	return id, nil
}

// EndSession forgets the session id names; an unknown id is no error.
func (s *Service) EndSession(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	return s.store.DeleteSession(ctx, sessionHash(id))
}

// SessionAccount returns the account of an unexpired session; NotFound
// when id names none.
func (s *Service) SessionAccount(ctx context.Context, id string) (*Account, error) {
	if id == "" || len(id) > maxSessionIDLength {
		return nil, Errorf(NotFound, "no such session")
	}
	sess, err := s.store.SessionByHash(ctx, sessionHash(id), s.now())
	if err != nil {
		return nil, err
	}
	return s.store.AccountByID(ctx, sess.AccountID)
}
