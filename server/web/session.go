package web

import (
	"net/http"
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

// requireLogin sends visitors without a session to the log-in page.
func (pages *Pages) requireLogin(c *gin.Context) {
	noStore(c)
	if pages.currentAccount(c) == nil {
		c.Redirect(http.StatusSeeOther, "/login")
		c.Abort()
		return
	}
	c.Next()
}
