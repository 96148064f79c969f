package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Passkeys in the dashboard (docs/protocol.md, Passkeys): register them on
// the account page, log in with one instead of the password, require one
// after the password (a second factor) with recovery codes for a lost one.
// Each ceremony is two JSON posts from static/passkey.js, begin and
// finish; what lies between them a short-lived cookie carries: sealed by
// the domain for a registration or a passkey log-in, or the random id of
// a log-in waiting for its second factor.

func (pages *Pages) routePasskeys(e *gin.Engine, dash *gin.RouterGroup) {
	e.POST("/login/passkey/begin", pages.beginPasskeyLogin)
	e.POST("/login/passkey/finish", pages.finishPasskeyLogin)
	httpx.GetAndHead(e, "/login/second-factor", pages.secondFactorPage)
	e.POST("/login/second-factor/begin", pages.beginSecondFactor)
	e.POST("/login/second-factor/finish", pages.finishSecondFactor)
	e.POST("/login/second-factor/recovery", pages.recoverSecondFactor)

	dash.POST("/passkeys/begin", pages.beginPasskeyRegistration)
	dash.POST("/passkeys/finish", pages.finishPasskeyRegistration)
	dash.POST("/passkeys/:id/delete", pages.deletePasskey)
	dash.POST("/second-factor", pages.setSecondFactor)
	dash.POST("/recovery-codes", pages.newRecoveryCodes)
	dash.POST("/orgs/:org/second-factor", pages.setOrgSecondFactor)
}

// ceremonyCookie carries the id of a registration or a passkey log-in
// between its begin and its finish; loginCookie the id of a log-in whose
// password held, waiting for its second factor.
func (sc sessionConfig) ceremonyCookie() string { return sc.prefix() + "pact_webauthn" }
func (sc sessionConfig) loginCookie() string    { return sc.prefix() + "pact_login" }
func (sc sessionConfig) prefix() string {
	if sc.secure {
		return "__Host-"
	}
	return ""
}

func (pages *Pages) setShortCookie(c *gin.Context, name, value string, maxAge int) {
	http.SetCookie(c.Writer, &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: pages.sessions.secure, SameSite: http.SameSiteStrictMode})
}

func cookieValue(c *gin.Context, name string) string {
	if ck, err := c.Request.Cookie(name); err == nil {
		return ck.Value
	}
	return ""
}

// passkeyPost is what static/passkey.js posts to a finish.
type passkeyPost struct {
	Credential json.RawMessage `json:"credential"`
	Name       string          `json:"name"` // of a passkey being registered
	Next       string          `json:"next"` // where a log-in goes on to
}

// passkeyAnswer reads the browser's answer to a ceremony, or answers the
// request itself (passkeys off, a bad body) and reports false.
func (pages *Pages) passkeyAnswer(c *gin.Context) (*passkeyPost, bool) {
	if pages.passkeysOff(c) {
		return nil, false
	}
	post, err := readPasskeyPost(c)
	if err != nil {
		pages.jsonFailed(c, err)
		return nil, false
	}
	return post, true
}

// takeCeremonyCookie answers the ceremony id the browser holds and clears
// it: a ceremony is finished once.
func (pages *Pages) takeCeremonyCookie(c *gin.Context) string {
	id := cookieValue(c, pages.sessions.ceremonyCookie())
	pages.setShortCookie(c, pages.sessions.ceremonyCookie(), "", -1)
	return id
}

func readPasskeyPost(c *gin.Context) (*passkeyPost, error) {
	body, err := io.ReadAll(c.Request.Body) // limitFormBody bounds it
	if err != nil {
		return nil, registry.Errorf(registry.TooLarge, "the request is larger than %d bytes", maxFormBytes)
	}
	var p passkeyPost
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, registry.Errorf(registry.Invalid, "the request is not the JSON of a passkey's answer")
	}
	return &p, nil
}

// jsonFailed answers a JSON post with err's message and status; faults are
// logged and not shown.
func (pages *Pages) jsonFailed(c *gin.Context, err error) {
	status := httpx.Status(err)
	pages.shared.LogFailure(c, "passkey step failed", status, err)
	httpx.SetRetryAfter(c, err)
	setRetryAfter(c, err)
	c.JSON(status, gin.H{"ok": false, "error": httpx.Message(err)})
}

