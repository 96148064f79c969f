package registry

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/clip"
)

// Scope is one power an API token may hold (docs/protocol.md, Token scopes).
type Scope string

const (
	// ScopePublish publishes versions (POST /api/publish), limited to the
	// token's Packages when it has them.
	ScopePublish Scope = "publish"
	// ScopeYank yanks, un-yanks and deprecates, limited to the token's
	// Packages when it has them.
	ScopeYank Scope = "yank"
	// ScopeKeys adds and deletes SSH keys.
	ScopeKeys Scope = "keys"
	// ScopeTokens lists, creates and revokes tokens.
	ScopeTokens Scope = "tokens"
	// ScopeHooks adds, lists the deliveries of, redelivers and removes
	// webhooks (hook.go); a token limited to packs manages only hooks of
	// one of those packs.
	ScopeHooks Scope = "hooks"
)

// Scopes are every scope, in the order lists show them.
var Scopes = []Scope{ScopePublish, ScopeYank, ScopeKeys, ScopeTokens, ScopeHooks}

// packScoped are the scopes of the pack-scoped operations (authority.go),
// the only ones a token limited to packs may use.
var packScoped = []Scope{ScopePublish, ScopeYank}

// Bounds of what a token may carry.
const (
	MaxTokenPackages    = 20  // globs in Packages
	MaxTokenGlobLength  = 104 // org/ (at most 40) and a pack glob (at most 64)
	maxPackGlobLength   = 64  // a pack slug is at most 64 characters
	MaxTokenScopeInputs = 16  // entries in a scopes list as sent, duplicates included
	MaxTokenDays        = 3650
	// MaxActiveTokens bounds the tokens an account holds that are neither
	// revoked nor expired, so no token can mint tokens without end. Tokens
	// exchanged for ID tokens (trust.go) do not count: they have
	// MaxActiveExchangedTokens, so a busy CI cannot lock out the account's
	// own tokens, nor they its CI.
	MaxActiveTokens = 100
	// MaxActiveExchangedTokens bounds an account's tokens from trusted
	// publishing active at once: each lasts ExchangedTokenLifetime, so
	// this is about one exchange a second, kept up for a quarter of an hour.
	MaxActiveExchangedTokens = 1000
)

// FullPower reports whether t holds every scope, present and future: the
// tokens made before scopes existed, and those made without choosing any.
func (t *Token) FullPower() bool { return t.Scopes == nil }

// HasScope reports whether t holds scope, whatever pack it acts on.
func (t *Token) HasScope(scope Scope) bool {
	return t.Scopes == nil || slices.Contains(t.Scopes, scope)
}

// MatchesPackages reports whether pack (a pack slug of the token holder's,
// or org/pack) matches one of globs. The owner part and the pack part are
// matched apart: a glob without '/' matches only the holder's own packs,
// one of the form org/glob only the packs of org, whose name it holds
// literally, and the pack part is path.Match'ed against the pack's slug
// alone, so no glob operator (not even a class such as [^x]) reaches
// across the '/'.
func MatchesPackages(globs []string, pack string) bool {
	owner, name := splitPack(pack)
	for _, g := range globs {
		gOwner, gName := splitPack(g)
		if gOwner != owner {
			continue
		}
		if ok, _ := path.Match(gName, name); ok {
			return true
		}
	}
	return false
}

// splitPack splits org/pack (or org/glob) into its two parts; a name
// without '/' is the holder's own, owner "".
func splitPack(name string) (owner, pack string) {
	if o, p, ok := strings.Cut(name, "/"); ok {
		return o, p
	}
	return "", name
}

// withinPackages reports whether glob lies within globs, the packs of the
// credential granting it: it is one of them, or a literal pack name one of
// them matches. Two different globs are never compared (whether one covers
// the other is not decided), so the rule stays simple and sound.
func withinPackages(globs []string, glob string) bool {
	return slices.Contains(globs, glob) || isLiteralPack(glob) && MatchesPackages(globs, glob)
}

