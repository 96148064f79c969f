package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	xhtml "golang.org/x/net/html"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server/openapi"
	"github.com/pact-registry/pact/server/registry"
)

var cardPattern = regexp.MustCompile(`<li class="card">`)

func TestHomeListsSearchesAndPages(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	web := servertest.NewWebClient(t, env.URL)

	servertest.WantPage(t, web.Get("/"), http.StatusOK, "Nothing has been published yet.")

	for i := 1; i <= 23; i++ {
		publishDoc(t, env, alice, packDoc(fmt.Sprintf("pack-%02d", i), "1.0.0", fmt.Sprintf("description: number %02d\n", i)))
		env.Clock.Advance(time.Second)
	}
	publishDoc(t, env, alice, packDoc("Code Review", "2.0.0", "description: reviews <b>code</b>\nscheme: review-v1\n"))

	first := web.Get("/")
	servertest.WantPage(t, first, http.StatusOK, "Latest packages", `href="/alice/code-review"`, "reviews &lt;b&gt;code&lt;/b&gt;",
		"review-v1", "version 2.0.0")
	if n := len(cardPattern.FindAllString(first.Body, -1)); n != 20 {
		t.Errorf("first page shows %d packages, want 20", n)
	}
	if strings.Index(first.Body, "code-review") > strings.Index(first.Body, "pack-23") {
		t.Errorf("the latest publish is not listed first")
	}
	next := regexp.MustCompile(`<a rel="next" href="([^"]+)">`).FindStringSubmatch(first.Body)
	if next == nil {
		t.Fatalf("first page has no link to the next one")
	}
	second := web.Get(html.UnescapeString(next[1]))
	servertest.WantPage(t, second, http.StatusOK, "pack-01", `href="/">← Newest`)
	if n := len(cardPattern.FindAllString(second.Body, -1)); n != 4 {
		t.Errorf("second page shows %d packages, want 4", n)
	}
	if strings.Contains(second.Body, `rel="next"`) {
		t.Errorf("last page links to a next page")
	}

	search := web.Get("/?q=" + url.QueryEscape("review"))
	servertest.WantPage(t, search, http.StatusOK, "Packages matching “review”", `href="/alice/code-review"`, `value="review"`)
	if n := len(cardPattern.FindAllString(search.Body, -1)); n != 1 {
		t.Errorf("search shows %d packages, want 1", n)
	}
	servertest.WantPage(t, web.Get("/?q=nothing-like-this"), http.StatusOK, "No package matches your search.")
	servertest.WantPage(t, web.Get("/?cursor=garbage"), http.StatusBadRequest, "cursor is not valid")
}

func TestOwnerPageAndAuthorizedKeys(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	bob := env.CreateUser(t, "bob")
	publishDoc(t, env, alice, packDoc("alpha", "1.0.0"))
	publishDoc(t, env, bob, packDoc("bravo", "1.0.0"))
	web := servertest.NewWebClient(t, env.URL)

	page := web.Get("/alice")
	servertest.WantPage(t, page, http.StatusOK, "<h1>alice</h1>", `href="/alice/alpha"`, `href="/alice.keys"`)
	if strings.Contains(page.Body, "bravo") {
		t.Errorf("alice's page lists bob's package")
	}
	servertest.WantPage(t, web.Get("/ALICE"), http.StatusOK, "<h1>alice</h1>")
	servertest.WantPage(t, web.Get("/nobody"), http.StatusNotFound, "Not found")

	dir := t.TempDir()
	_, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	line := sshtest.PublicKeyLine(t, pub)
	if _, err := env.Service.AddSSHKey(context.Background(), alice.Account.ID, line, "laptop"); err != nil {
		t.Fatal(err)
	}
	keys := web.Get("/alice.keys")
	fields := strings.Fields(line)
	if keys.Status != http.StatusOK || keys.Body != fields[0]+" "+fields[1]+" laptop\n" ||
		!strings.HasPrefix(keys.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("/alice.keys = %d %q (%s), want the key line", keys.Status, keys.Body, keys.Header.Get("Content-Type"))
	}
	missing := web.Get("/nobody.keys")
	var body map[string]any
	if err := json.Unmarshal([]byte(missing.Body), &body); err != nil || missing.Status != http.StatusNotFound || body["ok"] != false {
		t.Errorf("/nobody.keys = %d %q, want the JSON 404 error", missing.Status, missing.Body)
	}
}

