package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/server/registry"
)

// outsideTables lists what sticks out of a dashboard table: an element of
// it whose box reaches past the screen or past a box that clips it (the
// scrolling .table-scroll), or a cell whose content is wider than the cell.
// Elements clipped to nothing (visually hidden headers) are not shown, so
// they cannot stick out.
const outsideTables = `(() => {
	const width = document.documentElement.clientWidth;
	const out = [];
	for (const table of document.querySelectorAll("main table")) {
		for (const e of [table, ...table.querySelectorAll("*")]) {
			const r = e.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue;
			let left = 0, right = width;
			for (let a = e.parentElement; a; a = a.parentElement) {
				if (getComputedStyle(a).overflowX !== "visible") {
					const c = a.getBoundingClientRect();
					left = Math.max(left, c.left + a.clientLeft);
					right = Math.min(right, c.left + a.clientLeft + a.clientWidth);
				}
			}
			if (right - left <= 1) continue;
			const what = e.tagName.toLowerCase() + " " + JSON.stringify(e.textContent.trim().slice(0, 40));
			if (r.left < left - 0.5 || r.right > right + 0.5) {
				out.push(what + " spans " + Math.round(r.left) + "-" + Math.round(r.right) + " px of " + Math.round(left) + "-" + Math.round(right));
			} else if ((e.tagName === "TD" || e.tagName === "TH") && e.scrollWidth > e.clientWidth + 1) {
				out.push(what + " holds " + e.scrollWidth + " px in " + e.clientWidth);
			}
		}
	}
	return out;
})()`