// ParseScopes checks a list of scope names as a client sent it and returns
// the scopes in canonical order, each once. nil stays nil (every scope).
func ParseScopes(names []string) ([]Scope, error) {
	if names == nil {
		return nil, nil
	}
	if len(names) > MaxTokenScopeInputs {
		return nil, Errorf(Invalid, "scopes must list at most %d entries", MaxTokenScopeInputs)
	}
	seen := map[Scope]bool{}
	for _, n := range names {
		s := Scope(strings.ToLower(strings.TrimSpace(n)))
		if !slices.Contains(Scopes, s) {
			return nil, Errorf(Invalid, "scope %q is not known: use %s", clip.Text(n, 40), scopeList(Scopes))
		}
		seen[s] = true
	}
	out := []Scope{}
	for _, s := range Scopes {
		if seen[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// ParsePackages checks a list of pack-name globs: lower-case slug
// characters (a-z, 0-9, '-') and the path.Match operators * ? [ ] ^ and
// '-' in a class; at most MaxTokenPackages of at most MaxTokenGlobLength
// characters. Duplicates are dropped; nil stays nil (every pack).
func ParsePackages(globs []string) ([]string, error) {
	if globs == nil {
		return nil, nil
	}
	if len(globs) == 0 {
		return nil, Errorf(Invalid, "packages must name at least one pack or glob such as \"widget-*\"; leave it out to allow every pack")
	}
	if len(globs) > MaxTokenPackages {
		return nil, Errorf(Invalid, "packages must list at most %d globs", MaxTokenPackages)
	}
	var out []string
	for _, g := range globs {
		g = strings.TrimSpace(g)
		if g == "" {
			return nil, Errorf(Invalid, "packages must not hold an empty glob")
		}
		if len(g) > MaxTokenGlobLength {
			return nil, Errorf(Invalid, "package glob %q is longer than %d characters", clip.Text(g, 40), MaxTokenGlobLength)
		}
		packGlob := g
		if org, rest, ok := strings.Cut(g, "/"); ok {
			if strings.ContainsAny(org, "*?[]^") {
				return nil, Errorf(Invalid, "package glob %q has a pattern in its organisation's name: name one organisation literally, such as acme/%s", clip.Text(g, 40), clip.Text(rest, 40))
			}
			if _, err := NormalizeUsername(org); err != nil || org != strings.ToLower(org) || strings.Contains(rest, "/") {
				return nil, Errorf(Invalid, "package glob %q may hold only a-z, 0-9, '-' and the glob operators * ? [ ] ^, after at most one organisation's name and '/'", g)
			}
			if rest == "" {
				return nil, Errorf(Invalid, "package glob %q names no pack after the organisation: use %s* for every pack of %s", g, g, org)
			}
			packGlob = rest
		}
		if len(packGlob) > maxPackGlobLength {
			return nil, Errorf(Invalid, "package glob %q is longer than %d characters", clip.Text(g, 40), maxPackGlobLength)
		}
		for _, r := range packGlob {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-*?[]^", r)) {
				return nil, Errorf(Invalid, "package glob %q may hold only a-z, 0-9, '-' and the glob operators * ? [ ] ^, after at most one organisation's name and '/'", g)
			}
		}
		if _, err := path.Match(g, ""); err != nil {
			return nil, Errorf(Invalid, "package glob %q is not a valid glob: %s", g, err.Error())
		}
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out, nil
}

// TokenSpec is what a new token is to hold.
type TokenSpec struct {
	Name string
	// CI is the CI job of a token exchanged for an ID token (trust.go).
	CI *CIIdentity
	// TrustedPublishers are the ids of the trusted publishers such a
	// token was exchanged through.
	TrustedPublishers []int64
	// Scopes as a client sent them; nil gives every scope, present and
	// future; an empty list gives none (a token that can only read).
	Scopes []string
	// Packages limits the publish and yank scopes to packs matching one of
	// these globs; nil: every pack.
	Packages []string
	// ExpiresInDays is the lifetime, 1..MaxTokenDays; nil never expires
	// unless ExpiresAt is set.
	ExpiresInDays *int
	// ExpiresAt is an exact expiry, for the host's pactd token create
	// --expires-in 720h; within MaxTokenDays. Ignored when ExpiresInDays is set.
	ExpiresAt *time.Time
	// JTI, for a token exchanged for an ID token, is that ID token's jti:
	// it is spent in the transaction that stores the token, so it stays
	// usable when the token is not issued.
	JTI *JTISpend
}

// checkIssue applies the rule for tokens made with a token: the new token
// may hold no more power than the one making it (docs/protocol.md, Token
// scopes): its scopes are among the maker's, and it expires no later than
// the maker. A maker limited to packs makes no tokens at all (Permit:
// tokens are an account-wide power).
func checkIssue(maker, t *Token) error {
	if !maker.FullPower() {
		if t.Scopes == nil {
			return Errorf(Forbidden, "this token holds only the scopes %s, so the tokens it makes must list scopes among those",
				scopeList(maker.Scopes))
		}
		for _, s := range t.Scopes {
			if !maker.HasScope(s) {
				return Errorf(Forbidden, "this token lacks the %q scope, so the tokens it makes cannot hold it", s)
			}
		}
	}
	if maker.ExpiresAt != nil && (t.ExpiresAt == nil || t.ExpiresAt.After(*maker.ExpiresAt)) {
		return Errorf(Forbidden, "this token expires at %s, so the tokens it makes must expire no later: set expires_in_days to at most %d",
			maker.ExpiresAt.UTC().Format(time.RFC3339), int(maker.ExpiresAt.Sub(t.CreatedAt)/(24*time.Hour)))
	}
	return nil
}

func holdsPackScope(t *Token) bool {
	return slices.ContainsFunc(packScoped, t.HasScope)
}

func isLiteralPack(glob string) bool { return !strings.ContainsAny(glob, "*?[]^") }

func scopeList(scopes []Scope) string {
	if len(scopes) == 0 {
		return "(none)"
	}
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
