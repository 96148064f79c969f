package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The dashboard's packages (docs/protocol.md, Yanking and Deprecating a
// package): the packages the account may yank, its own and those of the
// organisations it belongs to, and a page for each that yanks and
// un-yanks its versions and deprecates it. Each form calls the domain's
// method with the session's account and no token, as the API's handlers
// (server/lifecycle.go) call it with the token's, so the domain decides
// who may: the owner, an organisation's maintainers for yanking, its
// owners for deprecating.

// ownerPackages are the packages of one owner the Packages page lists.
type ownerPackages struct {
	Owner    string
	Role     registry.Role // the account's role in the organisation; "" for its own packages
	Packages []packageView
	More     bool // the owner has more packages than are listed
}

func (pages *Pages) dashboardManaged(c *gin.Context, d *dashboardData) error {
	acct := pages.currentAccount(c)
	owners := []ownerPackages{{Owner: acct.Username}}
	memberships, err := pages.svc.OrgsOf(c, acct)
	if err != nil {
		return err
	}
	for _, m := range memberships {
		owners = append(owners, ownerPackages{Owner: m.Username, Role: m.Role})
	}
	for i := range owners {
		pkgs, next, err := pages.svc.ListPackages(c, registry.ListQuery{Owner: owners[i].Owner, Limit: pages.dashboardSize})
		if err != nil {
			return err
		}
		for j := range pkgs {
			owners[i].Packages = append(owners[i].Packages, pages.viewPackage(&pkgs[j]))
		}
		owners[i].More = next != ""
	}
	d.Managed = owners
	return nil
}

// packageData is the page of one package on the dashboard.
type packageData struct {
	Section, Notice, Error string // as dashboardData's, for the dashboard's head
	Package                packageView
	Manage                 string // the page's path
	Versions               []versionView
	// CanDeprecate: the account may deprecate the package (an
	// organisation's maintainer may only yank).
	CanDeprecate bool
	// Refused says why the account may not manage the package here (an
	// organisation that requires a second factor); the page shows it
	// instead of its forms.
	Refused string
	Message string // the deprecation form's text, shown again after an error
}

// managePath is the dashboard's page of owner/pack.
func managePath(owner, pack string) string {
	return "/dashboard/package/" + url.PathEscape(owner) + "/" + url.PathEscape(pack)
}

// managedPackage reads owner/pack for the dashboard, with its versions and
// whether the account may deprecate it: the domain's refusal (Can) when
// the account may not yank it, NotFound when there is no such package.
// refused is the refusal of an organisation's package to a member without
// the second factor the organisation requires here (dashboardOrgCheck).
func (pages *Pages) managedPackage(c *gin.Context) (d *packageData, refused error, err error) {
	acct := pages.currentAccount(c)
	p, versions, err := pages.svc.PackageDetail(c, strings.ToLower(c.Param("owner")), strings.ToLower(c.Param("pack")))
	if err != nil {
		return nil, nil, err
	}
	owner, err := pages.svc.AccountByUsername(c, p.OwnerSlug)
	if err != nil {
		return nil, nil, err
	}
	if err := pages.svc.Can(c, acct, registry.ActYank, owner); err != nil {
		return nil, nil, err
	}
	d = &packageData{Section: sectionPackages, Package: pages.viewPackage(p), Manage: managePath(p.OwnerSlug, p.PackSlug),
		Message: p.Deprecated, CanDeprecate: pages.svc.Can(c, acct, registry.ActDeprecate, owner) == nil}
	for i := range versions {
		d.Versions = append(d.Versions, pages.viewVersion(p, &versions[i]))
	}
	if owner.IsOrg() {
		if err := pages.svc.CheckDashboardOrg(acct, owner); err != nil {
			d.Refused = registry.ErrorMessage(err)
			return d, err, nil
		}
	}
	return d, nil, nil
}

// dashboardOrgCheck refuses a form about owner's packs or hooks when owner
// is an organisation that requires a second factor of the members who
// manage it here and the account has none (docs/protocol.md, Passkeys).
// The API does not ask for one, so the domain's methods do not check it:
// the dashboard does, before it calls them. Who may do what is theirs.
func (pages *Pages) dashboardOrgCheck(c *gin.Context, owner string) error {
	o, err := pages.svc.AccountByUsername(c, strings.ToLower(owner))
	if registry.IsCode(err, registry.NotFound) {
		return nil // the domain's method says what is missing
	}
	if err != nil || !o.IsOrg() {
		return err
	}
	return pages.svc.CheckDashboardOrg(pages.currentAccount(c), o)
}

// showPackage answers GET on a package's page of the dashboard.
func (pages *Pages) showPackage(c *gin.Context) {
	d, _, err := pages.managedPackage(c)
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	d.Notice = notice(c, sectionPackages)
	pages.render(c, http.StatusOK, "dashboard-package.html", "", d)
}

