package registry

import (
	"context"
	"crypto/rand"
	"strings"
	"time"
)

// TokenPrefix begins every API token, so scanners can recognise leaked ones.
const TokenPrefix = "pact_"

const (
	tokenRandomLength = 43 // 43 base62 characters ≈ 256 bits
	base62            = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	// touchInterval bounds how often last_used_at is written, so a busy
	// token does not turn every read into a database write.
	touchInterval = time.Minute
)

// NewSecret returns prefix followed by n random base62 characters.
func NewSecret(prefix string, n int) string {
	var b strings.Builder
	b.WriteString(prefix)
	buf := make([]byte, 1)
	for b.Len() < len(prefix)+n {
		if _, err := rand.Read(buf); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		// Reject bytes >= 248 so every character is equally likely.
		if buf[0] >= 248 {
			continue
		}
		b.WriteByte(base62[buf[0]%62])
	}
	return b.String()
}

// CreateToken makes a new API token. The secret is returned once and only
// its hash is stored.
func (s *Service) CreateToken(ctx context.Context, accountID int64, name string, expiresAt *time.Time) (string, *Token, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "token"
	}
	if err := checkLabel("token name", name, 100, false); err != nil {
		return "", nil, err
	}
	if len(name) > 100 {
		return "", nil, Errorf(Invalid, "token name must be at most 100 characters")
	}
	now := s.now()
	if expiresAt != nil && !expiresAt.After(now) {
		return "", nil, Errorf(Invalid, "token expiry must be in the future")
	}
	secret := NewSecret(TokenPrefix, tokenRandomLength)
	t := &Token{AccountID: accountID, Name: name, Hash: hashSecret(secret), CreatedAt: now, ExpiresAt: expiresAt}
	if err := s.store.CreateToken(ctx, t); err != nil {
		return "", nil, err
	}
	return secret, t, nil
}

// AuthenticateToken returns the account a token acts for. Every failure is
// the same Unauthorized error, so callers learn nothing about other tokens.
func (s *Service) AuthenticateToken(ctx context.Context, secret string) (*Account, *Token, error) {
	if !strings.HasPrefix(secret, TokenPrefix) || len(secret) > 200 {
		return nil, nil, ErrBadToken
	}
	t, err := s.store.TokenByHash(ctx, hashSecret(secret))
	if IsCode(err, NotFound) {
		return nil, nil, ErrBadToken
	}
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	if !t.Active(now) {
		return nil, nil, ErrBadToken
	}
	acct, err := s.store.AccountByID(ctx, t.AccountID)
	if err != nil {
		return nil, nil, err
	}
	if err := checkAccountEnabled(acct); err != nil {
		return nil, nil, err
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= touchInterval {
		// last_used_at is informational: a failed write (a full disk, say)
		// must not turn every authenticated read into an error.
		_ = s.store.TouchToken(ctx, t.ID, now)
	}
	return acct, t, nil
}

// ErrBadToken answers every missing, unknown, revoked or expired token.
var ErrBadToken = &Error{Code: Unauthorized, Message: "missing or invalid API token"}

// ListTokens lists an account's tokens, newest first.
func (s *Service) ListTokens(ctx context.Context, accountID int64) ([]Token, error) {
	return s.store.ListTokens(ctx, accountID)
}

// RevokeToken revokes one of accountID's tokens now; NotFound when the
// token does not exist or belongs to someone else.
func (s *Service) RevokeToken(ctx context.Context, accountID, tokenID int64) error {
	return s.store.RevokeToken(ctx, accountID, tokenID, s.now())
}