func TestPackagePage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		doc1 := "# Code review\n\n| step | who |\n|---|---|\n| read | you |\n\n- [x] tests\n\n```yaml pact:pack\nname: Code Review\nversion: 1.0.0\nscheme: review-v1\ndescription: How we review\n```\n"
		publishDoc(t, env, alice, doc1)
		env.Clock.Advance(time.Minute)

		// Version 1.1.0 is published by SSH signature.
		dir := t.TempDir()
		priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
		key, err := env.Service.AddSSHKey(context.Background(), alice.Account.ID, sshtest.PublicKeyLine(t, pub), "")
		if err != nil {
			t.Fatal(err)
		}
		doc2 := strings.Replace(doc1, "version: 1.0.0", "version: 1.1.0", 1)
		ts, nonce := env.Clock.Now().Unix(), sshsign.NewNonce()
		msg, err := sshsign.Message(ts, nonce, []byte(doc2), "", "")
		if err != nil {
			t.Fatal(err)
		}
		sig := sshtest.SignWithKeygen(t, priv, msg, sshsign.Namespace)
		_, _, err = env.Service.PublishSigned(context.Background(), registry.SignedPublishRequest{
			PublishRequest: registry.PublishRequest{Content: []byte(doc2)},
			Timestamp:      ts, Nonce: nonce, Fingerprint: key.Fingerprint, Signature: sig,
		})
		if err != nil {
			t.Fatalf("signed publish: %v", err)
		}

		latest := web.Get("/alice/code-review")
		raw := env.URL + "/raw/alice/code-review.pact.md"
		servertest.WantPage(t, latest, http.StatusOK,
			`<h1>Code Review <span class="title-version">1.1.0</span></h1>`, "How we review", `<span class="version">1.1.0</span> (latest)`, "review-v1",
			`<time datetime="`+env.Clock.Now().UTC().Format(time.RFC3339)+`"`,
			`href="`+raw+`"`, `class="copy-text">curl -fsSL `+raw+` -o code-review.pact.md</code>`, `data-copy="install"`,
			`class="copy-text">pact get --host `+env.URL+` alice/code-review</code>`, `data-copy="install-pact"`,
			"Signed by", key.Fingerprint, "✓ Verified",
			`class="copy-text">pact verify --host `+env.URL+` alice/code-review@1.1.0</code>`,
			"ssh-keygen -Y verify -f allowed_signers -I signer -n pact -s message.sig &lt; message",
			// the rendered document, without its title: the page has it
			"<td>read</td>", `<input checked="" disabled="" type="checkbox"`, `<span class="nt">name</span>`,
			// the versions
			`href="/alice/code-review@1.1.0"`, `href="/alice/code-review@1.0.0"`, env.URL+"/raw/alice/code-review@1.0.0.pact.md",
		)
		assertNoInlineCode(t, latest.Body)
		// What was signed, for people: the lines exactly as signed (empty
		// here, while the document has a name and a description) and the
		// key, which stay after the key is deleted.
		keyLine := sshtest.PublicKeyLine(t, pub)
		keyLine = strings.Join(strings.Fields(keyLine)[:2], " ")
		servertest.WantPage(t, latest, http.StatusOK, "What was signed",
			`<dt>Name line</dt><dd><span class="muted">empty</span>`,
			`<dt>Description line</dt><dd><span class="muted">empty</span>`,
			`<code class="public-key">`+keyLine+`</code>`,
			`<time datetime="`+time.Unix(ts, 0).UTC().Format(time.RFC3339)+`"`)
		if strings.Contains(latest.Body, "no longer registered") {
			t.Errorf("the page says the signing key is gone while it is registered")
		}
		if err := env.Service.DeleteSSHKey(context.Background(), alice.Account.ID, key.ID); err != nil {
			t.Fatal(err)
		}
		servertest.WantPage(t, web.Get("/alice/code-review"), http.StatusOK, key.Fingerprint,
			"this key is no longer registered", `<code class="public-key">`+keyLine+`</code>`)

		old := web.Get("/alice/code-review@1.0.0")
		servertest.WantPage(t, old, http.StatusOK, `<span class="version">1.0.0</span> (latest: <a href="/alice/code-review">1.1.0</a>)`,
			`class="copy-text">curl -fsSL `+env.URL+`/raw/alice/code-review@1.0.0.pact.md -o code-review.pact.md</code>`,
			`class="copy-text">pact get --host `+env.URL+` alice/code-review@1.0.0</code>`,
			`class="copy-text">pact verify --host `+env.URL+` alice/code-review@1.0.0</code>`,
			`<p class="banner old-version" role="status"><strong>This is an old version, 1.0.0.</strong> The latest version is <a href="/alice/code-review">1.1.0</a>.</p>`)
		if strings.Contains(old.Body, "<dt>Signed by</dt>") || strings.Contains(old.Body, "ssh-keygen -Y verify") {
			t.Errorf("version 1.0.0, published with a token, shows a signer")
		}
		if strings.Contains(latest.Body, "old-version") {
			t.Errorf("the latest version is called old")
		}
		// The document's own title, which says what the page's heading
		// says, is not shown twice.
		if strings.Count(latest.Body, "<h1") != 1 {
			t.Errorf("the page has %d headings <h1>, want the page's own only", strings.Count(latest.Body, "<h1"))
		}
		servertest.WantPage(t, web.Get("/alice/code-review@9.9.9"), http.StatusNotFound)
		servertest.WantPage(t, web.Get("/alice/nothing"), http.StatusNotFound)
		servertest.WantPage(t, web.Get("/nobody/nothing"), http.StatusNotFound)
	})
}

