package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The dashboard's pages, in the order of the menu they share: an overview,
// then one page for each thing an account manages (docs/design.md, The
// pages). Each form posts to its page's path or below it, and comes back
// to that page.
const (
	sectionOverview = "overview"
	sectionPackages = "packages"
	sectionTokens   = "tokens"
	sectionKeys     = "keys"
	sectionOrgs     = "orgs"
	sectionTrusted  = "trusted"
	sectionHooks    = "hooks"
	sectionAccount  = "account"
)

type dashboardPage struct {
	Section string // also the id of the page's entry on the overview, the anchor its section had on the one long page (packages': packages-section, as #packages is the overview's list)
	Path    string
	Label   string // in the menu
	Title   string // the page's heading
}

var dashboardPages = []dashboardPage{
	{sectionOverview, "/dashboard", "Overview", "Dashboard"},
	{sectionPackages, "/dashboard/packages", "Packages", "Packages"},
	{sectionTokens, "/dashboard/tokens", "API tokens", "API tokens"},
	{sectionKeys, "/dashboard/keys", "SSH keys", "SSH keys"},
	{sectionOrgs, "/dashboard/orgs", "Organisations", "Organisations"},
	{sectionTrusted, "/dashboard/trusted-publishers", "Trusted publishers", "Trusted publishers"},
	{sectionHooks, "/dashboard/hooks", "Webhooks", "Webhooks"},
	{sectionAccount, "/dashboard/account", "Account", "Password, passkeys and sessions"},
}

func dashboardPath(section string) string {
	for _, p := range dashboardPages {
		if p.Section == section {
			return p.Path
		}
	}
	panic("no dashboard page " + section)
}

// notices are the messages a redirect back to a dashboard page can carry,
// each on its page; the query names one, so no text from the URL reaches
// the page.
var notices = map[string]struct{ section, text string }{
	"version-yanked":   {sectionPackages, "The version is yanked: it is no longer the latest or listed, and its page says so. Whoever pinned it still gets it. The transparency log records the yank."},
	"version-unyanked": {sectionPackages, "The version is un-yanked: it is listed again, and is the latest if it is the newest. The transparency log records the change."},
	"deprecated":       {sectionPackages, "The package is deprecated: its page, pact get and pact info show the message. The transparency log records the change."},
	"undeprecated":     {sectionPackages, "The deprecation is withdrawn. The transparency log records the change."},
	"hook-added":       {sectionHooks, "The webhook is added. Each event it asks for is now POSTed to its URL, signed with its secret."},
	"hook-removed":     {sectionHooks, "The webhook is removed. No more events are sent to its URL."},
	"token-revoked":    {sectionTokens, "The token is revoked. Requests that send it are now refused."},
	"key-added":        {sectionKeys, "The SSH key is added. Publishes signed with it are accepted."},
	"key-deleted":      {sectionKeys, "The SSH key is deleted."},
	"trust-added":      {sectionTrusted, "The trusted publisher is added. CI jobs whose ID tokens carry these claims may publish these packs."},
	"trust-removed":    {sectionTrusted, "The trusted publisher is removed. Its CI jobs can no longer get tokens."},
	"trusted-only-on":  {sectionTrusted, "The package is set to trusted publishing only: new versions come only from CI jobs of your trusted publishers, and publishes with tokens and SSH keys are refused. The transparency log records the change."},
	"trusted-only-off": {sectionTrusted, "The package takes publishes with tokens and SSH keys again. The transparency log records the change."},
	"org-created":      {sectionOrgs, "The organisation is made; you are its owner. Publish into it with pact publish --owner."},
	"member-set":       {sectionOrgs, "The member's role is set."},
	"member-removed":   {sectionOrgs, "The member is removed. Its publishing into the organisation has stopped."},
	// A removed or demoted owner's trusted publishers go with its role.
	"member-set-grants":     {sectionOrgs, "The member's role is set. The trusted publishers it added for the organisation are removed, and the tokens exchanged through them revoked; the transparency log records each."},
	"member-removed-grants": {sectionOrgs, "The member is removed. Its publishing into the organisation has stopped: the trusted publishers it added for the organisation are removed too, and the tokens exchanged through them revoked; the transparency log records each."},
	"password-changed":      {sectionAccount, "Your password is changed. Every other session of your account is logged out."},
	"session-ended":         {sectionAccount, "The session is ended: that browser is logged out."},
	"passkey-added":         {sectionAccount, "The passkey is added: log in with it instead of the password, or require it after the password."},
	"passkey-removed":       {sectionAccount, "The passkey is removed: it can no longer log in to your account."},
	"second-factor-off":     {sectionAccount, "Your account no longer asks for a passkey after the password; its recovery codes are deleted."},
	"recovery-codes-low":    {sectionAccount, "You logged in with a recovery code, and few are left: make new ones below."},
	"org-second-factor-on":  {sectionOrgs, "The organisation now requires a second factor of the members who manage it in the dashboard."},
	"org-second-factor-off": {sectionOrgs, "The organisation no longer requires a second factor to manage it in the dashboard."},
}