func (pages *Pages) jsonDone(c *gin.Context, redirect string) {
	c.JSON(http.StatusOK, gin.H{"ok": true, "redirect": redirect})
}

// passkeysOff refuses a passkey step when pactd's base URL cannot carry
// passkeys (an IP address, or http elsewhere than localhost).
func (pages *Pages) passkeysOff(c *gin.Context) bool {
	if pages.rp != nil {
		return false
	}
	noStore(c)
	pages.jsonFailed(c, registry.Errorf(registry.Conflict, "passkeys are off on this registry: %s", pages.rpProblem))
	return true
}

func tooManyLogins(wait time.Duration) error {
	return &throttled{registry.Errorf(registry.RateLimited, "Too many failed log-ins. %s", tryAgainIn(wait)), wait}
}

// throttled is a refusal of the log-in throttle with how long to wait, for
// the Retry-After header.
type throttled struct {
	error
	wait time.Duration
}

func (e *throttled) Unwrap() error { return e.error }

// setRetryAfter says how long to wait when err is the throttle's.
func setRetryAfter(c *gin.Context, err error) {
	var t *throttled
	if errors.As(err, &t) {
		retryAfter(c, t.wait)
	}
}

// loginCounts are the counts one attempt of a log-in step took from the
// log-in throttle (login in account.go): per address first, then, once
// the account is known, per account and per address and account.
type loginCounts struct {
	pages *Pages
	taken []loginCount
}

type loginCount struct {
	t   *throttle
	key string
}

// take counts one attempt under key, or gives back what lc took and says
// how long to wait.
func (lc *loginCounts) take(t *throttle, key string) error {
	if ok, wait := t.Take(key, lc.pages.now()); !ok {
		lc.fault()
		return tooManyLogins(wait)
	}
	lc.taken = append(lc.taken, loginCount{t, key})
	return nil
}

func (pages *Pages) countAddress(c *gin.Context) (*loginCounts, error) {
	lc := &loginCounts{pages: pages}
	return lc, lc.take(pages.loginsPerIP, httpx.AddressKey(c.ClientIP()))
}

// countAccount takes the counts of acct, after the address's.
func (lc *loginCounts) countAccount(c *gin.Context, acct *registry.Account) error {
	account := "user:" + acct.Username
	if err := lc.take(lc.pages.loginsPerAcct, account); err != nil {
		return err
	}
	return lc.take(lc.pages.logins, httpx.AddressKey(c.ClientIP())+"\x00"+account)
}

// fault gives back every count: a fault is not a guess.
func (lc *loginCounts) fault() {
	for _, n := range lc.taken {
		n.t.Release(n.key)
	}
	lc.taken = nil
}

// succeeded is the right credential, as for a password: the attempt costs
// nothing and the address starts afresh for the account.
func (lc *loginCounts) succeeded() {
	for _, n := range lc.taken {
		if n.t == lc.pages.logins {
			n.t.Reset(n.key)
		} else {
			n.t.Release(n.key)
		}
	}
	lc.taken = nil
}

// settle ends the counts after a step: a refused credential (Unauthorized)
// stays counted, anything else but success is given back.
func (lc *loginCounts) settle(err error) {
	switch {
	case err == nil:
		lc.succeeded()
	case registry.IsCode(err, registry.Unauthorized), registry.IsCode(err, registry.RateLimited):
	default:
		lc.fault()
	}
}

// beginPasskeyLogin answers the options of a log-in with a passkey. It is
// counted against the address, as a password attempt is.
func (pages *Pages) beginPasskeyLogin(c *gin.Context) {
	noStore(c)
	if pages.passkeysOff(c) {
		return
	}
	if _, err := pages.countAddress(c); err != nil {
		pages.jsonFailed(c, err)
		return
	}
	options, id, err := pages.svc.BeginPasskeyLogin(c, pages.rp)
	pages.ceremonyBegun(c, options, id, err)
}

