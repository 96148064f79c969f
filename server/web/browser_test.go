package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/internal/storetest"
)

// The browser tests drive Debian's chromium headless through the pages a
// person uses. Chromium is found at /usr/bin/chromium (or $PACT_CHROMIUM).
// Without it the tests skip, except in CI, where they must run.

const chromiumPath = "/usr/bin/chromium"

func requireChromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("PACT_CHROMIUM")
	if path == "" {
		path = chromiumPath
	}
	if _, err := exec.LookPath(path); err != nil {
		storetest.SkipMissing(t, "Chromium", "apt-get install chromium, or set PACT_CHROMIUM to a Chromium",
			"skipping browser test: "+path+" not found")
	}
	return path
}

// newBrowser opens a tab for one test and returns its context. The tab
// lives in a browser context of its own (an incognito profile: its own
// cookies, storage and permissions) in the one headless Chromium that the
// test process shares (sharedChromium); a test that passes extra flags
// gets a Chromium of its own. timeout is what the test takes on a quiet
// machine, with room; everything it does must fit in four times that, a
// guard against a browser that hangs rather than a measure: in a
// whole-suite run on a machine busy with other work (load 12–20 on two
// cores), screenshots and form posts passed 45 and 90 s budgets.
func newBrowser(t *testing.T, timeout time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	timeout *= 4
	path := requireChromium(t)
	var tabCtx context.Context
	var cancelTab context.CancelFunc
	if len(extra) == 0 {
		browserCtx, err := sharedChromium.get(path)
		if err != nil {
			t.Fatalf("starting chromium: %v", err)
		}
		tabCtx, cancelTab = chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	} else {
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromiumOptions(path, t.TempDir()), extra...)...)
		t.Cleanup(cancelAlloc)
		tabCtx, cancelTab = chromedp.NewContext(allocCtx)
	}
	ctx, cancelTimeout := context.WithTimeout(tabCtx, timeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancelTab()
	})
	// A new tab's viewport is the browser's window; the tests' own sizes
	// start from the desktop one.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("opening a tab in chromium: %v", err)
	}
	return ctx
}

// chromiumOptions are the flags every test's Chromium runs with.
func chromiumOptions(path, userDataDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true), // root in a container has no user namespaces
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(userDataDir),
		chromedp.WindowSize(1280, 900),
	}
}

// sharedChromium is the one Chromium of the test process, started by the
// first browser test and stopped by TestMain: a Chromium costs about two
// seconds of CPU to start and stop, and each test's tab gets a browser
// context of its own in it.
var sharedChromium chromiumProcess

type chromiumProcess struct {
	mu      sync.Mutex
	ctx     context.Context // the browser's, once started
	err     error
	cancel  []context.CancelFunc
	dataDir string
}

// get starts the Chromium on first use and returns its context, from which
// tabs are opened.
func (c *chromiumProcess) get(path string) (context.Context, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx != nil || c.err != nil {
		return c.ctx, c.err
	}
	if c.dataDir, c.err = os.MkdirTemp("", "pact-chromium-"); c.err != nil {
		return nil, c.err
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(path, c.dataDir)...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	c.cancel = []context.CancelFunc{cancelBrowser, cancelAlloc}
	if c.err = chromedp.Do(browserCtx); c.err != nil {
		return nil, c.err
	}
	c.ctx = browserCtx
	return c.ctx, nil
}

// close stops the Chromium, if it was started, and removes its profile.
func (c *chromiumProcess) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cancel := range c.cancel {
		cancel()
	}
	if c.dataDir != "" {
		os.RemoveAll(c.dataDir)
	}
}

// clipboard is held by a test between copying into Chromium's clipboard
// and reading it back: the shared Chromium has one clipboard for all its
// tabs.
var clipboard sync.Mutex

