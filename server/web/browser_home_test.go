package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
)

// startLines reads the home page's three lines for a newcomer: their text,
// and whether each shows all of it on screen.
const startLines = `Array.from(document.querySelectorAll(".get-started .copy-text")).map(e => {
	const r = e.getBoundingClientRect();
	return {id: e.id, text: e.textContent,
		cut: e.scrollWidth > e.clientWidth + 1 || r.left < 0 || r.right > document.documentElement.clientWidth,
		button: !!document.querySelector("button[data-copy='" + e.id + "']:not([hidden])")};
})`

type startLine struct {
	ID     string
	Text   string
	Cut    bool
	Button bool
}

// The home page tells a newcomer how to start in three lines, each with a
// copy button that copies it, whole on a phone too, and says how many
// packages and versions the registry holds.
func TestBrowserHomeGetStarted(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 45*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, packDoc("one", "1.0.0"))
	publishDoc(t, env, alice, packDoc("one", "1.1.0"))
	publishDoc(t, env, alice, packDoc("two", "1.0.0"))
	b := tab{t: t, ctx: ctx}
	want := []startLine{
		{ID: "start-install", Text: "go install github.com/pact-registry/pact/cmd/pact@latest"},
		{ID: "start-login", Text: "pact login --host " + env.URL},
		{ID: "start-publish", Text: "pact publish my-pack.pact.md"},
	}

	for _, phone := range []bool{false, true} {
		size := "desktop"
		if phone {
			size = "phone"
			b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
		}
		b.open(env.URL + "/")
		got := evaluate[[]startLine](b, startLines)
		if len(got) != len(want) {
			t.Fatalf("%s: the home page has %d lines to start with, want %d: %+v", size, len(got), len(want), got)
		}
		for i, line := range got {
			if line.ID != want[i].ID || line.Text != want[i].Text {
				t.Errorf("%s: line %d is %s %q, want %s %q", size, i+1, line.ID, line.Text, want[i].ID, want[i].Text)
			}
			if line.Cut || !line.Button {
				t.Errorf("%s: %s is cut (%v) or has no copy button (%v)", size, line.ID, line.Cut, !line.Button)
			}
		}
		// pact login goes through the browser: no token to paste.
		if label := evaluate[string](b, `document.querySelectorAll(".get-started .copy-label")[1].textContent`); label !=
			"Log in (pact shows a code that you approve in your browser on this site: no token to copy; no account yet? sign up)" {
			t.Errorf("%s: the log-in line's label reads %q", size, label)
		}
		if counts := b.text(".registry-counts"); counts != "2 packages, 3 versions" {
			t.Errorf("%s: the home page says %q, want 2 packages, 3 versions", size, counts)
		}
		b.screenshot(screenshotDir(t), "home-"+size)
	}

	if copied := b.copied(env.URL, "button[data-copy='start-login']"); copied != "pact login --host "+env.URL {
		t.Errorf("the log-in line's button copied %q", copied)
	}

	// A search has no room for them.
	b.open(env.URL + "/?q=one")
	if n := evaluate[int](b, `document.querySelectorAll(".get-started, .registry-counts").length`); n != 0 {
		t.Errorf("a search's page shows the start lines or the counts")
	}
}

// A page that does not exist offers a search for the words of its path,
// as a form and a link, and the form leads to that search.
func TestBrowserNotFoundOffersASearch(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 45*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, packDoc("widget-thing", "1.0.0"))
	b := tab{t: t, ctx: ctx}

	for path, words := range map[string]string{
		"/nosuch/widget-thing":                     "nosuch widget thing",
		"/alice/widget-thing@9.9.9":                "alice widget thing",
		"/nobody":                                  "nobody",
		"/a/%3Cscript%3Ealert(1)%3C%2Fscript%3E_b": "a script alert b",
	} {
		resp := b.open(env.URL + path)
		if resp.Status != 404 {
			t.Errorf("%s: status %d, want 404", path, resp.Status)
		}
		got := evaluate[map[string]any](b, `(() => {
			const f = document.querySelector("main form[action='/'][method='get']");
			const a = document.querySelector("main a.search-link");
			return {
				value: f ? f.querySelector("input[name=q]").value : null,
				link: a ? a.getAttribute("href") : null,
				scripts: document.querySelectorAll("main script").length,
			};
		})()`)
		if got["value"] != words {
			t.Errorf("%s: the search form holds %v, want %q", path, got["value"], words)
		}
		if want := "/?q=" + strings.ReplaceAll(words, " ", "+"); got["link"] != want {
			t.Errorf("%s: the search link is %v, want %s", path, got["link"], want)
		}
		if n, _ := got["scripts"].(float64); n != 0 {
			t.Errorf("%s: the page holds a script", path)
		}
	}

	b.open(env.URL + "/nosuch/widget-thing")
	b.submit("main form[action='/'] button[type=submit]")
	if loc := b.location(); loc != env.URL+"/?q=nosuch+widget+thing" {
		t.Errorf("the form leads to %s", loc)
	}
	if h := b.text("main h1"); h != "Packages matching “nosuch widget thing”" {
		t.Errorf("the search page is headed %q", h)
	}
}
