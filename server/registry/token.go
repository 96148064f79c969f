package registry

import (
	"context"
	"crypto/rand"
	"fmt"
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

// CreateToken makes a new API token with every scope. The secret is
// returned once and only its hash is stored.
func (s *Service) CreateToken(ctx context.Context, accountID int64, name string, expiresAt *time.Time) (string, *Token, error) {
	if err := s.checkUserID(ctx, accountID); err != nil {
		return "", nil, err
	}
	t, err := s.newToken(accountID, name, nil, nil, expiresAt)
	if err != nil {
		return "", nil, err
	}
	secret, t, err := s.storeToken(t, func(t *Token) error { return s.store.CreateToken(ctx, t) })
	if err == nil {
		s.tokenCreated(ctx, t)
	}
	return secret, t, err
}

func (s *Service) tokenCreated(ctx context.Context, t *Token) {
	if s.auditing() {
		actor := s.username(ctx, t.AccountID)
		s.emit(ctx, Event{Action: ActionTokenCreate, Actor: actor, TokenID: t.ID,
			Message: fmt.Sprintf("%s created %s", actor, describeToken(t))})
	}
}

// IssueToken makes a new API token as spec says. maker is the token the
// request came with, nil when the account itself asks (the dashboard, the
// host's pactd): a token needs the tokens scope and may not make a token
// with more power than it holds (checkIssue).
func (s *Service) IssueToken(ctx context.Context, accountID int64, maker *Token, spec TokenSpec) (string, *Token, error) {
	secret, t, err := s.issueToken(ctx, accountID, maker, spec)
	if err == nil {
		s.tokenCreated(ctx, t)
	}
	return secret, t, err
}

// issueToken is IssueToken without its event, for ExchangeIDToken, which
// reports its own.
func (s *Service) issueToken(ctx context.Context, accountID int64, maker *Token, spec TokenSpec) (string, *Token, error) {
	t, err := s.prepareToken(ctx, accountID, maker, spec)
	if err != nil {
		return "", nil, err
	}
	return s.storeToken(t, func(t *Token) error {
		if spec.JTI != nil {
			return CreateExchangedToken(ctx, s.store, t, *spec.JTI)
		}
		return s.store.CreateToken(ctx, t)
	})
}

// prepareToken checks spec and answers the token it makes, not stored yet:
// every rule of IssueToken but the storing.
func (s *Service) prepareToken(ctx context.Context, accountID int64, maker *Token, spec TokenSpec) (*Token, error) {
	if err := Permit(maker, OpTokens, "", "", ""); err != nil {
		return nil, err
	}
	if spec.CI == nil {
		// An organisation holds only the tokens its trusted publishers
		// exchange (docs/protocol.md, Organisations).
		if err := s.checkUserID(ctx, accountID); err != nil {
			return nil, err
		}
	}
	scopes, err := ParseScopes(spec.Scopes)
	if err != nil {
		return nil, err
	}
	packages, err := ParsePackages(spec.Packages)
	if err != nil {
		return nil, err
	}
	expiresAt := spec.ExpiresAt
	if d := spec.ExpiresInDays; d != nil {
		if *d < 1 || *d > MaxTokenDays {
			return nil, Errorf(Invalid, "expires_in_days must be between 1 and %d, or null for a token that never expires", MaxTokenDays)
		}
		at := s.now().AddDate(0, 0, *d)
		expiresAt = &at
	} else if expiresAt != nil && expiresAt.After(s.now().AddDate(0, 0, MaxTokenDays)) {
		return nil, Errorf(Invalid, "a token expires within %d days at most", MaxTokenDays)
	}
	t, err := s.newToken(accountID, spec.Name, scopes, packages, expiresAt)
	if err != nil {
		return nil, err
	}
	t.CI, t.TrustedPublishers = spec.CI, spec.TrustedPublishers
	if packages != nil && !holdsPackScope(t) {
		return nil, Errorf(Invalid, "packages limits the publish and yank scopes: add one of them to scopes, or leave packages out")
	}
	if maker != nil {
		if err := checkIssue(maker, t); err != nil {
			return nil, err
		}
	}
	if err := s.checkTokenCount(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// checkTokenCount refuses a token beyond its account's bound of active
// tokens: MaxActiveTokens, or MaxActiveExchangedTokens for one exchanged
// for an ID token (t.CI set), which the others do not count.
func (s *Service) checkTokenCount(ctx context.Context, t *Token) error {
	exchanged := t.CI != nil
	active, err := s.store.CountActiveTokens(ctx, t.AccountID, exchanged, t.CreatedAt)
	if err != nil {
		return err
	}
	if exchanged && active >= MaxActiveExchangedTokens {
		return Errorf(Conflict, "this account holds %d active tokens from trusted publishing, the most it may; each lasts %d minutes, try again then",
			active, int(ExchangedTokenLifetime/time.Minute))
	}
	if !exchanged && active >= MaxActiveTokens {
		return Errorf(Conflict, "this account holds %d active tokens, the most it may; revoke some first", active)
	}
	return nil
}

func (s *Service) newToken(accountID int64, name string, scopes []Scope, packages []string, expiresAt *time.Time) (*Token, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "token"
	}
	if err := checkLabel("token name", name, 100, false); err != nil {
		return nil, err
	}
	if len(name) > 100 {
		return nil, Errorf(Invalid, "token name must be at most 100 characters")
	}
	now := s.now()
	if expiresAt != nil && !expiresAt.After(now) {
		return nil, Errorf(Invalid, "token expiry must be in the future")
	}
	return &Token{AccountID: accountID, Name: name, CreatedAt: now, ExpiresAt: expiresAt, Scopes: scopes, Packages: packages}, nil
}

// storeToken gives t a new secret and stores it with store (CreateToken,
// or a write that stores it in one transaction with something else).
func (s *Service) storeToken(t *Token, store func(*Token) error) (string, *Token, error) {
	secret := NewSecret(TokenPrefix, tokenRandomLength)
	t.Hash = hashSecret(secret)
	if err := store(t); err != nil {
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
	t, acct, err := s.store.TokenHolder(ctx, hashSecret(secret))
	if IsCode(err, NotFound) {
		return nil, nil, ErrBadToken
	}
	if err != nil {
		return nil, nil, err
	}
	now := s.now()
	if t.RevokedAt == nil && t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		// Only the holder of the secret reads this, so it may say why.
		return nil, nil, Errorf(Unauthorized, "this API token expired at %s; make a new one", t.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if !t.Active(now) {
		return nil, nil, ErrBadToken
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

// ErrBadToken answers every missing, unknown or revoked token; an expired
// one is told that it expired.
var ErrBadToken = &Error{Code: Unauthorized, Message: "missing or invalid API token"}

// TokenQuery asks for one page of an account's tokens.
type TokenQuery struct {
	Limit  int    // 0 means DefaultListLimit
	Cursor string // next_cursor of the previous page
	// All lists the expired and revoked tokens too, as long as they are
	// kept (Options.TokenRetention); otherwise only the active ones.
	All bool
}

// ListTokens answers a page of an account's tokens, newest first, and the
// cursor of the next page ("" on the last).
func (s *Service) ListTokens(ctx context.Context, accountID int64, q TokenQuery) ([]Token, string, error) {
	limit := q.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	if limit < 1 || limit > MaxListLimit {
		return nil, "", Errorf(Invalid, "limit must be between 1 and %d", MaxListLimit)
	}
	before, err := decodeCursor(q.Cursor)
	if err != nil {
		return nil, "", err
	}
	f := TokenFilter{Before: before, Limit: limit + 1}
	if !q.All {
		now := s.now()
		f.ActiveAt = &now
	}
	tokens, err := s.store.ListTokens(ctx, accountID, f)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(tokens) > limit {
		tokens = tokens[:limit]
		next = encodeCursor(tokens[limit-1].ID)
	}
	return tokens, next, nil
}

// AccountToken answers one of accountID's tokens, revoked or expired ones
// included; NotFound when it does not exist or is another account's.
func (s *Service) AccountToken(ctx context.Context, accountID, tokenID int64) (*Token, error) {
	t, err := s.store.TokenByID(ctx, tokenID)
	if IsCode(err, NotFound) || err == nil && t.AccountID != accountID {
		return nil, Errorf(NotFound, "no such token %d", tokenID)
	}
	return t, err
}

// DefaultTokenRetention is how long expired and revoked tokens are kept
// (listed with TokenQuery.All) before PruneTokens deletes them.
const DefaultTokenRetention = 30 * 24 * time.Hour

// pruneTokensBatch bounds one statement of PruneTokens, so a backlog of
// millions is deleted in short transactions.
const pruneTokensBatch = 1000

// PruneTokens deletes the tokens that expired or were revoked longer than
// the retention ago (Options.TokenRetention), except those a version was
// published with, and answers how many. Nothing when the retention is
// negative (kept for ever).
func (s *Service) PruneTokens(ctx context.Context) (int64, error) {
	if s.tokenRetention < 0 {
		return 0, nil
	}
	before := s.now().Add(-s.tokenRetention)
	var total int64
	for {
		n, err := s.store.PruneTokens(ctx, before, pruneTokensBatch)
		total += n
		if err != nil || n < pruneTokensBatch {
			return total, err
		}
	}
}

// RevokeToken revokes one of accountID's tokens now; NotFound when the
// token does not exist or belongs to someone else.
func (s *Service) RevokeToken(ctx context.Context, accountID, tokenID int64) error {
	if err := s.store.RevokeToken(ctx, accountID, tokenID, s.now()); err != nil {
		return err
	}
	if s.auditing() {
		actor := s.username(ctx, accountID)
		t, err := s.store.TokenByID(ctx, tokenID)
		if err != nil {
			t = &Token{ID: tokenID, Name: "?"}
		}
		s.emit(ctx, Event{Action: ActionTokenRevoke, Actor: actor, TokenID: tokenID,
			Message: fmt.Sprintf("%s revoked %s", actor, describeToken(t))})
	}
	return nil
}

// RevokeTokenByID revokes any account's token, for the host's pactd token
// revoke; it returns the token's account. NotFound when there is no such token.
func (s *Service) RevokeTokenByID(ctx context.Context, tokenID int64) (*Account, error) {
	t, err := s.store.TokenByID(ctx, tokenID)
	if err != nil {
		return nil, err
	}
	if err := s.store.RevokeToken(ctx, t.AccountID, tokenID, s.now()); err != nil {
		return nil, err
	}
	acct, err := s.store.AccountByID(ctx, t.AccountID)
	if err == nil {
		s.emit(ctx, Event{Action: ActionTokenRevoke, Actor: OperatorActor, TokenID: tokenID,
			Message: fmt.Sprintf("%s revoked %s's %s", OperatorActor, acct.Username, describeToken(t))})
	}
	return acct, err
}
