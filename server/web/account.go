package web

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// accountForm is what the sign-up and log-in pages show: the values typed
// so far (never the password) and what went wrong.
type accountForm struct {
	Email    string
	Username string
	Login    string
	Error    string
	Notice   string
	Closed   bool
	// Problems are every refusal of a sign-up form at once, in the form's
	// order; Invalid names their fields (email, username, password,
	// confirm).
	Problems []string
	Invalid  map[string]bool
	// Next is the page of this site a log-in goes on to ("" for the
	// dashboard), such as the approval of a login of the command line.
	Next string
	// Passkeys: the page offers a log-in with a passkey (passkeys.go).
	Passkeys bool
}

// loginNotices are the messages a redirect to the log-in page can carry;
// the query names one, so no text from the URL reaches the page.
var loginNotices = map[string]string{
	"logged-out-everywhere": "You are logged out everywhere: every session of your account is ended.",
}

func (pages *Pages) signupOpen() bool { return pages.cfg.Signup != "closed" }

func (pages *Pages) signupForm(c *gin.Context) {
	if !pages.signupOpen() {
		pages.render(c, http.StatusForbidden, "signup.html", "", accountForm{Closed: true})
		return
	}
	if pages.currentAccount(c) != nil {
		c.Redirect(http.StatusSeeOther, "/dashboard")
		return
	}
	pages.render(c, http.StatusOK, "signup.html", "", accountForm{})
}

func (pages *Pages) signup(c *gin.Context) {
	noStore(c)
	if !pages.signupOpen() {
		pages.render(c, http.StatusForbidden, "signup.html", "", accountForm{Closed: true})
		return
	}
	form := accountForm{Email: strings.TrimSpace(c.PostForm("email")), Username: strings.TrimSpace(c.PostForm("username"))}
	ip := httpx.AddressKey(c.ClientIP())
	now := pages.now()
	if ok, wait := pages.signups.Take(ip, now); !ok {
		form.Error = "Too many sign-ups from your address. " + tryAgainIn(wait)
		retryAfter(c, wait)
		pages.render(c, http.StatusTooManyRequests, "signup.html", "", form)
		return
	}
	password := c.PostForm("password")
	// Everything wrong with the form is said at once; only an account
	// that may be made is looked for among the others (taken or not).
	form.Invalid = map[string]bool{}
	byField := map[string]string{}
	for _, p := range registry.NewAccountProblems(form.Email, form.Username, password) {
		byField[p.Field] = signupError(p.Err)
	}
	if password != c.PostForm("confirm_password") && byField["password"] == "" {
		byField["confirm"] = "The two passwords differ: type the same password twice."
	}
	for _, field := range []string{"email", "username", "password", "confirm"} {
		if msg, ok := byField[field]; ok {
			form.Problems = append(form.Problems, msg)
			form.Invalid[field] = true
		}
	}
	if len(form.Problems) > 0 {
		pages.render(c, http.StatusBadRequest, "signup.html", "", form)
		return
	}
	acct, err := pages.svc.CreateAccount(c, form.Email, form.Username, password)
	if err != nil {
		if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) {
			form.Error = signupError(err)
			pages.render(c, httpx.Status(err), "signup.html", "", form)
			return
		}
		pages.errorPage(c, err)
		return
	}
	if err := pages.startSession(c, acct); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard")
}

// signupError words a refused sign-up for a person; a conflict does not
// say which of username and email is taken, so the form is no oracle for
// who has an account.
func signupError(err error) string {
	if registry.IsCode(err, registry.Conflict) {
		return "That username or email address is taken."
	}
	msg := registry.ErrorMessage(err)
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

func (pages *Pages) loginForm(c *gin.Context) {
	next := localPath(c.Query("next"))
	if pages.currentAccount(c) != nil {
		c.Redirect(http.StatusSeeOther, cmp.Or(next, "/dashboard"))
		return
	}
	form := accountForm{Notice: loginNotices[c.Query("done")], Next: next, Passkeys: pages.rp != nil}
	if strings.HasPrefix(next, "/login/device") {
		form.Notice = "Log in to approve the login of the pact command line."
	}
	pages.render(c, http.StatusOK, "login.html", "", form)
}

// localPath is next when it is a path of this site, "" otherwise, so that
// a link to the log-in page cannot send anyone elsewhere after it.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") || len(next) > 200 {
		return ""
	}
	if u, err := url.Parse(next); err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return ""
	}
	return next
}