// notice is the message of the request's ?done= if it is section's.
func notice(c *gin.Context, section string) string {
	if n, ok := notices[c.Query("done")]; ok && n.section == section {
		return n.text
	}
	return ""
}

type tokenRow struct {
	registry.Token
	Status   string // active, revoked or expired
	Scopes   string // "all", "none" or the scopes, for people
	Packages string // "all" or the globs
}

type dashboardData struct {
	Section      string // the page shown, one of dashboardPages
	Notice       string
	Error        string
	NewToken     string    // the secret of a token made just now, shown once
	LoginCommand string    // pact login with NewToken, for the CLI
	Token        tokenForm // the token form's values
	KeyName      string    // form values to show again after an error
	PublicKey    string
	Tokens       []tokenRow // the account's active tokens, a page of them
	// TokensCursor is the page of tokens shown (?cursor=, "" for the
	// newest), TokensNext the next one's ("" on the last).
	TokensCursor, TokensNext string
	Keys                     []registry.SSHKey
	Packages                 []packageView
	More                     bool // the account has more packages than are listed

	// Trusted publishing (docs/protocol.md, Trusted publishing).
	Issuers       []string // the issuers the operator allows; none: the section says so
	Trusted       []trustRow
	TrustIssuer   string // form values to show again after an error
	TrustPackages string
	TrustClaims   string

	// Webhooks (hooks.go): the account's and those of the
	// organisations it owns; the owners it may add hooks for (itself
	// first), the form's values, and a hook's secret made just now,
	// shown once.
	Hooks         []registry.Hook
	HookOwners    []string
	Hook          hookForm
	NewHookSecret string
	NewHookID     int64

	// Packages (packages.go): the account's, then those of each
	// organisation it belongs to.
	Managed []ownerPackages

	// Organisations (orgs.go).
	Orgs           []orgRow
	OrgName        string // form values to show again after an error
	OrgDisplayName string
}

type trustRow struct {
	registry.TrustedPublisher
	Globs  string
	Claims []string // name=value, sorted
	// Unbound marks a trust by names only (registry.BindingClaims).
	Unbound bool
	Expired bool
}

// dashboard is the overview. The links of the one long page it was lead
// to the pages that replaced its sections: a notice to its page, a page
// of tokens to the tokens page (its anchors, #tokens and the like, are
// the overview's entries).
func (pages *Pages) dashboard(c *gin.Context) {
	if cursor := c.Query("tokens"); cursor != "" {
		c.Redirect(http.StatusSeeOther, "/dashboard/tokens?cursor="+url.QueryEscape(cursor))
		return
	}
	done := c.Query("done")
	if n, ok := notices[done]; ok {
		c.Redirect(http.StatusSeeOther, dashboardPath(n.section)+"?done="+done)
		return
	}
	pages.renderDashboard(c, http.StatusOK, &dashboardData{Section: sectionOverview})
}

