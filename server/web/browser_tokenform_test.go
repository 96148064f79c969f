package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
)

// scopeBoxes measures each scope of the token form: the checkbox's box
// and the box of the first line of its label's text.
const scopeBoxes = `Array.from(document.querySelectorAll(".token-scopes label")).map(label => {
	const input = label.querySelector("input[type=checkbox]");
	const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT, {acceptNode: n => n.textContent.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP});
	const range = document.createRange();
	const first = walker.nextNode();
	let last = first;
	for (let n = first; n; n = walker.nextNode()) last = n;
	range.setStart(first, 0);
	range.setEnd(last, last.textContent.length);
	const box = input.getBoundingClientRect(), line = range.getClientRects()[0];
	return {Label: label.textContent.trim(), Box: {Top: box.top, Bottom: box.bottom, Left: box.left, Right: box.right},
		Text: {Top: line.top, Bottom: line.bottom, Left: line.left, Right: line.right}};
})`

type scopeBox struct {
	Label     string
	Box, Text box
}

// On a 390 px phone, as on a desktop, each scope's checkbox on the token
// form sits beside its label, on the label's first line, not above it.
func TestBrowserTokenScopesBesideTheirLabels(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 45*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	b := tab{t: t, ctx: ctx}
	b.logInWithPassword(env.URL, "alice", alice.Password)
	for _, size := range []struct {
		name          string
		width, height int64
		opts          []chromedp.EmulateViewportOption
	}{
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch}},
		{"desktop", 1280, 900, nil},
	} {
		b.do("emulating a "+size.name, chromedp.EmulateViewport(size.width, size.height, size.opts...))
		b.open(env.URL + "/dashboard/tokens")
		scopes := evaluate[[]scopeBox](b, scopeBoxes)
		if len(scopes) != 5 {
			t.Fatalf("%s: the token form offers %d scopes, want 5: %+v", size.name, len(scopes), scopes)
		}
		for _, sc := range scopes {
			middle := (sc.Box.Top + sc.Box.Bottom) / 2
			beside := sc.Box.Right <= sc.Text.Left && sc.Text.Left-sc.Box.Right < 16
			if middle < sc.Text.Top || middle > sc.Text.Bottom || !beside {
				t.Errorf("%s at %d px: the checkbox spans %.0f-%.0f px across and %.0f-%.0f px down, its text's first line %.0f-%.0f across and %.0f-%.0f down: not beside it on one line",
					sc.Label, size.width, sc.Box.Left, sc.Box.Right, sc.Box.Top, sc.Box.Bottom, sc.Text.Left, sc.Text.Right, sc.Text.Top, sc.Text.Bottom)
			}
		}
		b.screenshot(screenshotDir(t), "token-form-"+size.name)
	}
}
