package registry

import (
	"context"
	"crypto/sha256"
	"net/netip"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
	// MaxUserAgentBytes is how much of a browser's User-Agent a session
	// keeps: enough to tell browsers apart, too little to store essays.
	MaxUserAgentBytes = 200
	// MaxSessionsPerAccount bounds the sessions one account keeps; a
	// log-in beyond it ends the least recently seen one.
	MaxSessionsPerAccount = 100
	// MaxListedSessions is how many sessions the dashboard lists, the
	// most recently seen first.
	MaxListedSessions = 50
)

func sessionHash(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return sum[:]
}

// SessionClient is what a log-in tells of the browser, for the owner's
// list of sessions.
type SessionClient struct {
	UserAgent string
	IP        string
}

// StartSession opens a session for accountID and returns its id, the
// secret the browser keeps.
func (s *Service) StartSession(ctx context.Context, accountID int64, client SessionClient) (string, error) {
	id := NewSecret("", sessionRandomLength)
	now := s.now()
	sess := &Session{AccountID: accountID, Hash: sessionHash(id), CreatedAt: now, ExpiresAt: now.Add(SessionLifetime),
		LastSeenAt: now, UserAgent: CleanUserAgent(client.UserAgent), IP: cleanIP(client.IP)}
	if err := CreateSession(ctx, s.store, sess); err != nil {
		return "", err
	}
	return id, nil
}

// CleanUserAgent keeps at most MaxUserAgentBytes of a User-Agent header, as
// one line of printable characters, cut at a character boundary.
func CleanUserAgent(ua string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(ua) {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			r = ' '
		}
		if b.Len()+utf8.RuneLen(r) > MaxUserAgentBytes {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// cleanIP keeps a client address only when it is one, in its canonical
// form ("" otherwise).
func cleanIP(ip string) string {
	addr, err := netip.ParseAddr(strings.TrimSpace(ip))
	if err != nil {
		return ""
	}
	return addr.Unmap().WithZone("").String()
}

// EndSession forgets the session id names; an unknown id is no error.
func (s *Service) EndSession(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	return s.store.DeleteSession(ctx, sessionHash(id))
}

// SessionAccount returns the session id names and its account, when the
// session has not expired and the account is not disabled; NotFound
// otherwise. It records when the session was last seen, at most once a
// minute.
func (s *Service) SessionAccount(ctx context.Context, id string) (*Account, *Session, error) {
	if id == "" || len(id) > maxSessionIDLength {
		return nil, nil, Errorf(NotFound, "no such session")
	}
	now := s.now()
	sess, err := s.store.SessionByHash(ctx, sessionHash(id), now)
	if err != nil {
		return nil, nil, err
	}
	acct, err := s.store.AccountByID(ctx, sess.AccountID)
	if err != nil {
		return nil, nil, err
	}
	if acct.DisabledAt != nil {
		// Disabling ended the account's sessions; one that began while
		// it was being disabled ends now.
		_ = s.store.DeleteSession(ctx, sess.Hash)
		return nil, nil, Errorf(NotFound, "no such session")
	}
	if now.Sub(sess.LastSeenAt) >= touchInterval {
		// Informational, like a token's last_used_at: a failed write must
		// not log anyone out.
		if s.store.TouchSession(ctx, sess.ID, now) == nil {
			sess.LastSeenAt = now
		}
	}
	return acct, sess, nil
}

// ListSessions lists an account's active sessions, the most recently seen
// first, at most MaxListedSessions of them; more reports whether it has
// others.
func (s *Service) ListSessions(ctx context.Context, accountID int64) (sessions []Session, more bool, err error) {
	sessions, err = s.store.ListSessions(ctx, accountID, s.now(), MaxListedSessions+1)
	if err != nil {
		return nil, false, err
	}
	if len(sessions) > MaxListedSessions {
		return sessions[:MaxListedSessions], true, nil
	}
	return sessions, false, nil
}

// EndAccountSession ends one of accountID's sessions; NotFound when it
// does not exist or belongs to someone else.
func (s *Service) EndAccountSession(ctx context.Context, accountID, sessionID int64) error {
	return s.store.DeleteAccountSession(ctx, accountID, sessionID)
}

// EndAccountSessions ends every session of accountID but exceptID (0: all
// of them, "log out everywhere") and says how many ended.
func (s *Service) EndAccountSessions(ctx context.Context, accountID, exceptID int64) (int64, error) {
	return s.store.DeleteAccountSessions(ctx, accountID, exceptID)
}

// CreateSession stores sess through st and sets its ID, its LastSeenAt
// being its CreatedAt, in one transaction that also deletes the sessions
// expired by then (logins keep the table small) and the account's least
// recently seen sessions beyond MaxSessionsPerAccount. NotFound when the
// account does not exist.
func CreateSession(ctx context.Context, st Transactor, sess *Session) error {
	sess.LastSeenAt = sess.CreatedAt
	return st.Tx(ctx, func(tx Tx) error {
		if err := tx.DeleteExpiredSessions(sess.CreatedAt); err != nil {
			return err
		}
		if err := tx.InsertSession(sess); err != nil {
			return err
		}
		return tx.DeleteSessionsBeyond(sess.AccountID, MaxSessionsPerAccount)
	})
}