// showDashboard answers GET on the page of section.
func (pages *Pages) showDashboard(section string) gin.HandlerFunc {
	return func(c *gin.Context) {
		pages.renderDashboard(c, http.StatusOK, &dashboardData{Section: section, Notice: notice(c, section),
			Token: newTokenForm(""), TokensCursor: c.Query("cursor")})
	}
}

// renderDashboard shows d's page with what it lists.
func (pages *Pages) renderDashboard(c *gin.Context, status int, d *dashboardData) {
	acct := pages.currentAccount(c)
	var err error
	tmpl := "dashboard-" + d.Section + ".html"
	switch d.Section {
	case sectionOverview:
		tmpl = "dashboard.html"
		err = pages.dashboardPackages(c, d)
	case sectionPackages:
		err = pages.dashboardManaged(c, d)
	case sectionTokens:
		err = pages.dashboardTokens(c, d)
	case sectionKeys:
		d.Keys, err = pages.svc.ListSSHKeys(c, acct.ID)
	case sectionOrgs:
		err = pages.dashboardOrgs(c, d)
	case sectionTrusted:
		err = pages.dashboardTrusted(c, d)
	case sectionHooks:
		err = pages.dashboardHooks(c, d)
	default:
		panic("no dashboard page " + d.Section)
	}
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	pages.render(c, status, tmpl, "", d)
}

func (pages *Pages) dashboardTokens(c *gin.Context, d *dashboardData) error {
	tokens, next, err := pages.svc.ListTokens(c, pages.currentAccount(c).ID, registry.TokenQuery{Limit: pages.dashboardSize, Cursor: d.TokensCursor})
	if err != nil {
		return err
	}
	d.TokensNext = next
	now := pages.now()
	for _, t := range tokens {
		row := tokenRow{Token: t, Status: "active", Scopes: "all", Packages: "all"}
		if t.Scopes != nil {
			row.Scopes = "none"
			if len(t.Scopes) > 0 {
				names := make([]string, len(t.Scopes))
				for i, sc := range t.Scopes {
					names[i] = string(sc)
				}
				row.Scopes = strings.Join(names, ", ")
			}
		}
		if t.Packages != nil {
			row.Packages = strings.Join(t.Packages, ", ")
		}
		switch {
		case t.RevokedAt != nil:
			row.Status = "revoked"
		case !t.Active(now):
			row.Status = "expired"
		}
		d.Tokens = append(d.Tokens, row)
	}
	return nil
}

func (pages *Pages) dashboardPackages(c *gin.Context, d *dashboardData) error {
	pkgs, next, err := pages.svc.ListPackages(c, registry.ListQuery{Owner: pages.currentAccount(c).Username, Limit: pages.dashboardSize})
	if err != nil {
		return err
	}
	for i := range pkgs {
		d.Packages = append(d.Packages, pages.viewPackage(&pkgs[i]))
	}
	d.More = next != ""
	return nil
}

func (pages *Pages) dashboardTrusted(c *gin.Context, d *dashboardData) error {
	d.Issuers = pages.svc.OIDCIssuers()
	// The packages whose trusted publishing only the page sets.
	if err := pages.dashboardPackages(c, d); err != nil {
		return err
	}
	trusted, err := pages.svc.ListTrustedPublishers(c, pages.currentAccount(c), nil, "")
	if err != nil {
		return err
	}
	now := pages.now()
	for _, tp := range trusted {
		row := trustRow{TrustedPublisher: tp, Globs: strings.Join(tp.Packages, " "), Unbound: tp.NamesOnly(), Expired: !tp.Active(now)}
		for name, value := range tp.Claims {
			row.Claims = append(row.Claims, name+"="+value)
		}
		slices.Sort(row.Claims)
		d.Trusted = append(d.Trusted, row)
	}
	return nil
}

func (pages *Pages) createToken(c *gin.Context) {
	acct := pages.currentAccount(c)
	d := &dashboardData{Section: sectionTokens, Token: readTokenForm(c)}
	var secret string
	spec, err := d.Token.spec()
	if err == nil {
		secret, _, err = pages.svc.IssueToken(c, acct.ID, nil, spec)
	}
	if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) {
		d.Error = registry.ErrorMessage(err)
		pages.renderDashboard(c, httpx.Status(err), d)
		return
	}
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	// The secret is on this page only: it is not stored, so the answer to
	// this POST must not be cached anywhere (gate set no-store).
	pages.renderDashboard(c, http.StatusOK, &dashboardData{Section: sectionTokens, NewToken: secret, Token: newTokenForm(""),
		LoginCommand: pages.cliCommand("login", "--token", secret)})
}

