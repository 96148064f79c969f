package web

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
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

func (pages *Pages) dashboard(c *gin.Context) {
	pages.renderDashboard(c, http.StatusOK, &dashboardData{Notice: notices[c.Query("done")]})
}

func (pages *Pages) renderDashboard(c *gin.Context, status int, d *dashboardData) {
	acct := pages.currentAccount(c)
	tokens, err := pages.svc.ListTokens(c, acct.ID)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	now := pages.now()
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
	if d.Keys, err = pages.svc.ListSSHKeys(c, acct.ID); err != nil {
		pages.errorPage(c, err)
		return
	}
	pkgs, next, err := pages.svc.ListPackages(c, registry.ListQuery{Owner: acct.Username, Limit: pages.dashboardSize})
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	for i := range pkgs {
		d.Packages = append(d.Packages, pages.viewPackage(&pkgs[i]))
	}
	d.More = next != ""
	d.Lifetimes = tokenLifetimes
	pages.render(c, status, "dashboard.html", "", d)
}

func (pages *Pages) createToken(c *gin.Context) {
	acct := pages.currentAccount(c)
	d := &dashboardData{TokenName: strings.TrimSpace(c.PostForm("name")), Lifetime: c.PostForm("expires_in_days")}
	var expiresAt *time.Time
	if d.Lifetime != "" {
		days, err := strconv.Atoi(d.Lifetime)
		if err != nil || days < 1 || days > 3650 {
			d.Error = "Choose when the token expires from the list."
			pages.renderDashboard(c, http.StatusBadRequest, d)
			return
		}
		at := pages.now().Add(time.Duration(days) * 24 * time.Hour)
		expiresAt = &at
	}
	secret, _, err := pages.svc.CreateToken(c, acct.ID, d.TokenName, expiresAt)
	if registry.IsCode(err, registry.Invalid) {
		d.Error = registry.ErrorMessage(err)
		pages.renderDashboard(c, http.StatusBadRequest, d)
		return
	}
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	// The secret is on this page only: it is not stored, so the answer to
	// this POST must not be cached anywhere (requireLogin set no-store).
	pages.renderDashboard(c, http.StatusOK, &dashboardData{NewToken: secret})
}

func (pages *Pages) revokeToken(c *gin.Context) {
	id, ok := pathID(c)
	if !ok {
		pages.notFound(c)
		return
	}
	if err := pages.svc.RevokeToken(c, pages.currentAccount(c).ID, id); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard?done=token-revoked#tokens")
}

func (pages *Pages) addKey(c *gin.Context) {
	d := &dashboardData{KeyName: strings.TrimSpace(c.PostForm("name")), PublicKey: strings.TrimSpace(c.PostForm("public_key"))}
	_, err := pages.svc.AddSSHKey(c, pages.currentAccount(c).ID, d.PublicKey, d.KeyName)
	if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) {
		d.Error = registry.ErrorMessage(err)
		pages.renderDashboard(c, httpx.Status(err), d)
		return
	}
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard?done=key-added#keys")
}

func (pages *Pages) deleteKey(c *gin.Context) {
	id, ok := pathID(c)
	if !ok {
		pages.notFound(c)
		return
	}
	if err := pages.svc.DeleteSSHKey(c, pages.currentAccount(c).ID, id); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/dashboard?done=key-deleted#keys")
}

func pathID(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	return id, err == nil && id > 0
}
