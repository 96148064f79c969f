package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
)

// In a real browser: the dashboard's organisations page creates an organisation and adds a
// member with its forms, and the organisation's page shows both members.
func TestBrowserOrganisation(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	env.CreateUser(t, "bob")
	b := tab{t: t, ctx: ctx}

	b.open(env.URL + "/signup")
	b.do("filling the sign-up form",
		chromedp.SendKeys(chromedp.CSS("#email"), "erin@example.com"),
		chromedp.SendKeys(chromedp.CSS("#username"), "erin"),
		chromedp.SendKeys(chromedp.CSS("#password"), "a browser passphrase"),
		chromedp.SendKeys(chromedp.CSS("#confirm-password"), "a browser passphrase"),
	)
	b.submit("main form button[type=submit]")

	b.open(env.URL + "/dashboard/orgs")
	b.do("filling the organisation form",
		chromedp.SendKeys(chromedp.CSS("#org-name"), "acme"),
		chromedp.SendKeys(chromedp.CSS("#org-display-name"), "Acme Corp"),
	)
	b.submit("form[action='/dashboard/orgs'] button")
	if got := b.text("#org-acme h3"); !strings.Contains(got, "acme") || !strings.Contains(got, "owner") {
		t.Fatalf("the dashboard shows %q for acme", got)
	}
	b.do("filling the member form",
		chromedp.SendKeys(chromedp.CSS("#member-acme"), "bob"),
		chromedp.SetValue(chromedp.CSS("form[action='/dashboard/orgs/acme/members'] select"), "maintainer"),
	)
	b.submit("form[action='/dashboard/orgs/acme/members'] button")
	if got := b.text("#org-acme table"); !strings.Contains(got, "bob") || !strings.Contains(got, "maintainer") {
		t.Fatalf("the members table shows %q", got)
	}

	resp := b.open(env.URL + "/acme")
	if resp.Status != http.StatusOK {
		t.Fatalf("/acme: %d", resp.Status)
	}
	if got := b.text(".members"); !strings.Contains(got, "erin") || !strings.Contains(got, "bob") {
		t.Errorf("the organisation's page lists members %q", got)
	}
	if got := b.text("h1"); !strings.Contains(got, "Acme Corp") {
		t.Errorf("the organisation's heading is %q", got)
	}
}
