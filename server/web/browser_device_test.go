package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

// tickedScopes reads which scope boxes the page ticks.
const tickedScopes = `Array.from(document.querySelectorAll("input[name=scope]:checked")).map(e => e.value).join(" ")`

// In Chromium: the approval page of a login of the command line ticks the
// scopes pact login asked for (--scope) and no other; a login that asked
// for none ticks none, and Approve with no box ticked is refused on the
// page, nothing approved, until the user ticks one.
func TestBrowserDeviceLoginScopes(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	b := tab{t: t, ctx: ctx}
	b.logInWithPassword(env.URL, "alice", alice.Password)
	begin := func(scopes ...string) *registry.DeviceStart {
		t.Helper()
		start, err := env.Service.StartDeviceLogin(context.Background(), "pact login on laptop", scopes,
			registry.SessionClient{UserAgent: "pact/1.2.3", IP: "192.0.2.7"})
		if err != nil {
			t.Fatal(err)
		}
		return start
	}
	collect := func(start *registry.DeviceStart) (*registry.Token, error) {
		t.Helper()
		_, tok, err := env.Service.ExchangeDeviceCode(context.Background(), start.DeviceCode)
		return tok, err
	}

	// Asked for publish and yank: those two are ticked, and approving as
	// offered grants them.
	asked := begin("yank", "publish")
	b.open(env.URL + "/login/device?code=" + asked.UserCode)
	b.submit("form[action='/login/device'] button[type=submit]")
	if title, h1 := evaluate[string](b, `document.title`), b.text("main h1"); !strings.HasPrefix(title, "Log in from the command line") ||
		h1 != "Log in from the command line" {
		t.Errorf("title %q, heading %q; want Log in from the command line", title, h1)
	}
	if got := evaluate[string](b, tickedScopes); got != "publish yank" {
		t.Errorf("a login asking for publish and yank: ticked %q", got)
	}
	if got := b.text("#device-scopes-asked"); got != "publish, yank" {
		t.Errorf("the page says the scopes asked for are %q", got)
	}
	b.screenshot(screenshotDir(t), "device-asked")
	b.submit("button[name=decision][value=approve]")
	if loc := b.location(); loc != env.URL+"/login/device?done=approved" {
		t.Fatalf("after Approve the browser is at %s", loc)
	}
	tok, err := collect(asked)
	if err != nil || fmt.Sprint(tok.Scopes) != "[publish yank]" {
		t.Fatalf("the token collected: %+v, %v; want the scopes publish and yank", tok, err)
	}

	// Asked for none: none ticked, and Approve as offered is refused.
	plain := begin()
	b.open(env.URL + "/login/device?code=" + plain.UserCode)
	b.submit("form[action='/login/device'] button[type=submit]")
	if got := evaluate[string](b, tickedScopes); got != "" {
		t.Errorf("a login asking for no scope: ticked %q, want none", got)
	}
	if got := b.text("#device-scopes-asked"); got != "none: tick what it may do" {
		t.Errorf("the page says the scopes asked for are %q", got)
	}
	if legend := b.text(".token-scopes legend"); legend != "Scopes (tick at least one)" {
		t.Errorf("the scopes' legend reads %q", legend)
	}
	resp := b.submit("button[name=decision][value=approve]")
	if resp.Status != 400 {
		t.Fatalf("Approve with no scope: status %d, want 400 (at %s)", resp.Status, b.location())
	}
	if alert := b.text("[role=alert]"); alert != registry.ErrNoDeviceScope.Message {
		t.Errorf("Approve with no scope: the page says %q, want %q", alert, registry.ErrNoDeviceScope.Message)
	}
	b.screenshot(screenshotDir(t), "device-no-scope")
	if _, err := env.Service.PendingDeviceLogin(context.Background(), plain.UserCode); err != nil {
		t.Fatalf("after a refused Approve the login no longer waits: %v", err)
	}
	if _, err := collect(plain); !registry.IsCode(err, registry.Invalid) || !strings.Contains(err.Error(), "waits for its approval") {
		t.Fatalf("polling after a refused Approve: %v, want authorization_pending", err)
	}

	// Ticking one on the same page approves with it.
	b.do("ticking keys", chromedp.Click(chromedp.CSS("input[name=scope][value=keys]")))
	b.submit("button[name=decision][value=approve]")
	if loc := b.location(); loc != env.URL+"/login/device?done=approved" {
		t.Fatalf("after ticking keys and Approve the browser is at %s", loc)
	}
	env.Clock.Advance(registry.DevicePollInterval)
	if tok, err := collect(plain); err != nil || fmt.Sprint(tok.Scopes) != "[keys]" {
		t.Fatalf("the token collected: %+v, %v; want the keys scope", tok, err)
	}
}
