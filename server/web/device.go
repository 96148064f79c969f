package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The page that approves a login of the command line (docs/protocol.md,
// Logging in through the browser; registry/device.go): pact login shows a
// code and this page's address; a logged-in user types the code (or
// follows the address that holds it), sees which request it is, chooses
// what the token may do, as on the dashboard, and approves or denies.

// deviceNotices are the messages the page can show after a decision; the
// query names one, so no text from the URL reaches the page.
var deviceNotices = map[string]string{
	"approved": "Approved. The command line receives its token at its next poll, within a few seconds; you may close this page.",
	"denied":   "Denied. The command line's login fails, and no token was made.",
}

// deviceData is what the page shows: the form for the code, or the login
// the code names with the token's fields and the buttons.
type deviceData struct {
	Notice string
	Error  string
	Code   string                // as typed, or formatted once found
	Login  *registry.DeviceLogin // the login the code names: the confirmation
	Token  tokenForm
}

func (pages *Pages) routeDeviceLogin(e *gin.Engine) {
	device := e.Group("/login/device") // gate sends visitors without a session to log in, and back
	httpx.GetAndHead(device, "", pages.deviceForm)
	device.POST("", pages.confirmDeviceLogin)
	device.POST("/decide", pages.decideDeviceLogin)
}

func (pages *Pages) deviceForm(c *gin.Context) {
	pages.render(c, http.StatusOK, "device.html", "", &deviceData{Notice: deviceNotices[c.Query("done")], Code: c.Query("code")})
}

// confirmDeviceLogin finds the login the code names and asks what to do.
func (pages *Pages) confirmDeviceLogin(c *gin.Context) {
	code := strings.TrimSpace(c.PostForm("code"))
	login, ok := pages.findDeviceLogin(c, code)
	if !ok {
		return
	}
	pages.render(c, http.StatusOK, "device.html", "", &deviceData{Code: registry.FormatUserCode(registry.NormalizeUserCode(code)),
		Login: login, Token: deviceTokenForm(login)})
}

// deviceTokenForm is the token form as the approval first offers it: the
// name and the scopes the command line asked for (pact login --scope), none
// ticked when it asked for none; a scope must be ticked to approve.
func deviceTokenForm(login *registry.DeviceLogin) tokenForm {
	f := newTokenForm(login.Name)
	for _, sc := range login.RequestedScopes {
		f.Scopes = append(f.Scopes, string(sc))
	}
	f.ScopesRequired = true
	return f
}

// decideDeviceLogin approves the login, with the token the fields
// describe, or denies it.
func (pages *Pages) decideDeviceLogin(c *gin.Context) {
	code := strings.TrimSpace(c.PostForm("code"))
	login, ok := pages.findDeviceLogin(c, code)
	if !ok {
		return
	}
	acct := pages.currentAccount(c)
	d := &deviceData{Code: registry.FormatUserCode(registry.NormalizeUserCode(code)), Login: login, Token: readTokenForm(c)}
	d.Token.ScopesRequired = true
	var err error
	switch c.PostForm("decision") {
	case "approve":
		var spec registry.TokenSpec
		if spec, err = d.Token.spec(); err == nil {
			err = pages.svc.ApproveDeviceLogin(c, acct.ID, code, spec)
		}
	case "deny":
		err = pages.svc.DenyDeviceLogin(c, acct.ID, code)
	default:
		err = registry.Errorf(registry.Invalid, "Choose Approve or Deny.")
	}
	switch {
	case registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict):
		// The fields ask for what the account may not have (too many
		// tokens, a glob of no pack scope) or name no scope: the same
		// page, saying why.
		d.Error = registry.ErrorMessage(err)
		pages.render(c, httpx.Status(err), "device.html", "", d)
	case registry.IsCode(err, registry.NotFound): // decided or expired meanwhile
		pages.render(c, http.StatusNotFound, "device.html", "", &deviceData{Error: registry.ErrorMessage(err), Code: code})
	case err != nil:
		pages.errorPage(c, err)
	case c.PostForm("decision") == "approve":
		c.Redirect(http.StatusSeeOther, "/login/device?done=approved")
	default:
		c.Redirect(http.StatusSeeOther, "/login/device?done=denied")
	}
}

// findDeviceLogin answers the login waiting for code, or shows the form
// again saying why there is none. Every code that names no login counts
// against the address and the account, as failed log-ins do, so the
// page cannot be used to guess codes; a code that names one costs nothing.
func (pages *Pages) findDeviceLogin(c *gin.Context, code string) (*registry.DeviceLogin, bool) {
	addr := httpx.AddressKey(c.ClientIP())
	account := pages.currentAccount(c).Username
	now := pages.now()
	if ok, wait := pages.deviceCodes.Take(addr, now); !ok {
		pages.tooManyDeviceCodes(c, code, wait)
		return nil, false
	}
	if ok, wait := pages.deviceCodesPerAcct.Take(account, now); !ok {
		pages.deviceCodes.Release(addr)
		pages.tooManyDeviceCodes(c, code, wait)
		return nil, false
	}
	login, err := pages.svc.PendingDeviceLogin(c, code)
	if registry.IsCode(err, registry.NotFound) {
		pages.render(c, http.StatusNotFound, "device.html", "", &deviceData{Error: registry.ErrorMessage(err), Code: code})
		return nil, false
	}
	pages.deviceCodes.Release(addr)
	pages.deviceCodesPerAcct.Release(account)
	if err != nil {
		pages.errorPage(c, err)
		return nil, false
	}
	return login, true
}

func (pages *Pages) tooManyDeviceCodes(c *gin.Context, code string, wait time.Duration) {
	retryAfter(c, wait)
	pages.render(c, http.StatusTooManyRequests, "device.html", "", &deviceData{
		Error: "Too many codes that name no login. " + tryAgainIn(wait), Code: code})
}