// copied clicks the copy button of selector on the tab's page at origin,
// waits for it to say so, and returns what the clipboard then holds.
func (b tab) copied(origin, selector string) string {
	b.t.Helper()
	if _, err := chromedp.CallBrowser(b.ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "clipboard-read"}, Setting: "granted", Origin: origin,
		BrowserContextID: chromedp.FromContext(b.ctx).BrowserContextID,
	}); err != nil {
		b.t.Fatalf("granting clipboard-read: %v", err)
	}
	clipboard.Lock()
	defer clipboard.Unlock()
	b.do("copying with "+selector, chromedp.Click(chromedp.CSS(selector)),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).textContent === "Copied"`, selector)))
	return evaluate[string](b, `navigator.clipboard.readText()`, chromedp.EvalAwaitPromise)
}

// tab wraps a chromedp tab with test-failing helpers.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func (b tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// submit clicks a submit button and waits for the page it leads to.
func (b tab) submit(selector string) *network.Response {
	b.t.Helper()
	resp, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(selector)))
	if err != nil {
		b.t.Fatalf("submitting with %s: %v", selector, err)
	}
	return resp
}

func (b tab) open(url string) *network.Response {
	b.t.Helper()
	resp, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(url))
	if err != nil {
		b.t.Fatalf("opening %s: %v", url, err)
	}
	return resp
}

func (b tab) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return loc
}

func (b tab) text(selector string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(selector)))
	if err != nil {
		b.t.Fatalf("reading %s: %v", selector, err)
	}
	return s
}

func (b tab) value(selector string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Value(chromedp.CSS(selector)))
	if err != nil {
		b.t.Fatalf("reading %s: %v", selector, err)
	}
	return s
}

func evaluate[T any](b tab, js string, opts ...chromedp.EvaluateOption) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// screenshot saves the whole page as PNG under dir and checks that it is
// not blank: a rendered page has text, borders and colours, so many
// distinct colours, and no single colour covers nearly all of it.
func (b tab) screenshot(dir, name string) string {
	b.t.Helper()
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	file := filepath.Join(dir, name+".png")
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	checkNotBlank(b.t, file)
	return file
}

func checkNotBlank(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", file, err)
	}
	if why := blank(img); why != "" {
		t.Errorf("%s looks blank: %s", file, why)
	}
}

// blank says why img looks like a blank page (too small, too few colours,
// or one colour nearly everywhere), or nothing when it does not.
func blank(img image.Image) string {
	bounds := img.Bounds()
	// Every other pixel of every other row, read from the pixels' bytes
	// when Chromium's PNG decodes to 8-bit RGBA (it does): img.At makes a
	// colour value per pixel, which under the race detector cost a few
	// percent of the pages' tests' CPU.
	pixel := func(x, y int) [4]uint32 {
		r, g, b, a := img.At(x, y).RGBA()
		return [4]uint32{r >> 8, g >> 8, b >> 8, a >> 8}
	}
	var pix []byte
	var stride int
	switch m := img.(type) {
	case *image.NRGBA:
		pix, stride = m.Pix, m.Stride
	case *image.RGBA:
		pix, stride = m.Pix, m.Stride
	}
	if pix != nil {
		pixel = func(x, y int) [4]uint32 {
			i := (y-bounds.Min.Y)*stride + (x-bounds.Min.X)*4
			return [4]uint32{uint32(pix[i]), uint32(pix[i+1]), uint32(pix[i+2]), uint32(pix[i+3])}
		}
	}
	counts := map[[4]uint32]int{}
	total := 0
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 2 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 2 {
			counts[pixel(x, y)]++
			total++
		}
	}
	most := 0
	for _, n := range counts {
		most = max(most, n)
	}
	if bounds.Dx() < 300 || bounds.Dy() < 300 || len(counts) < 32 || most*100 > total*97 {
		return fmt.Sprintf("%dx%d, %d colours, the commonest covers %d%%",
			bounds.Dx(), bounds.Dy(), len(counts), most*100/max(total, 1))
	}
	return ""
}

// The blank-page check sees a blank page as blank whichever way the PNG
// decodes (8-bit RGBA or NRGBA read from their bytes, or another model
// through At), and a page of many colours as not blank.
func TestBlankPageCheck(t *testing.T) {
	t.Parallel()
	r := image.Rect(0, 0, 400, 400)
	white := map[string]draw.Image{"NRGBA": image.NewNRGBA(r), "RGBA": image.NewRGBA(r), "RGBA64": image.NewRGBA64(r)}
	for name, img := range white {
		draw.Draw(img, r, image.White, image.Point{}, draw.Src)
		if blank(img) == "" {
			t.Errorf("a white %s page is not seen as blank", name)
		}
		// Stripes of 200 colours across, then down: a check that misreads
		// a column or a row sees one colour.
		for _, stripe := range []func(x, y int) int{func(x, _ int) int { return x }, func(_, y int) int { return y }} {
			for y := range 400 {
				for x := range 400 {
					v := uint8(stripe(x, y) / 2)
					img.Set(x, y, color.NRGBA{v, 255 - v, v / 2, 255})
				}
			}
			if why := blank(img); why != "" {
				t.Errorf("a %s page of many colours is seen as blank: %s", name, why)
			}
		}
	}
}

func TestBrowserJourney(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	b := tab{t: t, ctx: ctx}
	shots := t.TempDir()
	if dir := os.Getenv("PACT_SCREENSHOTS"); dir != "" {
		shots = dir // to look at them after the test
	}

	// Sign up: that logs in at once.
	b.open(env.URL + "/signup")
	b.do("filling the sign-up form",
		chromedp.SendKeys(chromedp.CSS("#email"), "erin@example.com"),
		chromedp.SendKeys(chromedp.CSS("#username"), "erin"),
		chromedp.SendKeys(chromedp.CSS("#password"), "a browser passphrase"),
		chromedp.SendKeys(chromedp.CSS("#confirm-password"), "a browser passphrase"),
	)
	b.submit("main form button[type=submit]")
	if loc := b.location(); loc != env.URL+"/dashboard" {
		t.Fatalf("after sign-up the browser is at %s, want the dashboard", loc)
	}

	// Log out and in again, with the forms.
	b.submit(".site-header form[action='/logout'] button")
	if loc := b.location(); loc != env.URL+"/" {
		t.Fatalf("after log-out the browser is at %s", loc)
	}
	b.open(env.URL + "/login")
	b.do("filling the log-in form",
		chromedp.SendKeys(chromedp.CSS("#login"), "erin"),
		chromedp.SendKeys(chromedp.CSS("#password"), "a browser passphrase"),
	)
	b.submit("main form button[type=submit]")
	if loc := b.location(); loc != env.URL+"/dashboard" {
		t.Fatalf("after log-in the browser is at %s", loc)
	}

	// Create a token; it is shown once, with a copy button that works.
	b.open(env.URL + "/dashboard/tokens")
	b.do("filling the token form",
		chromedp.SendKeys(chromedp.CSS("#token-name"), "browser"),
		chromedp.SetValue(chromedp.CSS("#token-expiry"), "30"),
	)
	b.submit("form[action='/dashboard/tokens'] button")
	token := b.value("#new-token")
	if !strings.HasPrefix(token, "pact_") {
		t.Fatalf("new token %q", token)
	}
	if copied := b.copied(env.URL, "button[data-copy='new-token']"); copied != token {
		t.Errorf("the copy button copied %q, want the token", copied)
	}
	b.screenshot(shots, "dashboard-tokens")

	// The token works on the API.
	me := apiCall(t, http.MethodGet, env.URL+"/api/me", token, "")
	if me.Status != http.StatusOK || !strings.Contains(me.Body, `"username":"erin"`) {
		t.Fatalf("GET /api/me with the new token = %d %s", me.Status, me.Body)
	}

	// Add an SSH key made by ssh-keygen.
	_, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	b.open(env.URL + "/dashboard/keys")
	b.do("filling the key form",
		chromedp.SetValue(chromedp.CSS("#key-public"), sshtest.PublicKeyLine(t, pub)),
		chromedp.SendKeys(chromedp.CSS("#key-name"), "browser key"),
	)
	b.submit("form[action='/dashboard/keys'] button")
	if keys := b.text("#keys table"); !strings.Contains(keys, sshtest.KeygenFingerprint(t, pub)) {
		t.Errorf("the key table lacks the key's fingerprint: %q", keys)
	}

	// Publish with the token, then read the package page.
	published := apiCall(t, http.MethodPost, env.URL+"/api/publish", token, mustJSON(t, map[string]string{"content": browserDoc}))
	if published.Status != http.StatusOK {
		t.Fatalf("publishing with the token: %d %s", published.Status, published.Body)
	}
	var result struct {
		Package struct{ URL string } `json:"package"`
	}
	if err := json.Unmarshal([]byte(published.Body), &result); err != nil {
		t.Fatal(err)
	}
	b.open(result.Package.URL)
	// The document's title is the page's: shown once.
	if h := evaluate[[]string](b, `Array.from(document.querySelectorAll("h1")).map(h => h.textContent)`); len(h) != 1 || h[0] != "Release checklist 1.0.0" {
		t.Errorf("headings %q, want the page's own only", h)
	}
	rendered := evaluate[map[string]int](b, `({
		tables: document.querySelectorAll(".document table").length,
		checked: document.querySelectorAll(".document input[type=checkbox][checked]").length,
		highlighted: document.querySelectorAll(".document pre.chroma span.nt").length,
		links: document.querySelectorAll(".document a[href='https://example.com/docs']").length,
		copyButtonShown: document.querySelector("button[data-copy='install']").hidden ? 0 : 1,
	})`)
	for what, n := range rendered {
		if n == 0 {
			t.Errorf("the package page has no %s (%v)", what, rendered)
		}
	}
	if install := b.text("#install"); install != "curl -fsSL "+env.URL+"/raw/erin/release-checklist.pact.md -o release-checklist.pact.md" {
		t.Errorf("install command %q", install)
	}
	b.screenshot(shots, "package")

	// On a phone-sized screen nothing runs off the side.
	b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	for _, path := range []string{"/", "/dashboard", "/dashboard/tokens", "/dashboard/keys", "/docs", "/erin/release-checklist"} {
		b.open(env.URL + path)
		if wide := evaluate[bool](b, `document.documentElement.scrollWidth > document.documentElement.clientWidth`); wide {
			t.Errorf("%s scrolls sideways on a 390px screen; sticking out: %q", path, evaluate[[]string](b, overflowing))
		}
	}
	b.screenshot(shots, "package-phone")
	b.do("back to desktop", chromedp.EmulateViewport(1280, 900))
	b.open(env.URL + "/")
	b.screenshot(shots, "home")

	// Revoke the token in the dashboard: the API refuses it at once.
	b.open(env.URL + "/dashboard/tokens")
	b.submit("form[action$='/revoke'] button")
	if title := b.text("main h1"); !strings.HasPrefix(title, "Revoke the token") {
		t.Errorf("the Revoke button leads to %q, want a question", title)
	}
	if me := apiCall(t, http.MethodGet, env.URL+"/api/me", token, ""); me.Status != http.StatusOK {
		t.Errorf("GET /api/me with the token, asked about but not revoked = %d, want 200", me.Status)
	}
	b.submit("form[action$='/revoke'] button")
	if notice := b.text(".notice"); !strings.Contains(notice, "revoked") {
		t.Errorf("notice after revoking: %q", notice)
	}
	if me := apiCall(t, http.MethodGet, env.URL+"/api/me", token, ""); me.Status != http.StatusUnauthorized {
		t.Errorf("GET /api/me with the revoked token = %d, want 401", me.Status)
	}

	// Log out: the dashboard is closed again.
	b.submit(".site-header form[action='/logout'] button")
	b.open(env.URL + "/dashboard")
	if loc := b.location(); loc != env.URL+"/login" {
		t.Errorf("after log-out /dashboard leads to %s, want /login", loc)
	}
}

// overflowing lists the elements that stick out to the right of the
// viewport, innermost first: a hint at what makes a page scroll sideways.
const overflowing = `(() => {
	const clipped = e => {
		for (let a = e.parentElement; a; a = a.parentElement) {
			if (["auto", "scroll", "hidden"].includes(getComputedStyle(a).overflowX)) return true;
		}
		return false;
	};
	const sticksOut = e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !clipped(e);
	const wide = Array.from(document.querySelectorAll("body *")).filter(e =>
		sticksOut(e) && !Array.from(e.children).some(sticksOut));
	return wide.slice(0, 5).map(e => e.outerHTML.slice(0, 120));
})()`

const browserDoc = "# Release checklist\n\n" +
	"| step | owner |\n|---|---|\n| tag | you |\n\n" +
	"- [x] tests pass\n- [ ] changelog\n\n" +
	"Docs at https://example.com/docs.\n\n" +
	"```yaml pact:pack\nname: Release checklist\nversion: 1.0.0\nscheme: checklist-v1\ndescription: Steps before a release\n```\n"

type apiResult struct {
	Status int
	Body   string
}

func apiCall(t *testing.T, method, url, token, body string) apiResult {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return apiResult{Status: resp.StatusCode, Body: buf.String()}
}

func TestBrowserHostileDocumentIsInert(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 30*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, hostileDoc)
	b := tab{t: t, ctx: ctx}

	// Count every dialog and close it, so a dialog cannot block the test.
	var dialogs atomic.Int32
	dialogEvents := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogEvents {
			if err != nil {
				return
			}
			dialogs.Add(1)
			t.Logf("dialog opened: %q", ev.Message)
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()

	b.open(env.URL + "/alice/hostile")
	// Poke everything a handler could hang on: hover, click, toggle.
	evaluate[chromedp.Void](b, `for (const el of document.querySelectorAll(".document *")) {
		for (const type of ["mouseover", "click", "focus", "toggle"]) el.dispatchEvent(new Event(type));
	}
	for (const a of document.querySelectorAll(".document a")) a.click();`)
	b.do("letting anything queued run", chromedp.Sleep(300*time.Millisecond))

	if loc := b.location(); loc != env.URL+"/alice/hostile" {
		t.Errorf("the hostile page navigated to %s", loc)
	}
	found := evaluate[map[string]any](b, `({
		pwned: typeof window.pwned === "undefined" ? null : String(window.pwned),
		active: Array.from(document.querySelectorAll(".document script, .document iframe, .document svg, .document form, .document button:not(.code-copy), .document meta, .document [style]")).map(e => e.outerHTML),
		handlers: Array.from(document.querySelectorAll(".document *")).flatMap(e => Array.from(e.attributes).filter(a => a.name.startsWith("on")).map(a => e.tagName + " " + a.name)),
		badURLs: Array.from(document.querySelectorAll(".document [href], .document [src]")).map(e => e.getAttribute("href") || e.getAttribute("src")).filter(u => /^\s*(javascript|data|vbscript):/i.test(u)),
		text: document.querySelector(".document").textContent,
	})`)
	if found["pwned"] != nil {
		t.Errorf("injected code ran: window.pwned = %v", found["pwned"])
	}
	for _, key := range []string{"active", "handlers", "badURLs"} {
		if list, _ := found[key].([]any); len(list) > 0 {
			t.Errorf("%s in the rendered document: %v", key, list)
		}
	}
	if text, _ := found["text"].(string); !strings.Contains(text, "a link that must not run") || !strings.Contains(text, "styled") {
		t.Errorf("the harmless text of the document is gone: %q", text)
	}
	if n := dialogs.Load(); n != 0 {
		t.Errorf("%d dialogs opened on the hostile page", n)
	}

	// The listener does see dialogs: one opened by the test itself.
	evaluate[chromedp.Void](b, `setTimeout(() => alert("control"), 0)`)
	for deadline := time.Now().Add(5 * time.Second); dialogs.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := dialogs.Load(); n != 1 {
		t.Errorf("the control dialog was counted %d times, want 1: the dialog check is blind", n)
	}
}

func TestBrowserCrossSiteFormIsRefused(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 30*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	b := tab{t: t, ctx: ctx}
	b.logInWithPassword(env.URL, "alice", alice.Password)

	// Another site serves a form that posts to pact's dashboard. Its origin
	// differs only in the port (same site, so the Lax cookie goes along)
	// or also in the host name (another site).
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>win a prize</title>
<form method="post" action="%s/dashboard/tokens"><input name="name" value="stolen"><button id="go">Claim</button></form>`, env.URL)
	}))
	defer attacker.Close()
	pages := []string{attacker.URL, strings.Replace(attacker.URL, "127.0.0.1", "localhost", 1)}
	for _, p := range pages {
		b.open(p)
		resp := b.submit("#go")
		if resp.Status != http.StatusForbidden {
			t.Errorf("form posted from %s: status %d, want 403", p, resp.Status)
		}
		if body := b.text("main"); !strings.Contains(body, "another site") {
			t.Errorf("refusal page from %s says %q", p, body)
		}
	}
	if n := countTokens(t, env, alice); n != 1 { // the one CreateUser made
		t.Errorf("alice has %d tokens after the cross-site posts, want 1", n)
	}
	// The same form on pact's own page works, in the same browser.
	b.open(env.URL + "/dashboard/tokens")
	b.do("naming a token", chromedp.SendKeys(chromedp.CSS("#token-name"), "own"))
	if resp := b.submit("form[action='/dashboard/tokens'] button"); resp.Status != http.StatusOK {
		t.Errorf("same-origin form: status %d", resp.Status)
	}
}

// A reader sees in the browser what the raw document holds: comments, raw
// HTML and what follows an unclosed <script> are on screen as text.
func TestBrowserShowsHiddenHTMLAsText(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 30*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, hiddenDoc)
	b := tab{t: t, ctx: ctx}
	b.open(env.URL + "/alice/hidden")
	// innerText is the text as rendered: nothing hidden by CSS or markup.
	shown := evaluate[map[string]any](b, `({
		text: document.querySelector(".document").innerText,
		pwned: typeof window.pwned === "undefined" ? null : String(window.pwned),
		hidden: Array.from(document.querySelectorAll(".document [hidden], .document script, .document [style]")).length,
	})`)
	text, _ := shown["text"].(string)
	for _, s := range hiddenDocTexts {
		if !strings.Contains(text, s) {
			t.Errorf("the rendered page does not show %q; it shows:\n%s", s, text)
		}
	}
	if shown["pwned"] != nil {
		t.Errorf("the document's script ran: window.pwned = %v", shown["pwned"])
	}
	if n, _ := shown["hidden"].(float64); n != 0 {
		t.Errorf("%v elements of the document are hidden or scripts", n)
	}
}