// passkeyLoggedIn starts acct's session after a passkey ceremony and
// answers where to go next, or answers err.
func (pages *Pages) passkeyLoggedIn(c *gin.Context, acct *registry.Account, err error, next string) {
	if err == nil {
		err = pages.startSession(c, acct)
	}
	if err != nil {
		pages.jsonFailed(c, err)
		return
	}
	pages.jsonDone(c, afterLogin(next))
}

// ceremonyBegun answers a passkey ceremony's options and keeps its id in
// the ceremony cookie, or answers err.
func (pages *Pages) ceremonyBegun(c *gin.Context, options any, id string, err error) {
	if err != nil {
		pages.jsonFailed(c, err)
		return
	}
	pages.setShortCookie(c, pages.sessions.ceremonyCookie(), id, int(registry.CeremonyLifetime/time.Second))
	c.JSON(http.StatusOK, options)
}

func (pages *Pages) finishPasskeyLogin(c *gin.Context) {
	noStore(c)
	post, ok := pages.passkeyAnswer(c)
	if !ok {
		return
	}
	id := pages.takeCeremonyCookie(c)
	lc, err := pages.countAddress(c)
	if err != nil {
		pages.jsonFailed(c, err)
		return
	}
	acct, err := pages.svc.FinishPasskeyLogin(c, pages.rp, id, post.Credential, func(a *registry.Account) error { return lc.countAccount(c, a) })
	lc.settle(err)
	pages.passkeyLoggedIn(c, acct, err, post.Next)
}

func afterLogin(next string) string {
	if n := localPath(next); n != "" {
		return n
	}
	return "/dashboard"
}

// askSecondFactor is the end of a password log-in of an account that
// requires a second factor: no session yet, but the log-in waits for it.
func (pages *Pages) askSecondFactor(c *gin.Context, acct *registry.Account, next string) {
	id, err := pages.svc.StartSecondFactor(c, acct)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	pages.setShortCookie(c, pages.sessions.loginCookie(), id, int(registry.CeremonyLifetime/time.Second))
	to := "/login/second-factor"
	if next != "" {
		to += "?next=" + url.QueryEscape(next)
	}
	c.Redirect(http.StatusSeeOther, to)
}

type secondFactorForm struct {
	Username string
	Next     string
	Error    string
	Passkeys bool // pactd's base URL allows them
}

func (pages *Pages) secondFactorPage(c *gin.Context) {
	noStore(c)
	next := localPath(c.Query("next"))
	acct, err := pages.svc.SecondFactorAccount(c, cookieValue(c, pages.sessions.loginCookie()))
	if err != nil {
		pages.loginExpired(c, err, next)
		return
	}
	pages.render(c, http.StatusOK, "second-factor.html", "", secondFactorForm{Username: acct.Username, Next: next, Passkeys: pages.rp != nil})
}

// loginExpired sends a browser whose log-in has no second-factor step
// waiting back to the password.
func (pages *Pages) loginExpired(c *gin.Context, err error, next string) {
	if !registry.IsCode(err, registry.Unauthorized) {
		pages.errorPage(c, err)
		return
	}
	pages.render(c, http.StatusUnauthorized, "login.html", "", accountForm{Next: next, Passkeys: pages.rp != nil,
		Error: "Your log-in waited too long for its second step, or it was used: log in again."})
}

func (pages *Pages) beginSecondFactor(c *gin.Context) {
	noStore(c)
	if pages.passkeysOff(c) {
		return
	}
	options, err := pages.svc.BeginSecondFactor(c, pages.rp, cookieValue(c, pages.sessions.loginCookie()))
	if err != nil {
		pages.jsonFailed(c, err)
		return
	}
	c.JSON(http.StatusOK, options)
}

// secondFactorCounts counts an attempt at the second step of the log-in
// the request's cookie names, against its account.
func (pages *Pages) secondFactorCounts(c *gin.Context) (*loginCounts, error) {
	acct, err := pages.svc.SecondFactorAccount(c, cookieValue(c, pages.sessions.loginCookie()))
	if err != nil {
		return nil, err
	}
	lc, err := pages.countAddress(c)
	if err != nil {
		return nil, err
	}
	return lc, lc.countAccount(c, acct)
}

