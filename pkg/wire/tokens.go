package wire

import "time"

// Token scopes (docs/protocol.md, Token scopes).
const (
	ScopePublish = "publish"
	ScopeYank    = "yank"
	ScopeKeys    = "keys"
	ScopeTokens  = "tokens"
	ScopeHooks   = "hooks"
)

// Token is an API token as GET /api/tokens lists it: never its secret nor
// its hash.
type Token struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	// Scopes the token holds; null holds every scope, present and future
	// (tokens made before scopes, or made without choosing).
	Scopes *[]string `json:"scopes"`
	// Packages limits the publish and yank scopes to packs matching one of
	// these globs; null: every pack.
	Packages   *[]string  `json:"packages"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`   // null: never expires
	LastUsedAt *time.Time `json:"last_used_at"` // null: never used
	Revoked    bool       `json:"revoked"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// TokenList answers GET /api/tokens: a page of the caller's active
// tokens (with all=true, the expired and revoked ones kept too), newest
// first.
type TokenList struct {
	OK     bool    `json:"ok"`
	Tokens []Token `json:"tokens"`
	// NextCursor fetches the following page; null on the last page.
	NextCursor *string `json:"next_cursor"`
}

// CreatedToken answers POST /api/tokens (201): the new token's fields and,
// this once, its secret as Token.
type CreatedToken struct {
	OK         bool       `json:"ok"`
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Scopes     *[]string  `json:"scopes"`
	Packages   *[]string  `json:"packages"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	Revoked    bool       `json:"revoked"`
	RevokedAt  *time.Time `json:"revoked_at"`
	// Token is the secret, shown only in this answer.
	Token string `json:"token"`
}

// TokenRequest is the body of POST /api/tokens. Every field is optional:
// no scopes gives every scope, no packages every pack, and no
// expires_in_days (or null) a token that never expires.
type TokenRequest struct {
	Name          *string   `json:"name,omitempty"`
	Scopes        *[]string `json:"scopes,omitempty"`
	Packages      *[]string `json:"packages,omitempty"`
	ExpiresInDays *int      `json:"expires_in_days,omitempty"`
}

// TokenRequestFields are the fields of TokenRequest; the server refuses
// others, so a misspelt "scope" cannot make a token of every scope.
var TokenRequestFields = []string{"name", "scopes", "packages", "expires_in_days"}
