package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/hooktest"
	"github.com/pact-registry/pact/internal/servertest"
)

// A person yanks a version from the dashboard, on a phone: from the
// Packages page to the package's page, a reason, the question, the yank;
// the version's page then shows the yank banner with the reason, and the
// package's page the older version as the latest. Deprecating and
// un-yanking there show on the package's page too.
func TestBrowserDashboardYankAndDeprecate(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
	publishDoc(t, env, alice, packDoc("widget", "1.1.0"))
	b := tab{t: t, ctx: ctx}
	shots := screenshotDir(t)
	b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	b.logInWithPassword(env.URL, alice.Account.Username, alice.Password)

	b.open(env.URL + "/dashboard/packages")
	b.do("opening the package's page", chromedp.Click(chromedp.CSS(`a[aria-label="Yank or deprecate alice/widget"]`)), chromedp.WaitVisible(chromedp.CSS("#versions")))
	if loc := b.location(); loc != env.URL+"/dashboard/package/alice/widget" {
		t.Fatalf("the Packages page's link leads to %s", loc)
	}
	b.screenshot(shots, "dashboard-package-phone")
	b.do("giving a reason", chromedp.SendKeys(chromedp.CSS("#reason-1\\.1\\.0"), "breaks the parser"))
	b.submit(`button[aria-label="Yank 1.1.0"]`)
	if q := b.text("main h1"); q != "Yank alice/widget 1.1.0?" {
		t.Fatalf("Yank leads to %q, want the question", q)
	}
	if detail := b.text(".confirm p"); !strings.Contains(detail, "“breaks the parser”") {
		t.Errorf("the question does not repeat the reason: %q", detail)
	}
	b.submit(".confirm-actions button")
	if notice := b.text(".notice"); !strings.Contains(notice, "The version is yanked") {
		t.Errorf("notice after yanking: %q", notice)
	}
	if state := b.text("#version-1\\.1\\.0 td[data-label=State]"); !strings.Contains(state, "yanked") || !strings.Contains(state, "breaks the parser") {
		t.Errorf("the version's row says %q", state)
	}

	// What everyone sees.
	b.open(env.URL + "/alice/widget@1.1.0")
	if banner := b.text(".banner.yanked"); !strings.HasPrefix(banner, "This version is yanked: breaks the parser.") {
		t.Errorf("the yanked version's banner reads %q", banner)
	}
	b.screenshot(shots, "package-yanked-phone")
	b.open(env.URL + "/alice/widget")
	if v := b.text(".title-version"); v != "1.0.0" {
		t.Errorf("the package's page shows %s, want the latest not yanked, 1.0.0", v)
	}

	// Deprecate from the package page's link; the package page shows it.
	b.do("following the package page's link", chromedp.Click(chromedp.CSS("a.manage-link")), chromedp.WaitVisible(chromedp.CSS("#deprecation-message")))
	b.do("writing the message", chromedp.SendKeys(chromedp.CSS("#deprecation-message"), "use alice/gadget instead"))
	b.submit("form[action$='/deprecate'] button")
	if notice := b.text(".notice"); !strings.Contains(notice, "deprecated") {
		t.Errorf("notice after deprecating: %q", notice)
	}
	b.open(env.URL + "/alice/widget")
	if banner := b.text(".banner.deprecated"); banner != "This package is deprecated: use alice/gadget instead" {
		t.Errorf("the deprecation banner reads %q", banner)
	}

	// Un-yank: no question; 1.1.0 is the latest again.
	b.open(env.URL + "/dashboard/package/alice/widget")
	b.submit(`button[aria-label="Un-yank 1.1.0"]`)
	b.open(env.URL + "/alice/widget")
	if v := b.text(".title-version"); v != "1.1.0" {
		t.Errorf("after un-yanking the package's page shows %s, want 1.1.0", v)
	}
	if n := evaluate[int](b, `document.querySelectorAll(".banner.yanked").length`); n != 0 {
		t.Errorf("after un-yanking the page still has a yank banner")
	}
}

// A person adds a webhook on the dashboard against a real receiver; after
// a publish the receiver gets the signed delivery and the hook's page
// lists it as delivered, with the receiver's answer.
func TestBrowserDashboardHookDeliveries(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{Webhooks: true, WebhookAllowPrivate: true})
	alice := env.CreateUser(t, "alice")
	const secret = "browser-hook-secret-0123456789"
	receiver, receiverURL := hooktest.NewServer(t, secret, hooktest.Behaviour{})
	b := tab{t: t, ctx: ctx}
	b.logInWithPassword(env.URL, alice.Account.Username, alice.Password)

	b.open(env.URL + "/dashboard/hooks")
	b.do("filling the hook form",
		chromedp.SendKeys(chromedp.CSS("#hook-url"), receiverURL+"/pact"),
		chromedp.SendKeys(chromedp.CSS("#hook-secret"), secret),
		chromedp.Click(chromedp.CSS(`input[name=event][value=publish]`)),
	)
	b.submit("form[action='/dashboard/hooks'] button[type=submit]")
	if notice := b.text(".notice"); !strings.Contains(notice, "The webhook is added") {
		t.Fatalf("notice after adding: %q", notice)
	}
	if row := b.text("table.hooks tbody tr"); !strings.Contains(row, receiverURL+"/pact") || !strings.Contains(row, "publish") {
		t.Errorf("the hooks table's row reads %q", row)
	}
	b.screenshot(screenshotDir(t), "dashboard-hooks-added")

	resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	got := hooktest.WaitFor(t, 20*time.Second, receiver.Deliveries, func(d []hooktest.Delivery) bool { return len(d) == 1 })
	if got[0].Event != "publish" || got[0].SignatureError != "" {
		t.Fatalf("the receiver got %+v", got[0])
	}

	b.do("opening the deliveries", chromedp.Click(chromedp.CSS(`table.hooks a[href^="/dashboard/hooks/"]`)), chromedp.WaitVisible(chromedp.CSS("#deliveries")))
	// The worker records the answer just after the receiver gives it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		row := evaluate[string](b, `(document.querySelector("table.deliveries tbody tr") || {innerText: ""}).innerText`)
		if strings.Contains(row, "delivered") {
			for _, want := range []string{"publish", "alice/widget@1.0.0", "answered 200", "log entry"} {
				if !strings.Contains(row, want) {
					t.Errorf("the delivery's row lacks %q: %q", want, row)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hook's page never lists the delivery as delivered; its row: %q", row)
		}
		time.Sleep(100 * time.Millisecond)
		b.open(b.location())
	}
	b.screenshot(screenshotDir(t), "dashboard-hook-deliveries")
}