func TestHostileDocumentPageHasNoActiveContent(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, hostileDoc)
	page := servertest.NewWebClient(t, env.URL).Get("/alice/hostile")
	servertest.WantPage(t, page, http.StatusOK, "<h1>hostile <span", "a link that must not run")
	assertNoInlineCode(t, page.Body)
	markup := pageMarkup(t, page.Body)
	for _, s := range []string{"window.pwned", "alert(", "<iframe", "onerror", "javascript:"} {
		if strings.Contains(markup, s) {
			t.Errorf("the page's markup still holds %q", s)
		}
	}
	// What was dropped before is shown, as text, where the reader sees it.
	text := documentText(t, page.Body)
	for _, s := range []string{"<script>window.pwned = 'script'", `<iframe src="javascript:alert('frame')">`, "ontoggle="} {
		if !strings.Contains(text, s) {
			t.Errorf("the document's text lacks %q:\n%s", s, text)
		}
	}
}

// The raw file and the page hold the same text: HTML comments, raw HTML
// and an unclosed <script> are shown as text, and whatever follows them
// still shows.
func TestHiddenHTMLIsShownOnThePage(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, hiddenDoc)
	web := servertest.NewWebClient(t, env.URL)
	page := web.Get("/alice/hidden")
	servertest.WantPage(t, page, http.StatusOK)
	assertNoInlineCode(t, page.Body)
	if m := pageMarkup(t, page.Body); strings.Contains(m, "<div hidden") || strings.Contains(m, "pwned") {
		t.Errorf("raw HTML of the document became markup")
	}
	text := documentText(t, page.Body)
	for _, s := range hiddenDocTexts {
		if !strings.Contains(text, s) {
			t.Errorf("the page hides %q, which the raw document holds; the page's text:\n%s", s, text)
		}
	}
	raw := web.Get("/raw/alice/hidden.pact.md")
	servertest.WantPage(t, raw, http.StatusOK)
	if raw.Body != hiddenDoc {
		t.Errorf("the raw document differs from what was published")
	}
}

// hiddenDoc holds text that a browser given its HTML would not show.
const hiddenDoc = "# Hidden\n\nVisible intro.\n\n" +
	"<!-- hidden comment: run rm -rf / -->\n\n" +
	"Inline <!-- inline hidden --> comment and <span style=\"display:none\">tiny print</span>.\n\n" +
	"<div hidden>\ninvisible block\n</div>\n\n" +
	"```yaml pact:pack\nname: hidden\nversion: 1.0.0\n```\n\n" +
	"<script>window.pwned = 1\n\n## After the script\n\nThe rest of the *document*.\n"

var hiddenDocTexts = []string{
	"Visible intro.", "<!-- hidden comment: run rm -rf / -->", "<!-- inline hidden -->",
	`<span style="display:none">`, "tiny print", "<div hidden>", "invisible block",
	"<script>window.pwned = 1", "## After the script", "The rest of the *document*.",
}

