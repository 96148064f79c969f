package server

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// accountForm is what the sign-up and log-in pages show: the values typed
// so far (never the password) and what went wrong.
type accountForm struct {
	Email    string
	Username string
	Login    string
	Error    string
	Closed   bool
}

func (w *webApp) signupOpen() bool { return w.s.cfg.Signup != "closed" }

func (w *webApp) signupForm(c *gin.Context) {
	if !w.signupOpen() {
		w.render(c, http.StatusForbidden, "signup.html", "", accountForm{Closed: true})
		return
	}
	if w.currentAccount(c) != nil {
		c.Redirect(http.StatusSeeOther, "/dashboard")
		return
	}
	w.render(c, http.StatusOK, "signup.html", "", accountForm{})
}

func (w *webApp) signup(c *gin.Context) {
	noStore(c)
	if !w.signupOpen() {
		w.render(c, http.StatusForbidden, "signup.html", "", accountForm{Closed: true})
		return
	}
	form := accountForm{Email: strings.TrimSpace(c.PostForm("email")), Username: strings.TrimSpace(c.PostForm("username"))}
	ip := addressKey(c.ClientIP())
	now := w.now()
	if ok, wait := w.signups.Take(ip, now); !ok {
		form.Error = "Too many sign-ups from your address. " + tryAgainIn(wait)
		retryAfter(c, wait)
		w.render(c, http.StatusTooManyRequests, "signup.html", "", form)
		return
	}
	acct, err := w.s.svc.CreateAccount(c, form.Email, form.Username, c.PostForm("password"))
	if err != nil {
		if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) {
			form.Error = signupError(err)
			w.render(c, HTTPStatus(err), "signup.html", "", form)
			return
		}
		w.errorPage(c, err)
		return
	}
	if err := w.startSession(c, acct); err != nil {
		w.errorPage(c, err)
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

func (w *webApp) loginForm(c *gin.Context) {
	if w.currentAccount(c) != nil {
		c.Redirect(http.StatusSeeOther, "/dashboard")
		return
	}
	w.render(c, http.StatusOK, "login.html", "", accountForm{})
}

func (w *webApp) login(c *gin.Context) {
	noStore(c)
	login := strings.TrimSpace(c.PostForm("login"))
	password := c.PostForm("password")
	form := accountForm{Login: login}
	if login == "" || password == "" {
		form.Error = "Enter your username (or email address) and your password."
		w.render(c, http.StatusBadRequest, "login.html", "", form)
		return
	}
	addr := addressKey(c.ClientIP())
	now := w.now()
	tooMany := func(wait time.Duration) {
		form.Error = "Too many failed log-ins. " + tryAgainIn(wait)
		retryAfter(c, wait)
		w.render(c, http.StatusTooManyRequests, "login.html", "", form)
	}
	// Every count is taken before the password is checked, so a locked-out
	// guesser learns nothing, not even from timing. The address comes
	// first: an address over its budget costs no account lookup and adds
	// nothing to the other tables.
	if ok, wait := w.loginsPerIP.Take(addr, now); !ok {
		tooMany(wait)
		return
	}
	account := w.loginAccountKey(c, login)
	pair := addr + "\x00" + account
	counts := []struct {
		t   *throttle
		key string
	}{{w.loginsPerIP, addr}, {w.loginsPerAcct, account}, {w.logins, pair}}
	for i, n := range counts[1:] {
		if ok, wait := n.t.Take(n.key, now); !ok {
			for _, taken := range counts[:i+1] {
				taken.t.Release(taken.key)
			}
			tooMany(wait)
			return
		}
	}
	acct, err := w.s.svc.Login(c, login, password)
	if registry.IsCode(err, registry.Unauthorized) {
		form.Error = "Wrong username or password."
		w.render(c, http.StatusUnauthorized, "login.html", "", form)
		return
	}
	if err != nil { // a fault, not a guess: it costs no attempt
		for _, n := range counts {
			n.t.Release(n.key)
		}
		w.errorPage(c, err)
		return
	}
	// The right password: this attempt costs nothing, and this address
	// starts afresh for this account. The account keeps its other
	// failures, or each log-in of its owner would give a guesser who
	// rotates addresses a fresh budget.
	w.loginsPerIP.Release(addr)
	w.loginsPerAcct.Release(account)
	w.logins.Reset(pair)
	if err := w.startSession(c, acct); err != nil {
		w.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard")
}

// logoutForm exists so that /logout typed into the address bar offers the
// button rather than a bare 405; logging out itself is a POST.
func (w *webApp) logoutForm(c *gin.Context) {
	noStore(c)
	w.render(c, http.StatusOK, "logout.html", "", nil)
}

func (w *webApp) logout(c *gin.Context) {
	noStore(c)
	if err := w.endSession(c); err != nil {
		w.errorPage(c, err)
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
func (w *webApp) loginAccountKey(c *gin.Context, login string) string {
	if strings.Contains(login, "@") {
		if acct, err := w.s.svc.AccountByLogin(c, login); err == nil {
			return "user:" + acct.Username
		}
		return "email:" + strings.ToLower(login)
	}
	return "user:" + strings.ToLower(login)
}

// addressKey is what an address's log-in and sign-up budgets are counted
// under: an IPv4 address whole, an IPv6 address by its /64, the smallest
// block a site is normally given, so that one host cannot take a fresh
// budget from each of its 2^64 addresses.
func addressKey(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return addr.String()
	}
	prefix, err := addr.Prefix(64)
	if err != nil {
		return addr.String()
	}
	return prefix.String()
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
