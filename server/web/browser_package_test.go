package web_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server/registry"
)

// longDoc is a document of about 12 KB: a title equal to the pack's name,
// a table with a right-aligned numeric column, code blocks and many
// paragraphs, so the versions would sit far down if they came after it.
func longDoc(version string) string {
	var b strings.Builder
	b.WriteString("# Widget guide\n\n")
	b.WriteString("| step | minutes |\n|---|---:|\n| read | 5 |\n| review | 120 |\n\n")
	b.WriteString("```sh\npact get alice/widget-guide\n```\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "## Part %d\n\nThis part explains one more thing about widgets, at some length, so that the page is long "+
			"and a reader would have to scroll a long way to reach anything placed after the document. Part %d of 40.\n\n", i+1, i+1)
	}
	b.WriteString("```yaml pact:pack\nname: Widget guide\nversion: " + version + "\nscheme: guide-v1\ndescription: Widgets, explained\n```\n")
	return b.String()
}

// publishSigned publishes doc for owner with a new ed25519 key made by
// ssh-keygen and registered first.
func publishSigned(t *testing.T, env *servertest.Env, owner *servertest.User, doc string) *registry.SSHKey {
	t.Helper()
	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	key, err := env.Service.AddSSHKey(context.Background(), owner.Account.ID, sshtest.PublicKeyLine(t, pub), "laptop")
	if err != nil {
		t.Fatal(err)
	}
	ts, nonce := env.Clock.Now().Unix(), sshsign.NewNonce()
	msg, err := sshsign.Message(ts, nonce, []byte(doc), "", "")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = env.Service.PublishSigned(context.Background(), registry.SignedPublishRequest{
		PublishRequest: registry.PublishRequest{Content: []byte(doc)},
		Timestamp:      ts, Nonce: nonce, Fingerprint: key.Fingerprint, Signature: sshtest.SignWithKeygen(t, priv, msg, sshsign.Namespace),
	})
	if err != nil {
		t.Fatalf("signed publish: %v", err)
	}
	return key
}

func screenshotDir(t *testing.T) string {
	if dir := os.Getenv("PACT_SCREENSHOTS"); dir != "" {
		return dir // to look at them after the test
	}
	return t.TempDir()
}

// box is an element's place on the page, in CSS pixels from the top left
// of the viewport.
type box struct{ Top, Bottom, Left, Right float64 }

func (b tab) box(selector string) box {
	b.t.Helper()
	return evaluate[box](b, `(() => {
		const e = document.querySelector(`+"`"+selector+"`"+`);
		if (!e) return {Top: -1, Bottom: -1, Left: -1, Right: -1};
		const r = e.getBoundingClientRect();
		return {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right};
	})()`)
}