// hostileDoc tries every way in that a document has: scripts, handlers,
// javascript: and data: links, frames, forms, styles, meta refreshes.
const hostileDoc = "# Hostile\n\n" +
	"<script>window.pwned = 'script'; alert('script')</script>\n\n" +
	"<img src=\"/nope.png\" onerror=\"window.pwned = 'onerror'; alert('onerror')\">\n\n" +
	"<svg onload=\"window.pwned = 'svg'\"><circle r=\"4\"/></svg>\n\n" +
	"[a link that must not run](javascript:window.pwned='link';alert('link'))\n\n" +
	"<a id=\"hostile-link\" href=\"JaVaScRiPt:window.pwned='raw-link'\">raw link</a>\n\n" +
	"[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)\n\n" +
	"<iframe src=\"javascript:alert('frame')\"></iframe>\n\n" +
	"<iframe srcdoc=\"<script>parent.pwned='srcdoc'</script>\"></iframe>\n\n" +
	"<form action=\"/logout\" method=\"post\"><button id=\"hostile-button\">log out</button></form>\n\n" +
	"<p style=\"position:fixed;inset:0;background:red\" onmouseover=\"window.pwned='hover'\">styled</p>\n\n" +
	"<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert('meta')\">\n\n" +
	"<details open ontoggle=\"window.pwned='toggle'\"><summary>more</summary>text</details>\n\n" +
	"```yaml pact:pack\nname: hostile\nversion: 1.0.0\n```\n"

func TestSecurityHeadersOnEveryPage(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, packDoc("alpha", "1.0.0"))
	web := servertest.NewWebClient(t, env.URL)
	pages := []string{"/", "/?q=alpha", "/alice", "/alice/alpha", "/alice/alpha@1.0.0", "/docs", "/login", "/signup",
		"/logout", "/nobody", "/nobody/nothing", "/dashboard", "/static/site.css"}
	check := func(path string) {
		r := web.Get(path)
		want := map[string]string{
			"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
				"frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
			"X-Content-Type-Options": "nosniff",
			"Referrer-Policy":        "same-origin",
			"X-Frame-Options":        "DENY",
		}
		for h, v := range want {
			if got := r.Header.Get(h); got != v {
				t.Errorf("GET %s: %s = %q, want %q", path, h, got, v)
			}
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			assertNoInlineCode(t, r.Body)
		}
	}
	for _, p := range pages {
		check(p)
	}
	web.Login(alice)
	for _, p := range []string{"/dashboard", "/dashboard/tokens", "/dashboard/keys", "/dashboard/orgs", "/dashboard/trusted-publishers", "/dashboard/account"} {
		check(p)
	}
	check("/alice/alpha")
}

func TestStaticFiles(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	web := servertest.NewWebClient(t, env.URL)
	home := web.Get("/")
	for _, file := range []string{"site.css", "highlight.css", "copy.js"} {
		link := regexp.MustCompile(`"(/static/` + regexp.QuoteMeta(file) + `\?v=[0-9a-f]+)"`).FindStringSubmatch(home.Body)
		if link == nil {
			t.Errorf("the home page does not link %s", file)
			continue
		}
		r := web.Get(html.UnescapeString(link[1]))
		if r.Status != http.StatusOK || len(r.Body) == 0 {
			t.Errorf("GET %s = %d with %d bytes", link[1], r.Status, len(r.Body))
		}
		if !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("GET %s: Cache-Control %q, want immutable for a hashed link", link[1], r.Header.Get("Cache-Control"))
		}
	}
	if ct := web.Get("/static/copy.js").Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("copy.js served as %q", ct)
	}
	servertest.WantPage(t, web.Get("/static/nope.js"), http.StatusNotFound)
	servertest.WantPage(t, web.Get("/static/../web.go"), http.StatusNotFound)
}