func (pages *Pages) login(c *gin.Context) {
	noStore(c)
	login := strings.TrimSpace(c.PostForm("login"))
	password := c.PostForm("password")
	form := accountForm{Login: login, Next: localPath(c.PostForm("next")), Passkeys: pages.rp != nil}
	if login == "" || password == "" {
		form.Error = "Enter your username (or email address) and your password."
		pages.render(c, http.StatusBadRequest, "login.html", "", form)
		return
	}
	addr := httpx.AddressKey(c.ClientIP())
	now := pages.now()
	tooMany := func(wait time.Duration) {
		form.Error = "Too many failed log-ins. " + tryAgainIn(wait)
		retryAfter(c, wait)
		pages.render(c, http.StatusTooManyRequests, "login.html", "", form)
	}
	// Every count is taken before the password is checked, so a locked-out
	// guesser learns nothing, not even from timing. The address comes
	// first: an address over its budget costs no account lookup and adds
	// nothing to the other tables.
	if ok, wait := pages.loginsPerIP.Take(addr, now); !ok {
		tooMany(wait)
		return
	}
	account := pages.loginAccountKey(c, login)
	pair := addr + "\x00" + account
	counts := []struct {
		t   *throttle
		key string
	}{{pages.loginsPerIP, addr}, {pages.loginsPerAcct, account}, {pages.logins, pair}}
	for i, n := range counts[1:] {
		if ok, wait := n.t.Take(n.key, now); !ok {
			for _, taken := range counts[:i+1] {
				taken.t.Release(taken.key)
			}
			tooMany(wait)
			return
		}
	}
	acct, err := pages.svc.Login(c, login, password)
	if registry.IsCode(err, registry.Unauthorized) {
		form.Error = "Wrong username or password."
		pages.render(c, http.StatusUnauthorized, "login.html", "", form)
		return
	}
	if registry.IsCode(err, registry.Forbidden) {
		// The right password of a disabled account: no failed guess.
		pages.loginsPerIP.Release(addr)
		pages.loginsPerAcct.Release(account)
		pages.logins.Reset(pair)
		form.Error = "This account is disabled: it cannot log in, and its tokens and SSH keys are refused. Ask the operator of this registry to enable it."
		pages.render(c, http.StatusForbidden, "login.html", "", form)
		return
	}
	if err != nil { // a fault, not a guess: it costs no attempt
		for _, n := range counts {
			n.t.Release(n.key)
		}
		pages.errorPage(c, err)
		return
	}
	// The right password: this attempt costs nothing, and this address
	// starts afresh for this account. The account keeps its other
	// failures, or each log-in of its owner would give a guesser who
	// rotates addresses a fresh budget.
	pages.loginsPerIP.Release(addr)
	pages.loginsPerAcct.Release(account)
	pages.logins.Reset(pair)
	if acct.RequireSecondFactor {
		pages.askSecondFactor(c, acct, form.Next)
		return
	}
	if err := pages.startSession(c, acct); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, cmp.Or(form.Next, "/dashboard"))
}

// logoutForm exists so that /logout typed into the address bar offers the
// button rather than a bare 405; logging out itself is a POST.
func (pages *Pages) logoutForm(c *gin.Context) {
	noStore(c)
	pages.render(c, http.StatusOK, "logout.html", "", nil)
}

func (pages *Pages) logout(c *gin.Context) {
	noStore(c)
	if err := pages.endSession(c); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/")
}

// accountAttemptsFactor: an account may fail this many times
// --login-attempts in a window, from all addresses together, before it is
// locked out. A guesser who rotates addresses gets no more than that, and
// its owner, who fails from one address, is locked out of that address
// long before.
const accountAttemptsFactor = 4

// loginAccountKey names the account a log-in is for, so that its username
// and its email address share one count. A login that names no account is
// counted under its own text: refusing it looks the same as refusing a real
// account, so the count tells no one which accounts exist.
func (pages *Pages) loginAccountKey(c *gin.Context, login string) string {
	if strings.Contains(login, "@") {
		if acct, err := pages.svc.AccountByLogin(c, login); err == nil {
			return "user:" + acct.Username
		}
		return "email:" + strings.ToLower(login)
	}
	return "user:" + strings.ToLower(login)
}

func tryAgainIn(wait time.Duration) string {
	minutes := int((wait + time.Minute - 1) / time.Minute)
	if minutes <= 1 {
		return "Try again in a minute."
	}
	return fmt.Sprintf("Try again in %d minutes.", minutes)
}

func retryAfter(c *gin.Context, wait time.Duration) {
	c.Header("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
}