// On a 1280×900 screen the package page shows, before any scrolling, how
// to install the version, the versions and the signature; the document's
// title is not repeated; its code blocks have copy buttons that copy the
// code; its right-aligned column stays right-aligned.
func TestBrowserPackagePageFirstScreen(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, longDoc("1.0.0"))
	env.Clock.Advance(time.Minute)
	publishDoc(t, env, alice, longDoc("1.1.0"))
	env.Clock.Advance(time.Minute)
	key := publishSigned(t, env, alice, longDoc("1.2.0"))
	b := tab{t: t, ctx: ctx}
	shots := screenshotDir(t)

	b.do("sizing the window", chromedp.EmulateViewport(1280, 900))
	b.open(env.URL + "/alice/widget-guide")
	height := evaluate[float64](b, `window.innerHeight`)
	if doc := evaluate[float64](b, `document.documentElement.scrollHeight`); doc < 3*height {
		t.Fatalf("the page is %.0f px high: too short to show that anything moved up", doc)
	}
	for _, sel := range []string{"#install", "#install-pact", "#verify-cmd", ".versions h2", ".versions tbody tr:first-child"} {
		if r := b.box(sel); r.Top < 0 || r.Bottom > height {
			t.Errorf("%s is at %.0f-%.0f px, outside the first screen (0-%.0f)", sel, r.Top, r.Bottom, height)
		}
	}
	if r := b.box(".versions table"); r.Top < 0 || r.Top > height/2 {
		t.Errorf("the versions table starts at %.0f px, want it in the upper half of the first screen", r.Top)
	}
	side, doc := b.box(".package-side"), b.box(".document")
	if side.Left < doc.Right {
		t.Errorf("at 1280 px the install and versions (left %.0f) are not beside the document (right %.0f)", side.Left, doc.Right)
	}
	if v := b.text("#install-pact"); v != "pact get --host "+env.URL+" alice/widget-guide" {
		t.Errorf("pact get line %q", v)
	}
	if v := b.text("#verify-cmd"); v != "pact verify --host "+env.URL+" alice/widget-guide@1.2.0" {
		t.Errorf("verify line %q", v)
	}
	if mark := b.text(".facts .verified"); !strings.Contains(mark, "Verified") {
		t.Errorf("the signed version's mark is %q", mark)
	}
	if title := evaluate[string](b, `document.querySelector(".facts .verified").title`); !strings.Contains(title, key.Fingerprint) {
		t.Errorf("the Verified mark's title %q does not name the key", title)
	}
	if n := evaluate[int](b, `document.querySelectorAll(".versions tbody .verified").length`); n != 1 {
		t.Errorf("%d versions marked as verified, want the one signed", n)
	}
	if h := evaluate[[]string](b, `Array.from(document.querySelectorAll("h1")).map(h => h.textContent)`); len(h) != 1 {
		t.Errorf("headings %q: the title is shown more than once", h)
	}
	if align := evaluate[[]string](b, `Array.from(document.querySelectorAll(".document table tr > :nth-child(2)")).map(c => getComputedStyle(c).textAlign)`); len(align) != 3 || align[0] != "right" || align[2] != "right" {
		t.Errorf("the numeric column is aligned %q, want right", align)
	}

	// Every code block of the document has a copy button that copies it.
	counts := evaluate[map[string]int](b, `({pre: document.querySelectorAll(".document pre").length, buttons: document.querySelectorAll(".document .code-box > button.code-copy:not([hidden])").length})`)
	if counts["pre"] != 2 || counts["buttons"] != counts["pre"] {
		t.Errorf("code blocks and their copy buttons: %v", counts)
	}
	if copied := b.copied(env.URL, ".document .code-copy"); copied != "pact get alice/widget-guide\n" {
		t.Errorf("the code block's button copied %q", copied)
	}
	b.do("copying the pact get line", chromedp.Click(chromedp.CSS("button[data-copy='install-pact']")),
		chromedp.Poll[chromedp.Void](`document.querySelector("button[data-copy='install-pact']").textContent === "Copied"`))
	if copied := evaluate[string](b, `navigator.clipboard.readText()`, chromedp.EvalAwaitPromise); copied != "pact get --host "+env.URL+" alice/widget-guide" {
		t.Errorf("the pact get button copied %q", copied)
	}
	b.screenshot(shots, "package-first-screen")

	// An old version says so at the top, and its lines name it.
	b.open(env.URL + "/alice/widget-guide@1.0.0")
	if r := b.box(".banner.old-version"); r.Top < 0 || r.Bottom > height {
		t.Errorf("the old-version banner is at %.0f-%.0f px, outside the first screen", r.Top, r.Bottom)
	}
	if banner := b.text(".banner.old-version"); !strings.Contains(banner, "latest version is 1.2.0") {
		t.Errorf("old-version banner %q", banner)
	}
	if v := b.text("#install-pact"); v != "pact get --host "+env.URL+" alice/widget-guide@1.0.0" {
		t.Errorf("pact get line of 1.0.0: %q", v)
	}
	if n := evaluate[int](b, `document.querySelectorAll(".facts .verified").length`); n != 0 {
		t.Errorf("version 1.0.0, published with a token, is marked verified")
	}

	// On a phone the same block comes first, above the document.
	b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	b.open(env.URL + "/alice/widget-guide")
	if install, doc := b.box("#install"), b.box(".document"); install.Bottom > doc.Top || install.Bottom > 844 {
		t.Errorf("on a phone the install block (%.0f-%.0f) is not above the document (top %.0f) on the first screen", install.Top, install.Bottom, doc.Top)
	}
	if wide := evaluate[bool](b, `document.documentElement.scrollWidth > document.documentElement.clientWidth`); wide {
		t.Errorf("the package page scrolls sideways on a 390px screen; sticking out: %q", evaluate[[]string](b, overflowing))
	}
	b.screenshot(shots, "package-first-screen-phone")
}