func TestAPIReferenceCoversTheWholeInterface(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	page := servertest.NewWebClient(t, env.URL).Get("/docs")
	servertest.WantPage(t, page, http.StatusOK, "REST API", `href="/openapi.json"`)
	assertNoInlineCode(t, page.Body)
	// The transparency log's verifier key, to pin (docs/protocol.md).
	servertest.WantPage(t, page, http.StatusOK, `<code class="log-key">`+env.Service.LogVerifierKey()+`</code>`)
	// How a witness adds the log: its origin and key, and that this
	// registry has no witness policy yet.
	servertest.WantPage(t, page, http.StatusOK, "witnessctl add-log -db litewitness.db -origin servertest/log\n",
		"witnessctl add-key -db litewitness.db -origin servertest/log -key "+env.Service.LogVerifierKey()+"</pre>",
		"It has no witness policy yet")

	var doc struct {
		Info       struct{ Version string }
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.Body, doc.Info.Version) {
		t.Errorf("the reference does not name interface version %s", doc.Info.Version)
	}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if method == "parameters" {
				continue
			}
			var op struct {
				OperationID string `json:"operationId"`
				Curl        string `json:"x-curl"`
				Parameters  []struct {
					Ref string `json:"$ref"`
				} `json:"parameters"`
				Responses map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			anchor := `id="op-` + op.OperationID + `"`
			i := strings.Index(page.Body, anchor)
			if i < 0 {
				t.Errorf("%s %s (%s) is missing", method, path, op.OperationID)
				continue
			}
			section := page.Body[i:]
			if end := strings.Index(section, "</article>"); end >= 0 {
				section = section[:end]
			}
			section = html.UnescapeString(section)
			wantIn := []string{strings.ToUpper(method), path}
			if op.Curl != "" {
				wantIn = append(wantIn, op.Curl)
			}
			for status := range op.Responses {
				wantIn = append(wantIn, `<code class="status-code">`+status+`</code>`)
			}
			for _, w := range wantIn {
				if !strings.Contains(section, w) {
					t.Errorf("%s: the reference lacks %q", op.OperationID, w)
				}
			}
		}
	}
	for name, schema := range doc.Components.Schemas {
		if !strings.Contains(page.Body, `id="schema-`+name+`"`) {
			t.Errorf("schema %s is missing", name)
		}
		for prop := range schema.Properties {
			if !strings.Contains(page.Body, "<code>"+prop+"</code>") {
				t.Errorf("schema %s: field %s is missing", name, prop)
			}
		}
	}
}

// An https image of a document is on the page, lazy and Referer-free, and
// the CSP the page comes with lets it load; an http image and the data:
// and javascript: tricks are not images at all.
func TestDocumentImagesOnThePage(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, "# Pictures\n\n![a box](https://img.example/box.png)\n\n![plain](http://img.example/plain.png)\n\n"+
		"![inline](data:image/png;base64,iVBORw0KGgo=)\n\n![js](javascript:alert(1))\n\n"+
		"```yaml pact:pack\nname: pictures\nversion: 1.0.0\n```\n")
	page := servertest.NewWebClient(t, env.URL).Get("/alice/pictures")
	servertest.WantPage(t, page, http.StatusOK,
		`<img src="https://img.example/box.png" alt="a box" loading="lazy" decoding="async" referrerpolicy="no-referrer">`,
		`<a href="http://img.example/plain.png" rel="nofollow noreferrer">plain</a>`)
	assertNoInlineCode(t, page.Body)
	var sources []string
	walkPage(t, page.Body, func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && n.Data == "img" {
			for _, a := range n.Attr {
				if a.Key == "src" {
					sources = append(sources, a.Val)
				}
			}
		}
	})
	// The one image of the page's own is the logo.
	if len(sources) != 2 || !strings.HasPrefix(sources[0], "/static/favicon.svg") || sources[1] != "https://img.example/box.png" {
		t.Errorf("images on the page: %q, want the logo and the https image", sources)
	}
	if markup := pageMarkup(t, page.Body); strings.Contains(markup, "javascript:") || strings.Contains(markup, "data:image") {
		t.Errorf("a javascript: or data: URL is in the page's markup")
	}
	csp := page.Header.Get("Content-Security-Policy")
	var imgSrc []string
	for _, directive := range strings.Split(csp, ";") {
		if f := strings.Fields(directive); len(f) > 0 && f[0] == "img-src" {
			imgSrc = f[1:]
		}
	}
	if !slices.Contains(imgSrc, "https:") || slices.Contains(imgSrc, "http:") || slices.Contains(imgSrc, "*") {
		t.Errorf("img-src %q, want https: allowed and http: not", imgSrc)
	}
	if rp := page.Header.Get("Referrer-Policy"); rp != "same-origin" {
		t.Errorf("Referrer-Policy %q", rp)
	}
}

