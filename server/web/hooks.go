package web

import (
	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// The dashboard's webhooks (docs/protocol.md, Webhooks): the account's
// hooks and those of the organisations it owns, with their state; a hook
// disabled for failing for days shows why. They are made and removed with
// pact hook or the API.

func (pages *Pages) dashboardHooks(c *gin.Context, d *dashboardData) error {
	acct := pages.currentAccount(c)
	hooks, err := pages.svc.ListHooks(c, acct, nil, "")
	if err != nil {
		return err
	}
	d.Hooks = hooks
	memberships, err := pages.svc.OrgsOf(c, acct)
	if err != nil {
		return err
	}
	for _, m := range memberships {
		if m.Role != registry.RoleOwner {
			continue
		}
		hooks, err := pages.svc.ListHooks(c, acct, nil, m.Username)
		if err != nil {
			return err
		}
		d.Hooks = append(d.Hooks, hooks...)
	}
	return nil
}