func (pages *Pages) revokeToken(c *gin.Context) {
	pages.removeByID(c, removal{
		describe: func(accountID, id int64) (*confirmation, error) {
			t, err := pages.svc.AccountToken(c, accountID, id)
			if err != nil {
				return nil, err
			}
			if t.RevokedAt != nil {
				return nil, registry.Errorf(registry.NotFound, "no such token")
			}
			return &confirmation{
				Title:  "Revoke the token “" + t.Name + "”?",
				Detail: "Every request that sends it is refused at once: update the CI jobs and machines that use it. A revoked token cannot be made to work again.",
				Button: "Revoke token", Cancel: "/dashboard/tokens",
			}, nil
		},
		remove: func(accountID, id int64) error { return pages.svc.RevokeToken(c, accountID, id) },
		done:   "/dashboard/tokens?done=token-revoked",
	})
}

func (pages *Pages) addKey(c *gin.Context) {
	d := &dashboardData{Section: sectionKeys, KeyName: strings.TrimSpace(c.PostForm("name")), PublicKey: strings.TrimSpace(c.PostForm("public_key"))}
	_, err := pages.svc.AddSSHKey(c, pages.currentAccount(c).ID, d.PublicKey, d.KeyName)
	pages.formDone(c, d, err, "/dashboard/keys?done=key-added")
}

// formDone ends a dashboard form: a refusal shows the form's page (d's
// section) again with the message and the values sent, a fault the error
// page, success a redirect to done.
func (pages *Pages) formDone(c *gin.Context, d *dashboardData, err error, done string) {
	if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) {
		d.Error = registry.ErrorMessage(err)
		pages.renderDashboard(c, httpx.Status(err), d)
		return
	}
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, done)
}

// removal is a dashboard button that removes one of the account's things
// by the id in its path.
type removal struct {
	// describe says what is about to go, for the confirmation page; a
	// NotFound error for an id that is not the account's.
	describe func(accountID, id int64) (*confirmation, error)
	remove   func(accountID, id int64) error
	done     string // where to go after
}

// confirmation is the page that asks before something is removed.
type confirmation struct {
	Title  string
	Detail string
	Action string // the form's target: the same path, with confirm=yes
	Button string
	Cancel string // the link back
	// Password: the removal needs the account's password (the last
	// passkey of an account that requires a second factor).
	Password bool
	// Fields are sent again with confirm=yes: what the first form held,
	// such as a yank's reason.
	Fields []hiddenField
}

type hiddenField struct{ Name, Value string }

// removeByID ends a removal. The dashboard's button only asks: the form it
// sends has no confirm=yes, and the answer is a page that says what goes
// and offers the button that really removes it. This needs no JavaScript.
func (pages *Pages) removeByID(c *gin.Context, r removal) {
	id, ok := pathID(c)
	if !ok {
		pages.notFound(c)
		return
	}
	accountID := pages.currentAccount(c).ID
	if c.PostForm("confirm") != "yes" {
		conf, err := r.describe(accountID, id)
		if err != nil {
			pages.errorPage(c, err)
			return
		}
		conf.Action = c.Request.URL.Path
		pages.render(c, http.StatusOK, "confirm.html", "", conf)
		return
	}
	if err := r.remove(accountID, id); err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, r.done)
}

