package web

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The dashboard's webhooks (docs/protocol.md, Webhooks): the account's
// hooks and those of the organisations it owns, with their state; a hook
// disabled for failing for days shows why. The page adds and removes them
// and shows each one's deliveries, calling the domain's methods with the
// session's account and no token, as the API's handlers (server/hooks.go)
// call them with the token's: the domain decides whose hooks the account
// manages (its own, and those of the organisations it owns).

// hookPackageEvents are the events a hook of one package gets when the
// form ticks none, as pact hook add --package gives it.
var hookPackageEvents = []string{registry.HookPublish, registry.HookYank, registry.HookUnyank, registry.HookDeprecate, registry.HookRelease}

// hookForm is what the form to add a hook holds: the values sent, shown
// again after an error (the secret aside).
type hookForm struct {
	Owner, Package, URL string
	Events              []string
}

// EventBoxes are the events the form offers, ticked as it was.
func (f hookForm) EventBoxes() []scopeBox {
	boxes := make([]scopeBox, len(registry.HookEvents))
	for i, e := range registry.HookEvents {
		boxes[i] = scopeBox{Value: e, Label: e, Checked: slices.Contains(f.Events, e)}
	}
	return boxes
}

func (pages *Pages) dashboardHooks(c *gin.Context, d *dashboardData) error {
	acct := pages.currentAccount(c)
	hooks, err := pages.svc.ListHooks(c, acct, nil, "")
	if err != nil {
		return err
	}
	d.Hooks = hooks
	d.HookOwners = []string{acct.Username}
	memberships, err := pages.svc.OrgsOf(c, acct)
	if err != nil {
		return err
	}
	for _, m := range memberships {
		// The domain says whose hooks the account manages: a
		// maintainer manages none of the organisation's.
		hooks, err := pages.svc.ListHooks(c, acct, nil, m.Username)
		if registry.IsCode(err, registry.Forbidden) {
			continue
		}
		if err != nil {
			return err
		}
		d.Hooks = append(d.Hooks, hooks...)
		d.HookOwners = append(d.HookOwners, m.Username)
	}
	if d.Hook.Owner == "" {
		d.Hook.Owner = acct.Username
	}
	return nil
}

// addHook makes a hook, as POST /api/hooks does. With no secret typed the
// page makes one, as pact hook add does, and shows it this once; with no
// event ticked the hook gets every event (of one package: those of a
// pack).
func (pages *Pages) addHook(c *gin.Context) {
	acct := pages.currentAccount(c)
	form := hookForm{Owner: strings.TrimSpace(c.PostForm("owner")), Package: strings.TrimSpace(c.PostForm("package")),
		URL: strings.TrimSpace(c.PostForm("url")), Events: c.PostFormArray("event")}
	d := &dashboardData{Section: sectionHooks, Hook: form}
	spec := registry.HookSpec{Owner: form.Owner, Package: form.Package, URL: form.URL, Secret: c.PostForm("secret"), Events: form.Events}
	made := spec.Secret == ""
	if made {
		b := make([]byte, 24)
		_, _ = rand.Read(b) // never fails on supported platforms
		spec.Secret = hex.EncodeToString(b)
	}
	if len(spec.Events) == 0 {
		spec.Events = registry.HookEvents
		if spec.Package != "" {
			spec.Events = hookPackageEvents
		}
	}
	err := pages.dashboardOrgCheck(c, form.Owner)
	var h *registry.Hook
	if err == nil {
		h, err = pages.svc.CreateHook(c, acct, nil, spec)
	}
	if err != nil {
		// A refusal of the owner (not one the account owns, or none
		// such) is shown on the page with the form, as a bad URL is.
		if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) ||
			registry.IsCode(err, registry.Forbidden) || registry.IsCode(err, registry.NotFound) {
			d.Error = registry.ErrorMessage(err)
			pages.renderDashboard(c, httpx.Status(err), d)
			return
		}
		pages.errorPage(c, err)
		return
	}
	if !made {
		c.Redirect(http.StatusSeeOther, "/dashboard/hooks?done=hook-added#hook-"+strconv.FormatInt(h.ID, 10))
		return
	}
	// The secret is on this page only: pactd keeps it to sign, but shows
	// it nowhere else (requireLogin set no-store).
	pages.renderDashboard(c, http.StatusOK, &dashboardData{Section: sectionHooks, NewHookSecret: spec.Secret, NewHookID: h.ID,
		Notice: notices["hook-added"].text})
}

// removeHook deletes a hook, as DELETE /api/hooks/{id} does, after asking.
// HookDeliveries reads the hook as the domain lets the account read it
// (NotFound for one it does not manage), for the question and for the
// second factor its organisation may require here.
func (pages *Pages) removeHook(c *gin.Context) {
	pages.removeByID(c, removal{
		describe: func(_, id int64) (*confirmation, error) {
			h, _, err := pages.svc.HookDeliveries(c, pages.currentAccount(c), nil, id)
			if err != nil {
				return nil, err
			}
			if err := pages.dashboardOrgCheck(c, h.Owner); err != nil {
				return nil, err
			}
			return &confirmation{
				Title:  "Remove webhook " + strconv.FormatInt(h.ID, 10) + " of " + hookOf(h) + "?",
				Detail: "Events stop being sent to " + h.URL + ", and its deliveries are deleted. A hook removed cannot be brought back: add a new one.",
				Button: "Remove webhook", Cancel: "/dashboard/hooks",
			}, nil
		},
		remove: func(_, id int64) error {
			h, _, err := pages.svc.HookDeliveries(c, pages.currentAccount(c), nil, id)
			if err != nil {
				return err
			}
			if err := pages.dashboardOrgCheck(c, h.Owner); err != nil {
				return err
			}
			return pages.svc.DeleteHook(c, pages.currentAccount(c), nil, id)
		},
		done: "/dashboard/hooks?done=hook-removed",
	})
}

// hookOf is what a hook hears of: owner, or owner/pack.
func hookOf(h *registry.Hook) string {
	if h.Package == "" {
		return h.Owner
	}
	return h.Owner + "/" + h.Package
}

// hookData is the page of one hook's deliveries.
type hookData struct {
	Section, Notice, Error string // as dashboardData's, for the dashboard's head
	Hook                   *registry.Hook
	Of                     string // hookOf
	Deliveries             []registry.HookDelivery
	Kept                   int // how many deliveries a hook keeps
}

// showHook lists a hook's newest deliveries, as GET
// /api/hooks/{id}/deliveries does; NotFound for a hook the account does
// not manage.
func (pages *Pages) showHook(c *gin.Context) {
	id, ok := pathID(c)
	if !ok {
		pages.notFound(c)
		return
	}
	h, deliveries, err := pages.svc.HookDeliveries(c, pages.currentAccount(c), nil, id)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	pages.render(c, http.StatusOK, "dashboard-hook.html", "", &hookData{Section: sectionHooks, Hook: h, Of: hookOf(h),
		Deliveries: deliveries, Kept: registry.HookDeliveriesKept})
}
