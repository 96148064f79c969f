package web

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// webAccountKey holds the account of the request's session, once looked
// up; webSessionKey the session itself.
const (
	webAccountKey = "pact.web.account"
	webSessionKey = "pact.web.session"
)

type sessionConfig struct {
	cookieName string
	secure     bool
}

// newSessionConfig marks cookies Secure when pact is served over https. The
// __Host- prefix then also pins the cookie to this host and path /.
func newSessionConfig(baseURL string) sessionConfig {
	if strings.HasPrefix(strings.ToLower(baseURL), "https://") {
		return sessionConfig{cookieName: "__Host-pact_session", secure: true}
	}
	return sessionConfig{cookieName: "pact_session"}
}

func (pages *Pages) setSessionCookie(c *gin.Context, value string, maxAge int) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name:     pages.sessions.cookieName,
		Value:    value,
		Path:     "/",
		MaxAge:   maxAge,
		HttpOnly: true,
		Secure:   pages.sessions.secure,
		SameSite: http.SameSiteLaxMode,
	})
}

// startSession logs acct in: it ends the session the browser had (so a
// session id planted before login is worthless after it) and sets a new one.
func (pages *Pages) startSession(c *gin.Context, acct *registry.Account) error {
	if err := pages.forgetSession(c); err != nil {
		return err
	}
	id, err := pages.svc.StartSession(c, acct.ID, registry.SessionClient{UserAgent: c.Request.UserAgent(), IP: c.ClientIP()})
	if err != nil {
		return err
	}
	pages.setSessionCookie(c, id, int(registry.SessionLifetime/time.Second))
	c.Set(webAccountKey, acct)
	c.Set(webSessionKey, (*registry.Session)(nil))
	return nil
}

// endSession logs out: it forgets the browser's session and clears its cookie.
func (pages *Pages) endSession(c *gin.Context) error {
	if err := pages.forgetSession(c); err != nil {
		return err
	}
	pages.setSessionCookie(c, "", -1)
	return nil
}

// forgetSession ends the session the request's cookie names, if any.
func (pages *Pages) forgetSession(c *gin.Context) error {
	c.Set(webAccountKey, (*registry.Account)(nil))
	c.Set(webSessionKey, (*registry.Session)(nil))
	cookie, err := c.Request.Cookie(pages.sessions.cookieName)
	if err != nil {
		return nil
	}
	return pages.svc.EndSession(c, cookie.Value)
}

// currentAccount is the account of the request's session, or nil. It is
// looked up once per request, and only by pages that show it.
func (pages *Pages) currentAccount(c *gin.Context) *registry.Account {
	if v, ok := c.Get(webAccountKey); ok {
		return v.(*registry.Account)
	}
	acct, sess := pages.lookupSession(c)
	c.Set(webAccountKey, acct)
	c.Set(webSessionKey, sess)
	return acct
}

// currentSession is the request's session, or nil (also right after a
// log-in, whose session the request did not come with).
func (pages *Pages) currentSession(c *gin.Context) *registry.Session {
	pages.currentAccount(c)
	if v, ok := c.Get(webSessionKey); ok {
		return v.(*registry.Session)
	}
	return nil
}

func (pages *Pages) lookupSession(c *gin.Context) (*registry.Account, *registry.Session) {
	cookie, err := c.Request.Cookie(pages.sessions.cookieName)
	if err != nil {
		return nil, nil
	}
	acct, sess, err := pages.svc.SessionAccount(c, cookie.Value)
	if err != nil {
		if !registry.IsCode(err, registry.NotFound) {
			pages.shared.Logger(c).Error("reading session", "error", err.Error())
		}
		return nil, nil
	}
	return acct, sess
}

// gate is the first handler of every page: it finds the route's row in the
// domain's authority table (registry.Routes) and lets the request on only
// as the row's rule says, so no page decides who may see it. Pages of a
// logged-in session send visitors without one to the log-in page (the
// device page's with a way back, code included); the domain's own checks
// (an account's objects, organisation roles) follow in each call. A route
// without a row is refused.
func (pages *Pages) gate(c *gin.Context) {
	path := c.FullPath()
	if path == "" { // no route: the 404 and 405 pages
		c.Next()
		return
	}
	op, ok := registry.RouteOp(c.Request.Method, path)
	if !ok {
		pages.errorPage(c, fmt.Errorf("route %s %s has no row in the authority table (registry.Routes)", c.Request.Method, path))
		c.Abort()
		return
	}
	if rule, _ := registry.RuleOf(op); rule.Reach == registry.ReachPublic {
		c.Next()
		return
	}
	noStore(c)
	acct := pages.currentAccount(c)
	if acct == nil {
		login := "/login"
		if strings.HasPrefix(path, "/login/device") {
			back := "/login/device"
			if code := strings.TrimSpace(cmp.Or(c.Query("code"), c.PostForm("code"))); code != "" {
				back += "?code=" + url.QueryEscape(code)
			}
			login += "?next=" + url.QueryEscape(back)
		}
		c.Redirect(http.StatusSeeOther, login)
		c.Abort()
		return
	}
	// A session holds every power of its account (a nil token).
	if err := registry.Permit(nil, op, acct.Username, c.Param("owner"), c.Param("pack")); err != nil {
		pages.errorPage(c, err)
		c.Abort()
		return
	}
	c.Next()
}