func (pages *Pages) finishSecondFactor(c *gin.Context) {
	noStore(c)
	post, ok := pages.passkeyAnswer(c)
	if !ok {
		return
	}
	lc, err := pages.secondFactorCounts(c)
	if err != nil {
		pages.jsonFailed(c, err)
		return
	}
	acct, err := pages.svc.FinishSecondFactor(c, pages.rp, cookieValue(c, pages.sessions.loginCookie()), post.Credential)
	lc.settle(err)
	pages.setShortCookie(c, pages.sessions.loginCookie(), "", -1)
	pages.passkeyLoggedIn(c, acct, err, post.Next)
}

func (pages *Pages) recoverSecondFactor(c *gin.Context) {
	noStore(c)
	next := localPath(c.PostForm("next"))
	id := cookieValue(c, pages.sessions.loginCookie())
	lc, err := pages.secondFactorCounts(c)
	if registry.IsCode(err, registry.RateLimited) {
		acct, aerr := pages.svc.SecondFactorAccount(c, id)
		if aerr != nil {
			pages.loginExpired(c, aerr, next)
			return
		}
		setRetryAfter(c, err)
		pages.render(c, http.StatusTooManyRequests, "second-factor.html", "", secondFactorForm{Username: acct.Username, Next: next,
			Passkeys: pages.rp != nil, Error: registry.ErrorMessage(err)})
		return
	}
	if err != nil {
		pages.loginExpired(c, err, next)
		return
	}
	acct, err := pages.svc.RecoverSecondFactor(c, id, c.PostForm("code"))
	lc.settle(err)
	if registry.IsCode(err, registry.Unauthorized) {
		waiting, werr := pages.svc.SecondFactorAccount(c, id)
		if werr != nil {
			pages.loginExpired(c, werr, next)
			return
		}
		pages.render(c, http.StatusUnauthorized, "second-factor.html", "", secondFactorForm{Username: waiting.Username, Next: next,
			Passkeys: pages.rp != nil, Error: "Wrong recovery code, or one used already."})
		return
	}
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	pages.setShortCookie(c, pages.sessions.loginCookie(), "", -1)
	if err := pages.startSession(c, acct); err != nil {
		pages.errorPage(c, err)
		return
	}
	left, err := pages.svc.RecoveryCodesLeft(c, acct.ID)
	if err == nil && left <= 3 {
		c.Redirect(http.StatusSeeOther, "/dashboard/account?done=recovery-codes-low#second-factor")
		return
	}
	c.Redirect(http.StatusSeeOther, afterLogin(next))
}

func (pages *Pages) beginPasskeyRegistration(c *gin.Context) {
	if pages.passkeysOff(c) {
		return
	}
	options, id, err := pages.svc.BeginPasskeyRegistration(c, pages.rp, pages.currentAccount(c))
	pages.ceremonyBegun(c, options, id, err)
}

func (pages *Pages) finishPasskeyRegistration(c *gin.Context) {
	post, ok := pages.passkeyAnswer(c)
	if !ok {
		return
	}
	id := pages.takeCeremonyCookie(c)
	if _, err := pages.svc.FinishPasskeyRegistration(c, pages.rp, pages.currentAccount(c), id, post.Name, post.Credential); err != nil {
		pages.jsonFailed(c, err)
		return
	}
	pages.jsonDone(c, "/dashboard/account?done=passkey-added#passkeys")
}

