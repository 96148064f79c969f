package web

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// The fields of a token, as the dashboard's token form and the approval of
// a login of the command line (device.go) both offer them
// (templates/parts/tokenfields.html).

// tokenLifetimes are the expiries offered, in days; "" never expires.
var tokenLifetimes = []struct {
	Value string
	Label string
}{
	{"", "Never"},
	{"7", "In 7 days"},
	{"30", "In 30 days"},
	{"90", "In 90 days"},
	{"365", "In a year"},
}

// tokenScopes are the scopes offered, with what each allows.
var tokenScopes = []struct {
	Value string
	Label string
}{
	{string(registry.ScopePublish), "publish: publish versions"},
	{string(registry.ScopeYank), "yank: yank, un-yank, deprecate"},
	{string(registry.ScopeKeys), "keys: add and delete SSH keys"},
	{string(registry.ScopeTokens), "tokens: create, list and revoke tokens"},
	{string(registry.ScopeHooks), "hooks: add, list and remove webhooks"},
}

// defaultLifetime is the expiry offered first, as pact token create does
// (docs/protocol.md, Token scopes).
const defaultLifetime = "90"

// tokenForm is what the fields hold: the values sent, shown again after an
// error, or the ones offered first.
type tokenForm struct {
	Name     string
	Lifetime string   // a Value of tokenLifetimes
	Scopes   []string // the scopes ticked
	Packages string   // globs, separated by spaces or commas
	// ScopesRequired says that no box ticked is refused rather than every
	// scope: the approval of a login of the command line (device.go).
	ScopesRequired bool
}

// newTokenForm is the form as first offered, with name.
func newTokenForm(name string) tokenForm { return tokenForm{Name: name, Lifetime: defaultLifetime} }

// readTokenForm reads the fields a form sent.
func readTokenForm(c *gin.Context) tokenForm {
	return tokenForm{Name: strings.TrimSpace(c.PostForm("name")), Lifetime: c.PostForm("expires_in_days"),
		Scopes: c.PostFormArray("scope"), Packages: strings.TrimSpace(c.PostForm("packages"))}
}

// spec is the token the fields ask for. No scope ticked gives every scope,
// as tokens made before scopes have. A lifetime not offered is an Invalid
// error worded for the page.
func (f tokenForm) spec() (registry.TokenSpec, error) {
	spec := registry.TokenSpec{Name: f.Name}
	if len(f.Scopes) > 0 {
		spec.Scopes = f.Scopes
	}
	if globs := strings.FieldsFunc(f.Packages, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }); len(globs) > 0 {
		spec.Packages = globs
	}
	if f.Lifetime != "" {
		days, err := strconv.Atoi(f.Lifetime)
		if err != nil || days < 1 || days > registry.MaxTokenDays {
			return spec, registry.Errorf(registry.Invalid, "Choose when the token expires from the list.")
		}
		spec.ExpiresInDays = &days
	}
	return spec, nil
}

// Lifetimes are the expiries the template offers.
func (f tokenForm) Lifetimes() any { return tokenLifetimes }

type scopeBox struct {
	Value, Label string
	Checked      bool
}

// ScopeBoxes are the scopes the template offers, ticked as the form was.
func (f tokenForm) ScopeBoxes() []scopeBox {
	boxes := make([]scopeBox, len(tokenScopes))
	for i, sc := range tokenScopes {
		boxes[i] = scopeBox{Value: sc.Value, Label: sc.Label, Checked: slices.Contains(f.Scopes, sc.Value)}
	}
	return boxes
}
