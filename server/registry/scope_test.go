package registry

import (
	"strings"
	"testing"
	"time"
)

// scopeOps are operations that need each scope.
var scopeOps = map[Scope]Op{ScopePublish: OpPublish, ScopeYank: OpYank, ScopeKeys: OpKeys, ScopeTokens: OpTokens, ScopeHooks: OpHooks}

func TestTokenScopes(t *testing.T) {
	full := &Token{}
	none := &Token{Scopes: []Scope{}}
	widgets := &Token{Scopes: []Scope{ScopePublish, ScopeYank, ScopeKeys}, Packages: []string{"widget-*", "gadget"}}
	cases := []struct {
		name  string
		token *Token
		scope Scope
		pack  string
		want  string // "" allowed; otherwise in the message
	}{
		{"full power publishes anything", full, ScopePublish, "anything", ""},
		{"full power yanks anything", full, ScopeYank, "anything", ""},
		{"full power makes tokens", full, ScopeTokens, "", ""},
		{"no scope cannot publish", none, ScopePublish, "", `lacks the "publish" scope`},
		{"no scope cannot yank", none, ScopeYank, "widget-a", `lacks the "yank" scope`},
		{"no scope cannot add keys", none, ScopeKeys, "", `lacks the "keys" scope`},
		{"a glob matches", widgets, ScopePublish, "widget-a", ""},
		{"a name matches", widgets, ScopeYank, "gadget", ""},
		{"matched in lower case", widgets, ScopeYank, "Widget-A", ""},
		{"outside the globs", widgets, ScopePublish, "other", `"other" is not one of them`},
		{"yank outside the globs", widgets, ScopeYank, "gadgets", `"gadgets" is not one of them`},
		// Keys sign publishes of every pack: a token limited to packs has
		// only the pack-scoped powers (docs/protocol.md, Who may do what).
		{"packages refuse keys", widgets, ScopeKeys, "", "limited to the packs widget-*, gadget"},
		{"the scope alone before the pack is known", widgets, ScopePublish, "", ""},
		{"a scope it lacks", widgets, ScopeTokens, "", `lacks the "tokens" scope`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Permit(c.token, scopeOps[c.scope], "bob", "", c.pack)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !IsCode(err, Forbidden) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error = %v, want Forbidden mentioning %q", err, c.want)
			}
		})
	}
}

func TestCheckIssue(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := func(days int) *time.Time { at := now.AddDate(0, 0, days); return &at }
	maker := &Token{Scopes: []Scope{ScopePublish, ScopeTokens}, ExpiresAt: in(10)}
	cases := []struct {
		name string
		new  Token
		want string
	}{
		{"same power", Token{Scopes: []Scope{ScopePublish, ScopeTokens}, Packages: []string{"widget-*"}, ExpiresAt: in(10)}, ""},
		{"a pack its glob matches", Token{Scopes: []Scope{ScopePublish}, Packages: []string{"widget-x"}, ExpiresAt: in(1)}, ""},
		{"no pack scope needs no packages", Token{Scopes: []Scope{ScopeTokens}, ExpiresAt: in(1)}, ""},
		{"every scope", Token{ExpiresAt: in(1)}, "must list scopes"},
		{"a scope it lacks", Token{Scopes: []Scope{ScopeYank}, ExpiresAt: in(1)}, `lacks the "yank" scope`},
		{"later", Token{Scopes: []Scope{ScopeTokens}, ExpiresAt: in(11)}, "expire no later"},
		{"never", Token{Scopes: []Scope{ScopeTokens}}, "expire no later"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.new.CreatedAt = now
			err := checkIssue(maker, &c.new)
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("checkIssue = %v, want %q", err, c.want)
			}
		})
	}
	if err := checkIssue(&Token{}, &Token{CreatedAt: now}); err != nil {
		t.Errorf("a full-power token making a full-power token: %v", err)
	}
}

// A glob without an organisation covers the holder's own packs; org/glob
// covers that organisation's only (docs/protocol.md, Token scopes).
func TestOrganisationGlobs(t *testing.T) {
	globs, err := ParsePackages([]string{"acme/widget-*", "tool"})
	if err != nil {
		t.Fatal(err)
	}
	tok := &Token{Scopes: []Scope{ScopePublish}, Packages: globs}
	for _, c := range []struct {
		owner, pack string
		ok          bool
	}{
		{"acme", "widget-a", true}, {"acme", "tool", false}, {"bob", "tool", true}, {"", "tool", true},
		{"bob", "widget-a", false}, {"other", "widget-a", false},
	} {
		if err := Permit(tok, OpPublish, "bob", c.owner, c.pack); (err == nil) != c.ok {
			t.Errorf("bob's token on %s/%s: %v, want allowed %v", c.owner, c.pack, err, c.ok)
		}
	}
	// The owner part is matched apart from the pack part: no class reaches across '/'.
	own := &Token{Scopes: []Scope{ScopePublish}, Packages: []string{"acme[^x]*", "acme?rocket"}}
	if err := Permit(own, OpPublish, "bob", "acme", "rocket"); err == nil {
		t.Error("bob's glob acme[^x]* reaches acme/rocket")
	}
	if err := Permit(own, OpPublish, "bob", "", "acmeco"); err != nil {
		t.Errorf("bob's glob acme[^x]* on his own acmeco: %v", err)
	}
	for _, bad := range []string{"a/b/c", "ac*/x", "-acme/x", "acme/" + strings.Repeat("x", 65), "acme/", "ac[m]e/x", "*/x"} {
		if _, err := ParsePackages([]string{bad}); !IsCode(err, Invalid) {
			t.Errorf("ParsePackages(%q) = %v, want Invalid", bad, err)
		}
	}
}