// packageFormDone ends a form of a package's page: a refusal of what was
// sent shows the page again with the message, a fault or a refusal of the
// account the error page, success a redirect to the page with done's
// notice.
func (pages *Pages) packageFormDone(c *gin.Context, err error, done, anchor string) {
	if registry.IsCode(err, registry.Invalid) || registry.IsCode(err, registry.Conflict) {
		d, _, derr := pages.managedPackage(c)
		if derr != nil {
			pages.errorPage(c, derr)
			return
		}
		d.Error = registry.ErrorMessage(err)
		if msg, ok := c.GetPostForm("message"); ok {
			d.Message = msg
		}
		pages.render(c, httpx.Status(err), "dashboard-package.html", "", d)
		return
	}
	if err != nil {
		pages.errorPage(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, managePath(strings.ToLower(c.Param("owner")), strings.ToLower(c.Param("pack")))+"?done="+done+anchor)
}

// versionAnchor is the id of a version's row on a package's page.
func versionAnchor(version string) string { return "#version-" + version }

// yankVersion yanks a version with the reason given, as POST
// /api/packages/{owner}/{pack}/versions/{version}/yank does. As pact yank
// on a terminal, it asks first: the form without confirm=yes answers a
// page that says what yanking does, whose button yanks.
func (pages *Pages) yankVersion(c *gin.Context) {
	owner, pack, version := c.Param("owner"), c.Param("pack"), c.Param("version")
	reason := c.PostForm("reason")
	if c.PostForm("confirm") != "yes" {
		d, refused, err := pages.managedPackage(c)
		if err == nil {
			err = refused
		}
		if err != nil {
			pages.errorPage(c, err)
			return
		}
		var shown *versionView
		for i := range d.Versions {
			if d.Versions[i].Number == version {
				shown = &d.Versions[i]
			}
		}
		if shown == nil {
			pages.errorPage(c, registry.Errorf(registry.NotFound, "%s/%s has no version %s", d.Package.OwnerSlug, d.Package.PackSlug, version))
			return
		}
		detail := "It stops being the latest version and lists stop offering it; its own address keeps serving it, marked as yanked, so whoever pinned it keeps it. The transparency log records the yank, and you can un-yank it."
		if r := strings.TrimSpace(reason); r != "" {
			detail += " The reason shown with it: “" + r + "”."
		}
		pages.render(c, http.StatusOK, "confirm.html", "", &confirmation{
			Title: "Yank " + d.Package.OwnerSlug + "/" + d.Package.PackSlug + " " + shown.Number + "?", Detail: detail,
			Action: c.Request.URL.Path, Button: "Yank " + shown.Number, Cancel: d.Manage + versionAnchor(shown.Number),
			Fields: []hiddenField{{"reason", reason}},
		})
		return
	}
	if err := pages.dashboardOrgCheck(c, c.Param("owner")); err != nil {
		pages.errorPage(c, err)
		return
	}
	_, v, err := pages.svc.YankVersion(c, pages.currentAccount(c), owner, pack, version, reason)
	anchor := ""
	if err == nil {
		anchor = versionAnchor(v.Version)
	}
	pages.packageFormDone(c, err, "version-yanked", anchor)
}

// unyankVersion undoes yankVersion, as POST
// /api/packages/{owner}/{pack}/versions/{version}/unyank does; it does not
// ask first, as pact unyank does not.
func (pages *Pages) unyankVersion(c *gin.Context) {
	if err := pages.dashboardOrgCheck(c, c.Param("owner")); err != nil {
		pages.errorPage(c, err)
		return
	}
	_, v, err := pages.svc.UnyankVersion(c, pages.currentAccount(c), c.Param("owner"), c.Param("pack"), c.Param("version"))
	anchor := ""
	if err == nil {
		anchor = versionAnchor(v.Version)
	}
	pages.packageFormDone(c, err, "version-unyanked", anchor)
}

// deprecatePackage sets the package's deprecation message, as POST
// /api/packages/{owner}/{pack}/deprecate does; undo=yes (the Withdraw
// button) undoes it. An empty message without undo=yes is refused, so that
// a form sent empty by mistake does not undo a deprecation.
func (pages *Pages) deprecatePackage(c *gin.Context) {
	if err := pages.dashboardOrgCheck(c, c.Param("owner")); err != nil {
		pages.errorPage(c, err)
		return
	}
	message, done := strings.TrimSpace(c.PostForm("message")), "deprecated"
	undo := c.PostForm("undo") == "yes"
	var err error
	switch {
	case undo:
		message, done = "", "undeprecated"
	case message == "":
		err = registry.Errorf(registry.Invalid, "Write the deprecation message, such as “use alice/gadget instead”; to withdraw a deprecation, use its Withdraw button.")
	}
	if err == nil {
		_, err = pages.svc.DeprecatePackage(c, pages.currentAccount(c), c.Param("owner"), c.Param("pack"), message)
	}
	pages.packageFormDone(c, err, done, "#deprecation")
}

// manageLink is p's page on the dashboard when the logged-in account may
// yank its versions, "" otherwise: the package's page links it.
func (pages *Pages) manageLink(c *gin.Context, p *registry.Package) string {
	acct := pages.currentAccount(c)
	if acct == nil {
		return ""
	}
	if acct.ID != p.OwnerID {
		owner, err := pages.svc.AccountByUsername(c, p.OwnerSlug)
		if err != nil || !owner.IsOrg() || pages.svc.Can(c, acct, registry.ActYank, owner) != nil {
			return ""
		}
	}
	return managePath(p.OwnerSlug, p.PackSlug)
}