func (pages *Pages) deleteKey(c *gin.Context) {
	pages.removeByID(c, removal{
		describe: func(accountID, id int64) (*confirmation, error) {
			keys, err := pages.svc.ListSSHKeys(c, accountID)
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				if k.ID == id {
					name := k.Name
					if name == "" {
						name = k.Fingerprint
					}
					return &confirmation{
						Title:  "Delete the SSH key “" + name + "”?",
						Detail: "Publishes signed with " + k.Fingerprint + " are refused from now on. Versions it signed stay verifiable. You can add the key again, but not to publish again what it signed before.",
						Button: "Delete key", Cancel: "/dashboard/keys",
					}, nil
				}
			}
			return nil, registry.Errorf(registry.NotFound, "no such key")
		},
		remove: func(accountID, id int64) error { return pages.svc.DeleteSSHKey(c, accountID, id) },
		done:   "/dashboard/keys?done=key-deleted",
	})
}

// maxTrustClaimLines bounds the claims textarea before the domain's own
// checks: more lines than there are known claims is never right.
const maxTrustClaimLines = 32

// addTrustedPublisher takes the issuer, the packs (globs separated by
// spaces or commas) and the claims, one name=value a line.
func (pages *Pages) addTrustedPublisher(c *gin.Context) {
	d := &dashboardData{Section: sectionTrusted, TrustIssuer: c.PostForm("issuer"), TrustPackages: strings.TrimSpace(c.PostForm("packages")),
		TrustClaims: strings.TrimSpace(c.PostForm("claims"))}
	spec := registry.TrustedPublisherSpec{Issuer: d.TrustIssuer, Claims: map[string]string{},
		Packages: strings.FieldsFunc(d.TrustPackages, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })}
	lines := strings.Split(d.TrustClaims, "\n")
	if len(lines) > maxTrustClaimLines {
		pages.formDone(c, d, registry.Errorf(registry.Invalid, "at most %d claims, one name=value a line", maxTrustClaimLines), "")
		return
	}
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			pages.formDone(c, d, registry.Errorf(registry.Invalid, "each claim is one line name=value, such as repository=alice/widget"), "")
			return
		}
		spec.Claims[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	_, err := pages.svc.AddTrustedPublisher(c, pages.currentAccount(c), nil, spec)
	pages.formDone(c, d, err, "/dashboard/trusted-publishers?done=trust-added")
}

func (pages *Pages) removeTrustedPublisher(c *gin.Context) {
	pages.removeByID(c, removal{
		describe: func(_, id int64) (*confirmation, error) {
			trusted, err := pages.svc.ListTrustedPublishers(c, pages.currentAccount(c), nil, "")
			if err != nil {
				return nil, err
			}
			for _, tp := range trusted {
				if tp.ID == id {
					return &confirmation{
						Title:  "Remove the trusted publisher for " + strings.Join(tp.Packages, " ") + "?",
						Detail: "CI jobs of " + tp.Issuer + " can no longer get tokens to publish these packs.",
						Button: "Remove trusted publisher", Cancel: "/dashboard/trusted-publishers",
					}, nil
				}
			}
			return nil, registry.Errorf(registry.NotFound, "no such trusted publisher")
		},
		remove: func(_, id int64) error {
			return pages.svc.DeleteTrustedPublisher(c, pages.currentAccount(c), "", nil, id)
		},
		done: "/dashboard/trusted-publishers?done=trust-removed",
	})
}

// setTrustedPublishingOnly turns one of the account's packages' trusted
// publishing only on (only=true) or off (only=false), as
// PATCH /api/packages/{owner}/{pack} does.
func (pages *Pages) setTrustedPublishingOnly(c *gin.Context) {
	acct := pages.currentAccount(c)
	var only bool
	switch c.PostForm("only") {
	case "true":
		only = true
	case "false":
	default:
		pages.formDone(c, &dashboardData{Section: sectionTrusted}, registry.Errorf(registry.Invalid, "choose whether only CI may publish the package"), "")
		return
	}
	_, err := pages.svc.SetTrustedPublishingOnly(c, acct, nil, acct.Username, c.Param("pack"), only)
	done := "/dashboard/trusted-publishers?done=trusted-only-off"
	if only {
		done = "/dashboard/trusted-publishers?done=trusted-only-on"
	}
	pages.formDone(c, &dashboardData{Section: sectionTrusted}, err, done+"#trusted-only")
}

func pathID(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	return id, err == nil && id > 0
}
