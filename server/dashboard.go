package server

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// tokenLifetimes are the expiries the dashboard offers, in days; "" never
// expires.
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

// notices are the messages a redirect back to the dashboard can carry; the
// query names one, so no text from the URL reaches the page.
var notices = map[string]string{
	"token-revoked": "The token is revoked. Requests that send it are now refused.",
	"key-added":     "The SSH key is added. Publishes signed with it are accepted.",
	"key-deleted":   "The SSH key is deleted.",
}

type tokenRow struct {
	registry.Token
	Status string // active, revoked or expired
}

type dashboardData struct {
	Notice    string
	Error     string
	NewToken  string // the secret of a token made just now, shown once
	TokenName string // form values to show again after an error
	Lifetime  string
	KeyName   string
	PublicKey string
	Lifetimes any
	Tokens    []tokenRow
	Keys      []registry.SSHKey
	Packages  []packageView
	More      bool // the account has more packages than are listed
}

func (w *webApp) dashboard(c *gin.Context) {
	w.renderDashboard(c, http.StatusOK, &dashboardData{Notice: notices[c.Query("done")]})
}

func (w *webApp) renderDashboard(c *gin.Context, status int, d *dashboardData) {
	acct := w.currentAccount(c)
	tokens, err := w.s.svc.ListTokens(c, acct.ID)
	if err != nil {
		w.errorPage(c, err)
		return
	}
	now := w.now()
	for _, t := range tokens {
		row := tokenRow{Token: t, Status: "active"}
		switch {
		case t.RevokedAt != nil:
			row.Status = "revoked"
		case !t.Active(now):
			row.Status = "expired"
		}
		d.Tokens = append(d.Tokens, row)
	}
	if d.Keys, err = w.s.svc.ListSSHKeys(c, acct.ID); err != nil {
		w.errorPage(c, err)
		return
	}
	pkgs, next, err := w.s.svc.ListPackages(c, registry.ListQuery{Owner: acct.Username, Limit: w.dashboardSize})
	if err != nil {
		w.errorPage(c, err)
		return
	}
	for i := range pkgs {
		d.Packages = append(d.Packages, w.viewPackage(&pkgs[i]))
	}
	d.More = next != ""
	d.Lifetimes = tokenLifetimes
	w.render(c, status, "dashboard.html", "", d)
}

func (w *webApp) createToken(c *gin.Context) {
	acct := w.currentAccount(c)
	d := &dashboardData{TokenName: strings.TrimSpace(c.PostForm("name")), Lifetime: c.PostForm("expires_in_days")}
	var expiresAt *time.Time
	if d.Lifetime != "" {
		days, err := strconv.Atoi(d.Lifetime)
		if err != nil || days < 1 || days > 3650 {
			d.Error = "Choose when the token expires from the list."
			w.renderDashboard(c, http.StatusBadRequest, d)
			return
		}
		at := w.now().Add(time.Duration(days) * 24 * time.Hour)
		expiresAt = &at
	}
	secret, _, err := w.s.svc.CreateToken(c, acct.ID, d.TokenName, expiresAt)
	if registry.IsCode(err, registry.Invalid) {
		d.Error = registry.ErrorMessage(err)
		w.renderDashboard(c, http.StatusBadRequest, d)
		return
	}
	if err != nil {
		w.errorPage(c, err)
		return
	}
	// The secret is on this page only: it is not stored, so the answer to
	// this POST must not be cached anywhere (requireLogin set no-store).
	w.renderDashboard(c, http.StatusOK, &dashboardData{NewToken: secret})
}

func (w *webApp) revokeToken(c *gin.Context) {
	id, ok := pathID(c)
	if !ok {
		w.notFound(c)
		return
	}
	if err := w.s.svc.RevokeToken(c, w.currentAccount(c).ID, id); err != nil {
		w.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard?done=token-revoked#tokens")
}

func (w *webApp) addKey(c *gin.Context) {
	d := &dashboardData{KeyName: strings.TrimSpace(c.PostForm("name")), PublicKey: strings.TrimSpace(c.PostForm("public_key"))}
	_, err := w.s.svc.AddSSHKey(c, w.currentAccount(c).ID, d.PublicKey, d.KeyName)
	if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) {
		d.Error = registry.ErrorMessage(err)
		w.renderDashboard(c, HTTPStatus(err), d)
		return
	}
	if err != nil {
		w.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard?done=key-added#keys")
}

func (w *webApp) deleteKey(c *gin.Context) {
	id, ok := pathID(c)
	if !ok {
		w.notFound(c)
		return
	}
	if err := w.s.svc.DeleteSSHKey(c, w.currentAccount(c).ID, id); err != nil {
		w.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard?done=key-deleted#keys")
}

func pathID(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	return id, err == nil && id > 0
}