// The ssh-keygen recipe a signed version's page shows verifies that
// version when pasted into a shell, with the real curl, jq and ssh-keygen.
func TestPackagePageKeygenRecipeVerifies(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"curl", "jq", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishSigned(t, env, alice, packDoc("signed", "2.0.0"))
	page := servertest.NewWebClient(t, env.URL).Get("/alice/signed")
	m := regexp.MustCompile(`(?s)<pre id="keygen-recipe"><code>(.*?)</code></pre>`).FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatalf("the signed version's page has no ssh-keygen recipe")
	}
	recipe := html.UnescapeString(m[1])
	cmd := exec.Command("sh", "-e", "-c", recipe)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `Good "pact" signature for signer`) {
		t.Errorf("the recipe does not verify: %v\n%s\nrecipe:\n%s", err, out, recipe)
	}
}

// The home page says how many packages and versions the registry holds,
// yanked ones included, on either database: at once after a write on
// SQLite, where pactd sees every write, and within 30 seconds on
// PostgreSQL, where other replicas write unseen.
func TestHomeCountsPackagesAndVersions(t *testing.T) {
	t.Parallel()
	counts := regexp.MustCompile(`<span class="registry-counts">([^<]*)</span>`)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		web := servertest.NewWebClient(t, env.URL)
		want := func(what, text string) {
			t.Helper()
			page := web.Get("/")
			servertest.WantPage(t, page, http.StatusOK)
			if m := counts.FindStringSubmatch(page.Body); m == nil || m[1] != text {
				t.Errorf("%s: the home page counts %q, want %q", what, m, text)
			}
		}
		want("an empty registry", "0 packages, 0 versions")

		alice := env.CreateUser(t, "alice")
		publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
		env.Clock.Advance(30 * time.Second)
		want("after one publish", "1 package, 1 version")

		publishDoc(t, env, alice, packDoc("widget", "1.1.0"))
		publishDoc(t, env, alice, packDoc("gadget", "1.0.0"))
		if _, _, err := env.Service.YankVersion(context.Background(), alice.Account, "alice", "gadget", "1.0.0", "broken"); err != nil {
			t.Fatal(err)
		}
		if _, ok := env.Service.Generation(); ok {
			// A second later SQLite counts again: it saw the writes.
			env.Clock.Advance(time.Second)
		} else {
			env.Clock.Advance(30 * time.Second)
		}
		want("after two more and a yank", "2 packages, 3 versions")

		// A search is no place for them.
		if page := web.Get("/?q=widget"); counts.MatchString(page.Body) || strings.Contains(page.Body, "get-started") {
			t.Errorf("a search's page shows the counts or the start lines")
		}
	})
}

// The package page shows the downloads flushed so far: the total, and a
// bar for each of the last 90 days with its date and count; the home list
// and the owner's page show the total.
func TestPackagePageShowsDownloads(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		publishDoc(t, env, alice, "# Counted\n\n```yaml pact:pack\nname: Counted\nversion: 1.0.0\n```\n")
		v := rawVersion(t, env, "alice", "counted")
		for range 1234 {
			env.Service.CountDownload(v)
		}
		if err := env.Service.FlushDownloads(context.Background()); err != nil {
			t.Fatal(err)
		}
		today := env.Clock.Now().UTC().Format(time.DateOnly)
		page := web.Get("/alice/counted")
		servertest.WantPage(t, page, http.StatusOK, `Downloads <span class="count">1,234 downloads</span>`,
			"<title>"+today+": 1,234 downloads</title>", `1,234 downloads in the last 90 days`)
		if n := strings.Count(page.Body, "<rect "); n != 90 {
			t.Errorf("the chart has %d bars, want 90", n)
		}
		servertest.WantPage(t, web.Get("/"), http.StatusOK, `<span class="downloads">1,234 downloads</span>`)
		servertest.WantPage(t, web.Get("/alice"), http.StatusOK, `<span class="downloads">1,234 downloads</span>`)
	})
}

// rawVersion is the version a raw GET of owner/pack's latest serves.
func rawVersion(t *testing.T, env *servertest.Env, owner, pack string) *registry.Version {
	t.Helper()
	v, err := env.Service.RawDocument(context.Background(), owner, pack, "")
	if err != nil {
		t.Fatal(err)
	}
	return v
}