// A document's https image is shown, fetched without a Referer; its http
// image and its data: and javascript: tricks are not fetched at all.
func TestBrowserDocumentImages(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 45*time.Second, chromedp.Flag("ignore-certificate-errors", true))
	var mu sync.Mutex
	var seen []string // "host path referer"
	record := func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Host+" "+r.URL.Path+" referer="+r.Header.Get("Referer"))
	}
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for x := range 40 {
		for y := range 20 {
			img.Set(x, y, color.RGBA{R: 200, A: 255})
		}
	}
	serveImage := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		w.Header().Set("Content-Type", "image/png")
		_ = png.Encode(w, img)
	})
	secure := httptest.NewTLSServer(serveImage)
	defer secure.Close()
	plain := httptest.NewServer(serveImage)
	defer plain.Close()

	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, "# Pictures\n\n"+
		"![a red box]("+secure.URL+"/box.png)\n\n"+
		"![plain box]("+plain.URL+"/plain.png)\n\n"+
		"![inline](data:image/png;base64,iVBORw0KGgo=)\n\n"+
		"![script](javascript:alert(1))\n\n"+
		"<img src=\""+plain.URL+"/raw-html.png\">\n\n"+
		"```yaml pact:pack\nname: pictures\nversion: 1.0.0\n```\n")
	b := tab{t: t, ctx: ctx}
	b.open(env.URL + "/alice/pictures")
	b.do("waiting for the https image", chromedp.Poll[chromedp.Void](`(() => {
		const i = document.querySelector(".document img");
		return i && i.complete && i.naturalWidth === 40;
	})()`, chromedp.WithPollingTimeout(10*time.Second)))
	b.do("letting anything else load", chromedp.Sleep(300*time.Millisecond))

	imgs := evaluate[[]string](b, `Array.from(document.querySelectorAll(".document img")).map(i => i.getAttribute("src") + " " + i.loading + " " + i.referrerPolicy)`)
	if len(imgs) != 1 || imgs[0] != secure.URL+"/box.png lazy no-referrer" {
		t.Errorf("images in the document: %q, want only the https one, lazy and without referrer", imgs)
	}
	if link := evaluate[string](b, `(document.querySelector(".document a[href$='/plain.png']") || {}).textContent || ""`); link != "plain box" {
		t.Errorf("the http image is not a link named by its alt text: %q", link)
	}
	mu.Lock()
	defer mu.Unlock()
	secureHost := strings.TrimPrefix(secure.URL, "https://")
	if len(seen) != 1 || seen[0] != secureHost+" /box.png referer=" {
		t.Errorf("image requests %q, want one for the https image, without a Referer", seen)
	}
}

// In a browser that prefers a dark scheme the pages are dark, with light
// text; in one that prefers light they are light.
func TestBrowserDarkMode(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 45*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, longDoc("1.0.0"))
	b := tab{t: t, ctx: ctx}
	shots := screenshotDir(t)
	// luminance of a computed CSS colour, 0 (black) to 255 (white).
	const luminance = `(sel, prop) => {
		const c = getComputedStyle(document.querySelector(sel))[prop].match(/[\d.]+/g).map(Number);
		return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
	}`
	for _, scheme := range []string{"dark", "light"} {
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		}); err != nil {
			t.Fatalf("preferring %s: %v", scheme, err)
		}
		for _, path := range []string{"/alice/widget-guide", "/login", "/docs"} {
			b.open(env.URL + path)
			got := evaluate[map[string]float64](b, `(() => { const l = `+luminance+`; return {
				body: l("body", "backgroundColor"), text: l("body", "color"),
				input: l("input", "backgroundColor"),
			}; })()`)
			dark := got["body"] < 60 && got["text"] > 180 && got["input"] < 60
			light := got["body"] > 200 && got["text"] < 80 && got["input"] > 200
			if scheme == "dark" && !dark || scheme == "light" && !light {
				t.Errorf("%s preferring %s: luminance of background, text and inputs %v", path, scheme, got)
			}
		}
		if scheme == "dark" {
			b.open(env.URL + "/alice/widget-guide")
			if code := evaluate[float64](b, `(`+luminance+`)(".document pre", "backgroundColor")`); code > 80 {
				t.Errorf("code blocks in the dark: background luminance %.0f", code)
			}
			b.screenshot(shots, "package-dark")
		}
	}
}

