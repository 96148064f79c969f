package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// The account page (/dashboard/account), one of the dashboard's pages:
// change the password, see the account's sessions, end one or all of them
// (docs/protocol.md, The web side).

type sessionRow struct {
	registry.Session
	Browser string // the user agent, shortened
	Current bool   // the session of this request
}

type accountPageData struct {
	Section     string // sectionAccount, for the dashboard's menu
	Notice      string
	Error       string
	Sessions    []sessionRow
	More        bool // the account has more sessions than are listed
	MaxListed   int
	MinPassword int

	// Passkeys (passkeys.go).
	Passkeys      []registry.Passkey
	PasskeysOff   string   // why passkeys are off on this registry, or ""
	SecondFactor  bool     // the account requires a passkey after the password
	RecoveryLeft  int      // its unused recovery codes
	RecoveryCodes []string // made just now, shown once
}

func (pages *Pages) accountPage(c *gin.Context) {
	pages.renderAccountPage(c, http.StatusOK, &accountPageData{Notice: notice(c, sectionAccount)})
}

func (pages *Pages) renderAccountPage(c *gin.Context, status int, d *accountPageData) {
	acct, current := pages.currentAccount(c), pages.currentSession(c)
	sessions, more, err := pages.svc.ListSessions(c, acct.ID)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	for _, s := range sessions {
		d.Sessions = append(d.Sessions, sessionRow{Session: s, Browser: describeUserAgent(s.UserAgent),
			Current: current != nil && s.ID == current.ID})
	}
	d.Section, d.More, d.MaxListed, d.MinPassword = sectionAccount, more, registry.MaxListedSessions, registry.MinPasswordLength
	if d.Passkeys, err = pages.svc.ListPasskeys(c, acct.ID); err != nil {
		pages.errorPage(c, err)
		return
	}
	if d.RecoveryLeft, err = pages.svc.RecoveryCodesLeft(c, acct.ID); err != nil {
		pages.errorPage(c, err)
		return
	}
	d.PasskeysOff, d.SecondFactor = pages.rpProblem, acct.RequireSecondFactor
	pages.render(c, status, "account.html", "", d)
}

// changePassword asks the current password, counted like log-ins against
// the account, so a stolen session cannot be used to guess it.
func (pages *Pages) changePassword(c *gin.Context) {
	acct := pages.currentAccount(c)
	current, password := c.PostForm("current_password"), c.PostForm("new_password")
	refuse := func(status int, msg string) {
		pages.renderAccountPage(c, status, &accountPageData{Error: msg})
	}
	if current == "" || password == "" {
		refuse(http.StatusBadRequest, "Enter your current password and the new one.")
		return
	}
	if password != c.PostForm("confirm_password") {
		refuse(http.StatusBadRequest, "The new password and its confirmation differ.")
		return
	}
	key := "user:" + acct.Username
	if ok, wait := pages.passwordChanges.Take(key, pages.now()); !ok {
		retryAfter(c, wait)
		refuse(http.StatusTooManyRequests, "Too many wrong passwords. "+tryAgainIn(wait))
		return
	}
	keep := int64(0)
	if sess := pages.currentSession(c); sess != nil {
		keep = sess.ID
	}
	_, err := pages.svc.ChangePassword(c, acct, current, password, keep)
	switch {
	case registry.IsCode(err, registry.Unauthorized):
		refuse(http.StatusUnauthorized, "Your current password is wrong.")
		return
	case err == nil:
		pages.passwordChanges.Reset(key)
	case registry.IsCode(err, registry.Invalid): // the current password was right
		pages.passwordChanges.Release(key)
		refuse(http.StatusBadRequest, signupError(err))
		return
	default:
		pages.passwordChanges.Release(key)
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard/account?done=password-changed")
}

// endOneSession ends one of the account's sessions; ending this one is
// logging out.
func (pages *Pages) endOneSession(c *gin.Context) {
	id, ok := pathID(c)
	if !ok {
		pages.notFound(c)
		return
	}
	if sess := pages.currentSession(c); sess != nil && sess.ID == id {
		pages.logout(c)
		return
	}
	if err := pages.svc.EndAccountSession(c, pages.currentAccount(c).ID, id); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard/account?done=session-ended#sessions")
}

// logoutEverywhere ends every session of the account, this one too.
func (pages *Pages) logoutEverywhere(c *gin.Context) {
	if _, err := pages.svc.EndAccountSessions(c, pages.currentAccount(c).ID, 0); err != nil {
		pages.errorPage(c, err)
		return
	}
	if err := pages.endSession(c); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/login?done=logged-out-everywhere")
}

// userAgentBrowsers are the product tokens that name a browser, most
// specific first: Edge and Opera also say Chrome, Chrome also says Safari.
var userAgentBrowsers = []struct{ token, name string }{
	{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"OPR/", "Opera"}, {"SamsungBrowser/", "Samsung Internet"},
	{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"}, {"HeadlessChrome/", "Headless Chrome"},
	{"Chromium/", "Chromium"}, {"CriOS/", "Chrome"}, {"Chrome/", "Chrome"}, {"Version/", "Safari"},
	{"curl/", "curl"}, {"Wget/", "Wget"},
}

var userAgentSystems = []struct{ token, name string }{
	{"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
	{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Macintosh", "macOS"}, {"Linux", "Linux"},
}

// describeUserAgent shortens a User-Agent to what a person recognises,
// "Firefox 128 on Linux"; one it does not know to its first word.
func describeUserAgent(ua string) string {
	if ua == "" {
		return "Unknown browser"
	}
	browser := ""
	for _, b := range userAgentBrowsers {
		if i := strings.Index(ua, b.token); i >= 0 {
			browser = b.name
			if major := leadingNumber(ua[i+len(b.token):]); major != "" {
				browser += " " + major
			}
			break
		}
	}
	system := ""
	for _, s := range userAgentSystems {
		if strings.Contains(ua, s.token) {
			system = s.name
			break
		}
	}
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	}
	first, _, _ := strings.Cut(ua, " ")
	if len(first) > 40 {
		first = strings.ToValidUTF8(first[:40], "") + "…"
	}
	return first
}

func leadingNumber(s string) string {
	n := 0
	for n < len(s) && n < 6 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if _, err := strconv.Atoi(s[:n]); err != nil {
		return ""
	}
	return s[:n]
}