// deletePasskey asks first; the last passkey of an account that requires
// a second factor asks the password too, counted as a password change is.
func (pages *Pages) deletePasskey(c *gin.Context) {
	id, ok := pathID(c)
	if !ok {
		pages.notFound(c)
		return
	}
	acct := pages.currentAccount(c)
	keys, err := pages.svc.ListPasskeys(c, acct.ID)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	var key *registry.Passkey
	for i := range keys {
		if keys[i].ID == id {
			key = &keys[i]
		}
	}
	if key == nil {
		pages.notFound(c)
		return
	}
	last := pages.svc.IsLastFactor(acct, len(keys))
	if c.PostForm("confirm") != "yes" {
		conf := &confirmation{Title: "Remove the passkey “" + key.Name + "”?",
			Detail: "It can no longer log in to your account.", Button: "Remove passkey", Cancel: "/dashboard/account#passkeys",
			Action: c.Request.URL.Path}
		if last {
			conf.Detail = "It is your last passkey: removing it turns off the second factor of your account, and its recovery codes with it. Type your password to remove it."
			conf.Password = true
		}
		pages.render(c, http.StatusOK, "confirm.html", "", conf)
		return
	}
	key2 := "user:" + acct.Username
	if last {
		if ok, wait := pages.passwordChanges.Take(key2, pages.now()); !ok {
			retryAfter(c, wait)
			pages.renderAccountPage(c, http.StatusTooManyRequests, &accountPageData{Error: "Too many wrong passwords. " + tryAgainIn(wait)})
			return
		}
	}
	err = pages.svc.DeletePasskey(c, acct, id, c.PostForm("password"))
	switch {
	case err == nil:
		if last {
			pages.passwordChanges.Reset(key2)
		}
		c.Redirect(http.StatusSeeOther, "/dashboard/account?done=passkey-removed#passkeys")
	case registry.IsCode(err, registry.Unauthorized), registry.IsCode(err, registry.Conflict):
		pages.renderAccountPage(c, httpx.Status(err), &accountPageData{Error: signupError(err)})
	default:
		if last {
			pages.passwordChanges.Release(key2)
		}
		pages.errorPage(c, err)
	}
}

// setSecondFactor turns the account's second factor on (on=true), showing
// its new recovery codes once, or off (on=false, with the password).
func (pages *Pages) setSecondFactor(c *gin.Context) {
	acct := pages.currentAccount(c)
	on := c.PostForm("on") == "true"
	key := "user:" + acct.Username
	if !on {
		if ok, wait := pages.passwordChanges.Take(key, pages.now()); !ok {
			retryAfter(c, wait)
			pages.renderAccountPage(c, http.StatusTooManyRequests, &accountPageData{Error: "Too many wrong passwords. " + tryAgainIn(wait)})
			return
		}
	}
	codes, err := pages.svc.SetSecondFactor(c, acct, on, c.PostForm("password"))
	switch {
	case err == nil && !on:
		pages.passwordChanges.Reset(key)
		c.Redirect(http.StatusSeeOther, "/dashboard/account?done=second-factor-off#second-factor")
	case err == nil:
		pages.renderAccountPage(c, http.StatusOK, &accountPageData{Notice: "Your account now asks for a passkey after the password.",
			RecoveryCodes: codes})
	case registry.IsCode(err, registry.Unauthorized), registry.IsCode(err, registry.Conflict):
		pages.renderAccountPage(c, httpx.Status(err), &accountPageData{Error: signupError(err)})
	default:
		if !on {
			pages.passwordChanges.Release(key)
		}
		pages.errorPage(c, err)
	}
}

// newRecoveryCodes replaces the account's recovery codes and shows the
// new ones, once.
func (pages *Pages) newRecoveryCodes(c *gin.Context) {
	acct := pages.currentAccount(c)
	if !acct.RequireSecondFactor {
		pages.renderAccountPage(c, http.StatusConflict, &accountPageData{Error: "Recovery codes get past the second factor: turn it on first."})
		return
	}
	codes, err := pages.svc.NewRecoveryCodes(c, acct)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	pages.renderAccountPage(c, http.StatusOK, &accountPageData{Notice: "New recovery codes are made; the ones before no longer work.", RecoveryCodes: codes})
}

func (pages *Pages) setOrgSecondFactor(c *gin.Context) {
	on := c.PostForm("on") == "true"
	err := pages.svc.SetOrgRequiresSecondFactor(c, pages.currentAccount(c), c.Param("org"), on)
	done := "org-second-factor-off"
	if on {
		done = "org-second-factor-on"
	}
	pages.orgFormDone(c, &dashboardData{Section: sectionOrgs}, err, "/dashboard/orgs?done="+done+"#org-"+url.PathEscape(c.Param("org")))
}