// The dashboard on a 390 px phone: every button is on screen, the new
// token's box shows the pact login line, and Revoke and Delete ask first.
func TestBrowserDashboardOnAPhone(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	_, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	if _, err := env.Service.AddSSHKey(context.Background(), alice.Account.ID, sshtest.PublicKeyLine(t, pub), "a key with a rather long name for a phone"); err != nil {
		t.Fatal(err)
	}
	b := tab{t: t, ctx: ctx}
	b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	b.logInWithPassword(env.URL, "alice", alice.Password)
	b.open(env.URL + "/dashboard/tokens")
	b.do("naming a token", chromedp.SendKeys(chromedp.CSS("#token-name"), "phone"))
	b.submit("form[action='/dashboard/tokens'] button")
	secret := b.value("#new-token")
	if line := b.value("#login-command"); line != "pact login --host "+env.URL+" --token "+secret {
		t.Errorf("the new token's box shows %q, want the pact login line", line)
	}

	const offScreen = `Array.from(document.querySelectorAll("button, input, select, textarea")).filter(e => {
		const r = e.getBoundingClientRect();
		if (r.width === 0 && r.height === 0) return false; // not shown
		return r.left < 0 || r.right > document.documentElement.clientWidth;
	}).map(e => e.outerHTML.slice(0, 100))`
	onScreen := func(buttons string, want int) {
		t.Helper()
		if n := evaluate[int](b, `document.querySelectorAll("`+buttons+`").length`); n != want {
			t.Fatalf("%s: %d buttons %s, want %d", b.location(), n, buttons, want)
		}
		if out := evaluate[[]string](b, offScreen); len(out) > 0 {
			t.Errorf("%s: on a 390 px screen these are (partly) off screen: %q", b.location(), out)
		}
		if wide := evaluate[bool](b, `document.documentElement.scrollWidth > document.documentElement.clientWidth`); wide {
			t.Errorf("%s scrolls sideways on a 390px screen; sticking out: %q", b.location(), evaluate[[]string](b, overflowing))
		}
	}
	onScreen("form[action$='/revoke'] button", 2) // the new token and the one CreateUser made
	b.screenshot(screenshotDir(t), "dashboard-tokens-phone")
	b.open(env.URL + "/dashboard/keys")
	onScreen("form[action$='/delete'] button", 1)
	b.screenshot(screenshotDir(t), "dashboard-keys-phone")

	// Delete asks first; Cancel keeps the key.
	b.submit("form[action$='/delete'] button")
	if q := b.text("main h1"); q != "Delete the SSH key “a key with a rather long name for a phone”?" {
		t.Errorf("Delete leads to %q", q)
	}
	if out := evaluate[[]string](b, offScreen); len(out) > 0 {
		t.Errorf("the confirmation page on a phone has these off screen: %q", out)
	}
	b.do("cancelling", chromedp.Click(chromedp.CSS(".confirm-actions a")), chromedp.WaitVisible(chromedp.CSS("#keys")))
	if keys, err := env.Service.ListSSHKeys(context.Background(), alice.Account.ID); err != nil || len(keys) != 1 {
		t.Fatalf("after cancelling, alice has %d keys (%v)", len(keys), err)
	}
	b.submit("form[action$='/delete'] button")
	b.submit(".confirm-actions button")
	if notice := b.text(".notice"); !strings.Contains(notice, "deleted") {
		t.Errorf("notice after deleting: %q", notice)
	}
	if keys, err := env.Service.ListSSHKeys(context.Background(), alice.Account.ID); err != nil || len(keys) != 0 {
		t.Errorf("after confirming, alice has %d keys (%v)", len(keys), err)
	}
}

// copyLines reads the package page's copyable lines (install with curl,
// with pact, verify): their text, whether the box cuts any of it off, and
// whether the box stays on screen.
const copyLines = `["#install", "#install-pact", "#verify-cmd"].map(sel => {
	const e = document.querySelector(sel);
	if (!e) return {sel, missing: true};
	const r = e.getBoundingClientRect();
	return {sel, text: e.value !== undefined ? e.value : e.textContent,
		cut: e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1,
		offScreen: r.left < 0 || r.right > document.documentElement.clientWidth};
})`

type copyLine struct {
	Sel       string
	Missing   bool
	Text      string
	Cut       bool
	OffScreen bool
}

