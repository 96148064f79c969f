package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

// versionState reads one version of owner/pack from the store: whether it
// is yanked and why, and the package's latest version and deprecation.
func versionState(t *testing.T, env *servertest.Env, owner, pack, version string) (yanked bool, reason, latest, deprecated string) {
	t.Helper()
	p, versions, err := env.Service.PackageDetail(context.Background(), owner, pack)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if v.Version == version {
			return v.YankedAt != nil, v.YankReason, p.Version, p.Deprecated
		}
	}
	t.Fatalf("%s/%s has no version %s", owner, pack, version)
	return
}

// The dashboard lists the account's packages, yanks a version (after
// asking, as pact yank does) with its reason, un-yanks it and deprecates
// the package and withdraws that; a bad form shows why and changes
// nothing.
func TestDashboardYanksAndDeprecates(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{})
		alice := env.CreateUser(t, "alice")
		publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
		publishDoc(t, env, alice, packDoc("widget", "1.1.0"))
		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		const manage = "/dashboard/package/alice/widget"

		servertest.WantPage(t, web.Get("/dashboard/packages"), http.StatusOK, `<a href="/alice/widget">alice/widget</a>`, `href="`+manage+`"`)
		servertest.WantPage(t, web.Get(manage), http.StatusOK, `action="`+manage+`/versions/1.1.0/yank"`, `action="`+manage+`/versions/1.0.0/yank"`,
			`action="`+manage+`/deprecate"`, "Latest version: <strong>1.1.0</strong>")

		// Yank asks first, with the reason; only the confirmation yanks.
		ask := web.Post(manage+"/versions/1.1.0/yank", url.Values{"reason": {"breaks the parser"}})
		servertest.WantPage(t, ask, http.StatusOK, "Yank alice/widget 1.1.0?", `<input type="hidden" name="reason" value="breaks the parser">`,
			`<input type="hidden" name="confirm" value="yes">`, `action="`+manage+`/versions/1.1.0/yank"`)
		if yanked, _, _, _ := versionState(t, env, "alice", "widget", "1.1.0"); yanked {
			t.Fatal("asking yanked the version")
		}
		servertest.WantRedirect(t, web.Post(manage+"/versions/1.1.0/yank", url.Values{"reason": {"breaks the parser"}, "confirm": {"yes"}}),
			manage+"?done=version-yanked#version-1.1.0")
		if yanked, reason, latest, _ := versionState(t, env, "alice", "widget", "1.1.0"); !yanked || reason != "breaks the parser" || latest != "1.0.0" {
			t.Fatalf("after the yank: yanked %v, reason %q, latest %s", yanked, reason, latest)
		}
		servertest.WantPage(t, web.Get(manage+"?done=version-yanked"), http.StatusOK, "The version is yanked", `action="`+manage+`/versions/1.1.0/unyank"`,
			"yanked</span> breaks the parser")
		api := env.API.Get("/api/packages/alice/widget")
		wantStatus(t, api.Status, http.StatusOK, api.Body)
		if v := api.JSON(t)["package"].(map[string]any)["version"]; v != "1.0.0" {
			t.Errorf("the API's latest after the yank is %v", v)
		}

		// Refused forms say why and change nothing.
		for _, c := range []struct {
			name   string
			path   string
			form   url.Values
			status int
			want   string
		}{
			{"a reason too long", manage + "/versions/1.0.0/yank", url.Values{"reason": {strings.Repeat("x", 201)}, "confirm": {"yes"}}, 400, "reason must be at most 200"},
			{"@latest", manage + "/versions/latest/yank", url.Values{"confirm": {"yes"}}, 400, "name the version exactly"},
			{"no such version", manage + "/versions/9.9.9/yank", url.Values{"confirm": {"yes"}}, 404, "Not found"},
			{"asking about no such version", manage + "/versions/9.9.9/yank", nil, 404, "Not found"},
			{"no such package", "/dashboard/package/alice/nosuch/versions/1.0.0/yank", url.Values{"confirm": {"yes"}}, 404, "Not found"},
			{"an empty deprecation", manage + "/deprecate", url.Values{"message": {"  "}}, 400, "Write the deprecation message"},
			{"a deprecation too long", manage + "/deprecate", url.Values{"message": {strings.Repeat("y", 501)}}, 400, "message must be at most 500"},
			{"from another site", manage + "/versions/1.0.0/yank", url.Values{"confirm": {"yes"}}, 403, "from another site"},
		} {
			t.Run(c.name, func(t *testing.T) {
				var headers []string
				if c.name == "from another site" {
					headers = []string{"Sec-Fetch-Site", "cross-site"}
				}
				servertest.WantPage(t, web.Post(c.path, c.form, headers...), c.status, c.want)
			})
		}
		if yanked, _, latest, deprecated := versionState(t, env, "alice", "widget", "1.0.0"); yanked || latest != "1.0.0" || deprecated != "" {
			t.Fatalf("refused forms changed the package: 1.0.0 yanked %v, latest %s, deprecated %q", yanked, latest, deprecated)
		}

		// Un-yank: 1.1.0 is the latest again.
		servertest.WantRedirect(t, web.Post(manage+"/versions/1.1.0/unyank", nil), manage+"?done=version-unyanked#version-1.1.0")
		if yanked, _, latest, _ := versionState(t, env, "alice", "widget", "1.1.0"); yanked || latest != "1.1.0" {
			t.Fatalf("after the un-yank: yanked %v, latest %s", yanked, latest)
		}

		// Deprecate, then withdraw it.
		servertest.WantRedirect(t, web.Post(manage+"/deprecate", url.Values{"message": {" use alice/gadget instead "}}), manage+"?done=deprecated#deprecation")
		if _, _, _, deprecated := versionState(t, env, "alice", "widget", "1.1.0"); deprecated != "use alice/gadget instead" {
			t.Fatalf("deprecation = %q", deprecated)
		}
		servertest.WantPage(t, web.Get(manage+"?done=deprecated"), http.StatusOK, "The package is deprecated", `value="use alice/gadget instead"`,
			"Withdraw the deprecation", "Change the message")
		servertest.WantRedirect(t, web.Post(manage+"/deprecate", url.Values{"undo": {"yes"}}), manage+"?done=undeprecated#deprecation")
		if _, _, _, deprecated := versionState(t, env, "alice", "widget", "1.1.0"); deprecated != "" {
			t.Fatalf("after withdrawing, deprecation = %q", deprecated)
		}

		// The package's page links its dashboard page for alice only.
		servertest.WantPage(t, web.Get("/alice/widget"), http.StatusOK, `<a class="manage-link" href="`+manage+`">`)
		if page := servertest.NewWebClient(t, env.URL).Get("/alice/widget"); strings.Contains(page.Body, "manage-link") {
			t.Errorf("the package page links the dashboard for a visitor")
		}
	})
}

