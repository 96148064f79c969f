package registry_test

import (
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// Permit is the one decision of what a token may do (docs/protocol.md,
// Who may do what); a nil token is a logged-in browser session.
func TestPermit(t *testing.T) {
	yankWidgets := &registry.Token{Scopes: []registry.Scope{registry.ScopeYank}, Packages: []string{"widget-*"}}
	allWidgets := &registry.Token{Packages: []string{"widget-*"}} // every scope, some packs
	cases := []struct {
		name        string
		token       *registry.Token
		op          registry.Op
		owner, pack string
		refused     string // "" when permitted
	}{
		{"full power deprecates", &registry.Token{}, registry.OpDeprecate, "", "anything", ""},
		{"yank on a matching pack", yankWidgets, registry.OpDeprecate, "", "widget-a", ""},
		{"yank on another pack", yankWidgets, registry.OpDeprecate, "", "other", `"other" is not one of them`},
		{"publish only", &registry.Token{Scopes: []registry.Scope{registry.ScopePublish}}, registry.OpDeprecate, "", "widget-a", `lacks the "yank" scope`},
		// An organisation's pack matches only org/ globs (docs/protocol.md, Token scopes).
		{"an organisation's pack", &registry.Token{Scopes: []registry.Scope{registry.ScopeYank}, Packages: []string{"acme/widget-*"}}, registry.OpDeprecate, "acme", "widget-a", ""},
		{"an organisation's pack by a glob of one's own", yankWidgets, registry.OpDeprecate, "acme", "widget-a", `"acme/widget-a" is not one of them`},
		{"the pack not known yet", allWidgets, registry.OpPublish, "", "", ""},
		{"every pack of the owner", allWidgets, registry.OpHooks, "", registry.EveryPack, "cannot manage webhooks of every pack of alice"},
		// Account-wide powers are not a pack-limited token's, whatever its scopes.
		{"SSH keys by a pack-limited token", allWidgets, registry.OpKeys, "", "", "limited to the packs widget-*, so it cannot add or remove SSH keys"},
		{"tokens by a pack-limited token", allWidgets, registry.OpTokens, "", "", "limited to the packs widget-*"},
		{"organisations by a pack-limited token", allWidgets, registry.OpOrgs, "", "", "limited to the packs widget-*"},
		{"members by a pack-limited token", allWidgets, registry.OpMembers, "", "", "limited to the packs widget-*"},
		{"SSH keys by a full token", &registry.Token{}, registry.OpKeys, "", "", ""},
		{"SSH keys without the scope", &registry.Token{Scopes: []registry.Scope{registry.ScopePublish}}, registry.OpKeys, "", "", `lacks the "keys" scope`},
		{"whoami by any token", &registry.Token{Scopes: []registry.Scope{}, Packages: []string{"x"}}, registry.OpWhoAmI, "", "", ""},
		// Session-only powers are never a token's.
		{"lifting the lock by a full token", &registry.Token{}, registry.OpUnlock, "", "widget-a", "only a logged-in browser session may, on the dashboard"},
		{"the second factor by a full token", &registry.Token{}, registry.OpSecondFactor, "", "", "only a logged-in browser session may"},
		{"lifting the lock in a session", nil, registry.OpUnlock, "", "widget-a", ""},
		{"SSH keys in a session", nil, registry.OpKeys, "", "", ""},
		{"public", allWidgets, registry.OpRead, "", "", ""},
		{"an operation without a rule", &registry.Token{}, registry.Op("nothing"), "", "", "no rule says"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := registry.Permit(c.token, c.op, "alice", c.owner, c.pack)
			switch {
			case c.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.refused != "" && err == nil:
				t.Errorf("permitted, want refused with %q", c.refused)
			case c.refused != "" && (!registry.IsCode(err, registry.Forbidden) || !strings.Contains(err.Error(), c.refused)):
				t.Errorf("refused with %v, want Forbidden mentioning %q", err, c.refused)
			}
		})
	}
}

// Every route's operation has a rule, and no route is listed twice.
func TestEveryRouteHasARule(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range registry.Routes {
		if _, ok := registry.RuleOf(r.Op); !ok {
			t.Errorf("%s %s: operation %q has no rule", r.Method, r.Path, r.Op)
		}
		if seen[r.Method+" "+r.Path] {
			t.Errorf("%s %s is listed twice", r.Method, r.Path)
		}
		seen[r.Method+" "+r.Path] = true
	}
}