// The package page is as wide as the other pages; its install and verify
// lines show their whole text, on a phone and a desktop; the dates of its
// versions stay on one line on a phone; and a deprecation that names
// another package links to it, whatever else its text holds.
func TestBrowserPackagePageFitsAndLinks(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	// A long pre-release, yanked, and a signed version make the versions'
	// columns as wide as they get.
	for _, v := range []string{"1.0.0", "1.1.0-beta.1234567"} {
		publishDoc(t, env, alice, longDoc(v))
		env.Clock.Advance(time.Minute)
	}
	if _, _, err := env.Service.YankVersion(context.Background(), alice.Account, "alice", "widget-guide", "1.1.0-beta.1234567", "broken"); err != nil {
		t.Fatal(err)
	}
	publishSigned(t, env, alice, longDoc("1.2.0"))
	publishDoc(t, env, alice, packDoc("other", "1.0.0"))
	const message = `use alice/other instead ("alice/other"), not bob/nothing and/or alice/other/x; ` +
		`see https://example.com/alice/other <script>window.pwned=1</script><a href="javascript:alert(1)">x</a> & <b>`
	if _, err := env.Service.DeprecatePackage(context.Background(), alice.Account, "alice", "widget-guide", message); err != nil {
		t.Fatal(err)
	}
	b := tab{t: t, ctx: ctx}
	want := map[string]string{
		"#install":      "curl -fsSL " + env.URL + "/raw/alice/widget-guide.pact.md -o widget-guide.pact.md",
		"#install-pact": "pact get --host " + env.URL + " alice/widget-guide",
		"#verify-cmd":   "pact verify --host " + env.URL + " alice/widget-guide@1.2.0",
	}

	b.do("sizing the window", chromedp.EmulateViewport(1280, 900))
	widths := map[string]box{}
	for _, path := range []string{"/", "/docs", "/alice", "/alice/widget-guide"} {
		b.open(env.URL + path)
		widths[path] = b.box("main")
		if nav, main := b.box(".site-nav"), widths[path]; math.Abs(nav.Left-main.Left) > 0.5 || math.Abs(nav.Right-main.Right) > 0.5 {
			t.Errorf("%s: the header (%.0f-%.0f) is not as wide as the page (%.0f-%.0f)", path, nav.Left, nav.Right, main.Left, main.Right)
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.5 }
	for path, w := range widths {
		if home := widths["/"]; !near(w.Left, home.Left) || !near(w.Right, home.Right) {
			t.Errorf("at 1280 px %s spans %.0f-%.0f px, the home page %.0f-%.0f", path, w.Left, w.Right, widths["/"].Left, widths["/"].Right)
		}
	}

	for _, phone := range []bool{false, true} {
		size := "desktop"
		if phone {
			size = "phone"
			b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
		}
		b.open(env.URL + "/alice/widget-guide")
		for _, line := range evaluate[[]copyLine](b, copyLines) {
			switch {
			case line.Missing:
				t.Errorf("%s: %s is missing", size, line.Sel)
			case line.Text != want[line.Sel]:
				t.Errorf("%s: %s says %q, want %q", size, line.Sel, line.Text, want[line.Sel])
			case line.Cut || line.OffScreen:
				t.Errorf("%s: %s does not show its whole line (cut %v, off screen %v)", size, line.Sel, line.Cut, line.OffScreen)
			}
		}
		if wrapped := evaluate[[]string](b, `Array.from(document.querySelectorAll(".versions tbody time")).filter(e => e.getClientRects().length > 1).map(e => e.textContent)`); len(wrapped) > 0 {
			t.Errorf("%s: these dates of the versions wrap: %q", size, wrapped)
		}
		if n := evaluate[int](b, `document.querySelectorAll(".versions tbody time").length`); n != 3 {
			t.Errorf("%s: %d dates in the versions table, want 3", size, n)
		}
	}
	b.screenshot(screenshotDir(t), "package-deprecated-phone")

	banner := evaluate[map[string]any](b, `(() => {
		const b = document.querySelector(".banner.deprecated");
		return {
			text: b.textContent,
			links: Array.from(b.querySelectorAll("a")).map(a => a.getAttribute("href") + " " + a.textContent),
			elements: Array.from(b.querySelectorAll("*")).map(e => e.tagName.toLowerCase()),
			pwned: typeof window.pwned !== "undefined",
		};
	})()`)
	if text, _ := banner["text"].(string); text != "This package is deprecated: "+message {
		t.Errorf("the banner says %q, want the message as it was written", text)
	}
	if links := fmt.Sprint(banner["links"]); links != "[/alice/other alice/other /alice/other alice/other]" {
		t.Errorf("the banner's links: %s, want the two mentions of alice/other", links)
	}
	if elements := fmt.Sprint(banner["elements"]); elements != "[strong a a]" {
		t.Errorf("the banner holds the elements %s", elements)
	}
	if banner["pwned"] == true {
		t.Errorf("the deprecation's script ran")
	}
	b.do("following the link", chromedp.Click(chromedp.CSS(".banner.deprecated a")), chromedp.WaitVisible(chromedp.CSS(".package")))
	if loc := b.location(); loc != env.URL+"/alice/other" {
		t.Errorf("the deprecation's link leads to %s", loc)
	}
}