// The dashboard's pages on a 390 px phone and on a desktop: each has the
// shared menu with itself marked current, and every cell and button of
// every table (tokens, SSH keys, organisation members, trusted publishers,
// sessions), filled with long real values, lies wholly on screen.
func TestBrowserDashboardPagesTablesFit(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 90*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{OIDCIssuers: []string{githubIssuer}})
	alice := env.CreateUser(t, "alice")
	long := env.CreateUser(t, "a-member-whose-name-is-39-characters-xx")
	bg := context.Background()
	week := 7
	if _, _, err := env.Service.IssueToken(bg, alice.Account.ID, nil, registry.TokenSpec{Name: "release pipeline of the widget family",
		Scopes: []string{"publish", "yank", "keys", "tokens"}, Packages: []string{"widget-*", "gadget", "a-rather-long-pack-name-*"}, ExpiresInDays: &week}); err != nil {
		t.Fatal(err)
	}
	_, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	if _, err := env.Service.AddSSHKey(bg, alice.Account.ID, sshtest.PublicKeyLine(t, pub), "a key with a rather long name for a phone"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.CreateOrg(bg, alice.Account, nil, "acme", "Acme Corp"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.SetMember(bg, alice.Account, nil, "acme", long.Account.Username, registry.RoleMaintainer); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.AddTrustedPublisher(bg, alice.Account, nil, registry.TrustedPublisherSpec{Issuer: githubIssuer,
		Packages: []string{"widget", "widget-*"}, Claims: map[string]string{"repository": "alice/widget", "repository_id": "123456789",
			"job_workflow_ref": "alice/widget/.github/workflows/release-on-tag.yml@refs/heads/main"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Service.StartSession(bg, alice.Account.ID, registry.SessionClient{UserAgent: iphoneUA, IP: "2001:db8:85a3::8a2e:370:7334"}); err != nil {
		t.Fatal(err)
	}
	// A package only CI may publish, with a long name, and one anyone with a token may.
	for _, pack := range []string{"a-rather-long-pack-name-for-a-phone-screen", "widget"} {
		if _, _, err := env.Service.Publish(bg, alice.Account, registry.PublishRequest{Content: []byte(packDoc(pack, "1.0.0"))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.Service.SetTrustedPublishingOnly(bg, alice.Account, nil, "alice", "a-rather-long-pack-name-for-a-phone-screen", true); err != nil {
		t.Fatal(err)
	}

	hook, err := env.Service.CreateHook(bg, alice.Account, nil, registry.HookSpec{URL: "https://203.0.113.10/a-rather-long-path/for-a-phone-screen/hook",
		Secret: "browser-secret-0123456789", Events: registry.HookEvents})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.Service.Publish(bg, alice.Account, registry.PublishRequest{Content: []byte(packDoc("widget", "1.1.0"))}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.Service.YankVersion(bg, alice.Account, "alice", "widget", "1.0.0", "a reason long enough to need more than one line on a phone"); err != nil {
		t.Fatal(err)
	}

	b := tab{t: t, ctx: ctx}
	b.logInWithPassword(env.URL, "alice", alice.Password)
	shots := screenshotDir(t)
	pages := []struct {
		path   string
		tables map[string]int // selector: rows
		button string         // one button of the table that must be on screen
	}{
		{"/dashboard", nil, ""},
		{"/dashboard/packages", map[string]int{"table.managed-packages": 2}, "a[aria-label^='Yank or deprecate alice/a-rather-long']"},
		{"/dashboard/package/alice/a-rather-long-pack-name-for-a-phone-screen", map[string]int{"table.manage-versions": 1}, "button[aria-label='Yank 1.0.0']"},
		{"/dashboard/package/alice/widget", map[string]int{"table.manage-versions": 2}, "button[aria-label='Un-yank 1.0.0']"},
		{"/dashboard/tokens", map[string]int{"table.tokens": 2}, "button[aria-label^='Revoke token release']"},
		{"/dashboard/keys", map[string]int{"table.keys": 1}, "button[aria-label^='Delete key']"},
		{"/dashboard/orgs", map[string]int{"#org-acme table.members": 2}, "button[aria-label='Remove " + long.Account.Username + " from acme']"},
		{"/dashboard/trusted-publishers", map[string]int{"table.trusted": 1, "table.trusted-only": 2}, "form[action$='/trusted-publishing-only'] button"},
		{"/dashboard/hooks", map[string]int{"table.hooks": 1}, "button[aria-label='Remove webhook " + fmt.Sprint(hook.ID) + "']"},
		{"/dashboard/hooks/" + fmt.Sprint(hook.ID), nil, ""},
		{"/dashboard/account", map[string]int{"table.sessions": 2}, "tr:not(.current-session) button"},
	}
	for _, size := range []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch}},
		{"desktop", 1280, 900, nil},
	} {
		b.do("emulating a "+size.name, chromedp.EmulateViewport(size.width, size.height, size.opts...))
		for _, p := range pages {
			if resp := b.open(env.URL + p.path); resp.Status != http.StatusOK {
				t.Fatalf("%s: status %d", p.path, resp.Status)
			}
			current := evaluate[[]string](b, `Array.from(document.querySelectorAll("nav.dashboard-menu a[aria-current='page']")).map(a => a.getAttribute("href"))`)
			menu := p.path // a package's or a hook's page is under its list's
			for _, list := range []string{"/dashboard/packages", "/dashboard/hooks"} {
				if strings.HasPrefix(p.path, list+"/") || strings.HasPrefix(p.path, strings.TrimSuffix(list, "s")+"/") {
					menu = list
				}
			}
			if len(current) != 1 || current[0] != menu {
				t.Errorf("%s: the dashboard menu marks %q as the current page", p.path, current)
			}
			if n := evaluate[int](b, `document.querySelectorAll("nav.dashboard-menu a").length`); n != 8 {
				t.Errorf("%s: the dashboard menu has %d links, want 8", p.path, n)
			}
			for sel, rows := range p.tables {
				if n := evaluate[int](b, `document.querySelectorAll("`+sel+` tbody tr").length`); n != rows {
					t.Errorf("%s: %s has %d rows, want %d", p.path, sel, n, rows)
				}
			}
			if p.button != "" {
				r := b.box(p.button)
				if width := evaluate[float64](b, `document.documentElement.clientWidth`); r.Left < 0 || r.Right > width || r.Right <= r.Left {
					t.Errorf("%s at %d px: %s spans %.0f-%.0f px of 0-%.0f", p.path, size.width, p.button, r.Left, r.Right, width)
				}
			}
			if out := evaluate[[]string](b, outsideTables); len(out) > 0 {
				t.Errorf("%s at %d px: these stick out of their table or the screen:\n%s", p.path, size.width, strings.Join(out, "\n"))
			}
			if wide := evaluate[bool](b, `document.documentElement.scrollWidth > document.documentElement.clientWidth`); wide {
				t.Errorf("%s scrolls sideways at %d px; sticking out: %q", p.path, size.width, evaluate[[]string](b, overflowing))
			}
			b.screenshot(shots, "dashboard"+strings.ReplaceAll(strings.TrimPrefix(p.path, "/dashboard"), "/", "-")+"-"+size.name)
		}
	}
}