// Who may yank, un-yank and deprecate from the dashboard is who may with
// the API: the owner; in an organisation, maintainers and owners yank and
// only owners deprecate; nobody else. Each refusal changes nothing. An
// organisation that requires a second factor of those who manage it here
// refuses a member without one on the dashboard only.
func TestDashboardLifecycleRulesAsTheAPI(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{})
		ctx := context.Background()
		alice, bob, carol := env.CreateUser(t, "alice"), env.CreateUser(t, "bob"), env.CreateUser(t, "carol")
		publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
		if _, err := env.Service.CreateOrg(ctx, alice.Account, nil, "acme", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Service.SetMember(ctx, alice.Account, nil, "acme", "bob", registry.RoleMaintainer); err != nil {
			t.Fatal(err)
		}
		if _, _, err := env.Service.Publish(ctx, alice.Account, registry.PublishRequest{Owner: "acme", Content: []byte(packDoc("gadget", "1.0.0"))}); err != nil {
			t.Fatal(err)
		}
		sessions := map[string]*servertest.WebClient{}
		for _, u := range []*servertest.User{alice, bob, carol} {
			sessions[u.Account.Username] = servertest.NewWebClient(t, env.URL)
			sessions[u.Account.Username].Login(u)
		}
		users := map[string]*servertest.User{"alice": alice, "bob": bob, "carol": carol}

		for _, c := range []struct {
			who, pack, action string
			status            int    // the dashboard's and the API's
			want              string // in the dashboard's page
		}{
			{"bob", "alice/widget", "yank", 403, "only alice may yank versions of alice/widget"},
			{"bob", "alice/widget", "unyank", 403, "only alice may un-yank versions of alice/widget"},
			{"bob", "alice/widget", "deprecate", 403, "only alice may deprecate alice/widget"},
			{"carol", "acme/gadget", "yank", 403, "carol is not a member of the organisation acme"},
			{"carol", "acme/gadget", "deprecate", 403, "carol is not a member of the organisation acme"},
			{"bob", "acme/gadget", "deprecate", 403, "only owners of the organisation acme may deprecate its packages; bob is a maintainer"},
			{"bob", "acme/gadget", "yank", 303, ""},
			{"bob", "acme/gadget", "unyank", 303, ""},
			{"alice", "acme/gadget", "deprecate", 303, ""},
		} {
			t.Run(c.who+" "+c.action+" "+c.pack, func(t *testing.T) {
				owner, pack, _ := strings.Cut(c.pack, "/")
				manage := "/dashboard/package/" + c.pack
				path, form, apiPath, apiBody := manage+"/versions/1.0.0/"+c.action, url.Values{"confirm": {"yes"}, "reason": {"by " + c.who}},
					"/api/packages/"+c.pack+"/versions/1.0.0/"+c.action, any(map[string]string{})
				if c.action == "deprecate" {
					path, form, apiPath = manage+"/deprecate", url.Values{"message": {"use something else"}}, "/api/packages/"+c.pack+"/deprecate"
					apiBody = map[string]string{"message": "use something else"}
				}
				yankedBefore, _, _, deprecatedBefore := versionState(t, env, owner, pack, "1.0.0")
				page := sessions[c.who].Post(path, form)
				if page.Status != c.status {
					t.Fatalf("the dashboard answers %d, want %d:\n%s", page.Status, c.status, page.Body)
				}
				if c.status != 303 {
					servertest.WantPage(t, page, c.status, c.want)
					if yanked, _, _, deprecated := versionState(t, env, owner, pack, "1.0.0"); yanked != yankedBefore || deprecated != deprecatedBefore {
						t.Errorf("the refused form changed %s: yanked %v, deprecated %q", c.pack, yanked, deprecated)
					}
					// The dashboard's page of the package is refused too.
					if c.action == "yank" {
						servertest.WantPage(t, sessions[c.who].Get(manage), 403, c.want[:20])
					}
				}
				// The API, with the same account's token, rules alike.
				if c.action == "unyank" && c.status == 303 {
					return // done already by the dashboard; the API would repeat it
				}
				api := env.API.PostJSON(apiPath, apiBody, users[c.who].Bearer())
				if want := map[int]int{303: 200, 403: 403}[c.status]; api.Status != want {
					t.Errorf("the API answers %d to the same, want %d: %s", api.Status, want, api.Body)
				}
			})
		}
		// The maintainer's page offers yanking but not deprecating.
		page := sessions["bob"].Get("/dashboard/package/acme/gadget")
		servertest.WantPage(t, page, http.StatusOK, `/versions/1.0.0/`, "Only owners of acme deprecate its packages.")
		if strings.Contains(page.Body, `action="/dashboard/package/acme/gadget/deprecate"`) {
			t.Errorf("the maintainer's page offers the deprecation form")
		}
		servertest.WantPage(t, sessions["bob"].Get("/dashboard/packages"), http.StatusOK, "(you are a maintainer)", `href="/dashboard/package/acme/gadget"`)

		// acme requires a second factor of those who manage it here: bob
		// has none, so the dashboard refuses him; his token still yanks.
		org, err := env.Service.AccountByUsername(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if err := registry.SetRequireSecondFactor(ctx, env.Store, org.ID, true); err != nil {
			t.Fatal(err)
		}
		yankedBefore, _, _, _ := versionState(t, env, "acme", "gadget", "1.0.0")
		if yankedBefore {
			t.Fatal("acme/gadget 1.0.0 is yanked before the test yanks it")
		}
		servertest.WantPage(t, sessions["bob"].Post("/dashboard/package/acme/gadget/versions/1.0.0/yank", url.Values{"confirm": {"yes"}}), http.StatusForbidden, "requires a second factor")
		servertest.WantPage(t, sessions["bob"].Post("/dashboard/package/acme/gadget/versions/1.0.0/yank", nil), http.StatusForbidden, "requires a second factor")
		servertest.WantPage(t, sessions["bob"].Get("/dashboard/package/acme/gadget"), http.StatusOK, "requires a second factor")
		if yanked, _, _, _ := versionState(t, env, "acme", "gadget", "1.0.0"); yanked != yankedBefore {
			t.Errorf("the refused yank changed the version")
		}
		api := env.API.PostJSON("/api/packages/acme/gadget/versions/1.0.0/yank", map[string]string{}, bob.Bearer())
		wantStatus(t, api.Status, http.StatusOK, api.Body)
	})
}
