package web

import (
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The dashboard's organisations (docs/protocol.md, Organisations): create
// one, and, as an owner, add, change and remove members. Who may is the
// domain's (registry.Can).

// orgRow is one organisation the account is a member of.
type orgRow struct {
	Org   *registry.Org
	Role  registry.Role
	Owner bool
	// Refused: the organisation requires a second factor to manage it
	// here, and the account has none; the page says so instead.
	Refused string
}

func (pages *Pages) dashboardOrgs(c *gin.Context, d *dashboardData) error {
	memberships, err := pages.svc.OrgsOf(c, pages.currentAccount(c))
	if err != nil {
		return err
	}
	for _, m := range memberships {
		org, err := pages.svc.Org(c, m.Username)
		if err != nil {
			return err
		}
		// The domain says whether the account manages the members (the
		// page shows those forms to owners only).
		row := orgRow{Org: org, Role: m.Role, Owner: pages.svc.Can(c, pages.currentAccount(c), registry.ActMembers, org.Account) == nil}
		if err := pages.svc.CheckDashboardOrg(pages.currentAccount(c), org.Account); err != nil {
			row.Refused = registry.ErrorMessage(err)
		}
		d.Orgs = append(d.Orgs, row)
	}
	return nil
}

func (pages *Pages) createOrg(c *gin.Context) {
	d := &dashboardData{Section: sectionOrgs, OrgName: strings.TrimSpace(c.PostForm("name")), OrgDisplayName: strings.TrimSpace(c.PostForm("display_name"))}
	_, err := pages.svc.CreateOrg(c, pages.currentAccount(c), nil, d.OrgName, d.OrgDisplayName)
	pages.formDone(c, d, err, "/dashboard/orgs?done=org-created")
}

func (pages *Pages) setOrgMember(c *gin.Context) {
	d := &dashboardData{Section: sectionOrgs}
	role, err := registry.ParseRole(c.PostForm("role"))
	done := "member-set"
	if err == nil {
		var ch *registry.MemberChange
		ch, err = pages.svc.SetMember(c, pages.currentAccount(c), nil, c.Param("org"), strings.TrimSpace(c.PostForm("username")), role)
		if err == nil && len(ch.RemovedTrustedPublishers) > 0 {
			done = "member-set-grants"
		}
	}
	pages.orgFormDone(c, d, err, "/dashboard/orgs?done="+done+"#org-"+url.PathEscape(c.Param("org")))
}

func (pages *Pages) removeOrgMember(c *gin.Context) {
	d := &dashboardData{Section: sectionOrgs}
	done := "member-removed"
	ch, err := pages.svc.RemoveMember(c, pages.currentAccount(c), nil, c.Param("org"), c.Param("username"))
	if err == nil && len(ch.RemovedTrustedPublishers) > 0 {
		done = "member-removed-grants"
	}
	pages.orgFormDone(c, d, err, "/dashboard/orgs?done="+done+"#org-"+url.PathEscape(c.Param("org")))
}

// orgFormDone is formDone that also shows a refusal of the domain (an
// unknown user, a role the caller lacks) on the organisations page.
func (pages *Pages) orgFormDone(c *gin.Context, d *dashboardData, err error, done string) {
	switch {
	case registry.IsCode(err, registry.NotFound): // a name typed in the form
		err = registry.Errorf(registry.Invalid, "%s", registry.ErrorMessage(err))
	case registry.IsCode(err, registry.Forbidden):
		// The form again, saying why, with the refusal's own status.
		d.Error = registry.ErrorMessage(err)
		pages.renderDashboard(c, httpx.Status(err), d)
		return
	}
	pages.formDone(c, d, err, done)
}
