package web_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

// The account page on a phone-sized screen: change the password, see the
// sessions without scrolling sideways, log out everywhere.
func TestBrowserAccountPageOnAPhone(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 45*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	// Other sessions, one with the longest user agent kept.
	for _, ua := range []string{iphoneUA, strings.Repeat("VeryLongProductName/1.0 ", 20)} {
		if _, err := env.Service.StartSession(context.Background(), alice.Account.ID, registry.SessionClient{UserAgent: ua, IP: "2001:db8:85a3::8a2e:370:7334"}); err != nil {
			t.Fatal(err)
		}
	}
	b := tab{t: t, ctx: ctx}
	b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	b.open(env.URL + "/login")
	b.do("filling the log-in form",
		chromedp.SendKeys(chromedp.CSS("#login"), "alice"),
		chromedp.SendKeys(chromedp.CSS("#password"), alice.Password),
	)
	b.submit("main form button[type=submit]")
	b.open(env.URL + "/dashboard/account")

	b.do("filling the password form",
		chromedp.SendKeys(chromedp.CSS("#current-password"), alice.Password),
		chromedp.SendKeys(chromedp.CSS("#new-password"), "a phone passphrase"),
		chromedp.SendKeys(chromedp.CSS("#confirm-password"), "a phone passphrase"),
	)
	b.submit("form[action='/dashboard/password'] button")
	if notice := b.text(".notice"); !strings.Contains(notice, "Your password is changed") {
		t.Errorf("notice after changing the password: %q", notice)
	}
	// The other sessions ended; this one is listed and marked.
	if rows := evaluate[int](b, `document.querySelectorAll("table.sessions tbody tr").length`); rows != 1 {
		t.Errorf("%d sessions listed after the password change, want this one", rows)
	}
	for _, ua := range []string{iphoneUA, strings.Repeat("VeryLongProductName/1.0 ", 20)} {
		if _, err := env.Service.StartSession(context.Background(), alice.Account.ID, registry.SessionClient{UserAgent: ua, IP: "2001:db8:85a3::8a2e:370:7334"}); err != nil {
			t.Fatal(err)
		}
	}
	b.open(env.URL + "/dashboard/account")
	if rows := evaluate[int](b, `document.querySelectorAll("table.sessions tbody tr").length`); rows != 3 {
		t.Errorf("%d sessions listed, want 3", rows)
	}
	if mark := b.text("tr.current-session .status"); mark != "this session" {
		t.Errorf("this session is marked %q", mark)
	}
	if wide := evaluate[bool](b, `document.documentElement.scrollWidth > document.documentElement.clientWidth`); wide {
		t.Errorf("/dashboard/account scrolls sideways on a 390px screen; sticking out: %q", evaluate[[]string](b, overflowing))
	}
	shots := t.TempDir()
	if dir := os.Getenv("PACT_SCREENSHOTS"); dir != "" {
		shots = dir // to look at them after the test
	}
	b.screenshot(shots, "account-phone")

	b.submit("form[action='/dashboard/logout-everywhere'] button")
	if loc := b.location(); loc != env.URL+"/login?done=logged-out-everywhere" {
		t.Errorf("after logging out everywhere the browser is at %s", loc)
	}
	if notice := b.text(".notice"); !strings.Contains(notice, "logged out everywhere") {
		t.Errorf("log-in page notice %q", notice)
	}
	sessions, _, err := env.Service.ListSessions(context.Background(), alice.Account.ID)
	if err != nil || len(sessions) != 0 {
		t.Errorf("after logging out everywhere alice has %d sessions (%v)", len(sessions), err)
	}
}
