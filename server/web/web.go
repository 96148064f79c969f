// Package web is the HTML side of pact: browsing packages, sign-up and
// log-in, the dashboard of tokens and SSH keys, and the API reference. The
// REST API is package server, which also routes every path that is not the
// API's here.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/passkeys"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/render"
)

//go:embed templates/*.html templates/parts/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// contentSecurityPolicy allows nothing inline and nothing from elsewhere
// but images: every script and stylesheet is a file under /static/. A
// document's images may come from any https address; the renderer makes
// them lazy and Referer-free (docs/design.md, Images in documents).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Config is what the pages need from pactd's configuration.
type Config struct {
	// BaseURL is the public address of the service, without a trailing
	// slash; forms posted from it are same-origin behind a proxy too.
	BaseURL string
	// Signup is "open" (anyone can make an account) or "closed".
	Signup string
	// LoginAttempts failed log-ins for one account from one address (an
	// IPv6 address counts by its /64), or four times as many for one account
	// from all addresses together, within LoginWindow lock them out until
	// the window ends. 0 means 5 attempts in 15 minutes.
	LoginAttempts int
	LoginWindow   time.Duration
	// LoginTableKeys bounds each throttle's table to so many keys; 0 means
	// defaultThrottleKeys.
	LoginTableKeys int
}

// Pages is the HTML side of pact: browsing, accounts, the dashboard and the
// API reference. The REST API (package server) is the other side; what both
// share (logs, metrics, the body budget, the error statuses) is in
// server/internal/httpx.
type Pages struct {
	svc           *registry.Service
	shared        *httpx.Shared
	cfg           Config
	templates     func() map[string]*template.Template // made at the first page a server renders
	static        map[string]staticFile
	documents     *render.Cache
	sessions      sessionConfig
	logins        *throttle // per address and account
	loginsPerAcct *throttle // per account, from every address together
	loginsPerIP   *throttle // per address, against spraying many usernames
	signups       *throttle // per address
	crossOrigin   *http.CrossOriginProtection
	pageSize      int
	dashboardSize int

	// passwordChanges counts wrong current passwords per account.
	passwordChanges *throttle
	// deviceCodes and deviceCodesPerAcct count the codes typed on
	// /login/device that name no login, per address and per account.
	deviceCodes, deviceCodesPerAcct *throttle

	// rp is pactd as a WebAuthn relying party (server/passkeys); nil when
	// the base URL cannot carry passkeys, which rpProblem says why.
	rp        registry.RelyingParty
	rpProblem string
}

type staticFile struct {
	body        []byte
	contentType string
	version     string // short hash, for cache-busting links
}

// Route registers every page on e, the engine of every path that is not the
// API's.
func (pages *Pages) Route(e *gin.Engine) {
	e.Use(pages.securityHeaders, pages.refuseCrossOrigin, pages.limitFormBody, pages.gate)
	e.NoRoute(pages.notFound)
	e.NoMethod(func(c *gin.Context) {
		pages.errorPage(c, httpx.Errorf(httpx.MethodNotAllowed, "%s is not allowed here", c.Request.Method))
	})

	httpx.GetAndHead(e, "/", pages.home)
	httpx.GetAndHead(e, "/docs", pages.apiReference)
	httpx.GetAndHead(e, "/static/*file", pages.serveStatic)

	httpx.GetAndHead(e, "/signup", pages.signupForm)
	e.POST("/signup", pages.signup)
	httpx.GetAndHead(e, "/login", pages.loginForm)
	e.POST("/login", pages.login)
	httpx.GetAndHead(e, "/logout", pages.logoutForm)
	e.POST("/logout", pages.logout)

	pages.routeDeviceLogin(e)
	pages.routeLog(e)

	dash := e.Group("/dashboard")
	httpx.GetAndHead(dash, "", pages.dashboard)
	httpx.GetAndHead(dash, "/tokens", pages.showDashboard(sectionTokens))
	httpx.GetAndHead(dash, "/keys", pages.showDashboard(sectionKeys))
	httpx.GetAndHead(dash, "/orgs", pages.showDashboard(sectionOrgs))
	httpx.GetAndHead(dash, "/trusted-publishers", pages.showDashboard(sectionTrusted))
	httpx.GetAndHead(dash, "/hooks", pages.showDashboard(sectionHooks))
	httpx.GetAndHead(dash, "/hooks/:id", pages.showHook)
	httpx.GetAndHead(dash, "/packages", pages.showDashboard(sectionPackages))
	httpx.GetAndHead(dash, "/package/:owner/:pack", pages.showPackage)
	dash.POST("/tokens", pages.createToken)
	dash.POST("/tokens/:id/revoke", pages.revokeToken)
	dash.POST("/keys", pages.addKey)
	dash.POST("/keys/:id/delete", pages.deleteKey)
	dash.POST("/trusted-publishers", pages.addTrustedPublisher)
	dash.POST("/trusted-publishers/:id/remove", pages.removeTrustedPublisher)
	dash.POST("/packages/:pack/trusted-publishing-only", pages.setTrustedPublishingOnly)
	// A package's page and its forms are under /dashboard/package/, not
	// /dashboard/packages/: the trusted-publishing-only form above names
	// the pack where these name the owner.
	dash.POST("/package/:owner/:pack/versions/:version/yank", pages.yankVersion)
	dash.POST("/package/:owner/:pack/versions/:version/unyank", pages.unyankVersion)
	dash.POST("/package/:owner/:pack/deprecate", pages.deprecatePackage)
	dash.POST("/hooks", pages.addHook)
	dash.POST("/hooks/:id/remove", pages.removeHook)
	dash.POST("/orgs", pages.createOrg)
	dash.POST("/orgs/:org/members", pages.setOrgMember)
	dash.POST("/orgs/:org/members/:username/remove", pages.removeOrgMember)
	httpx.GetAndHead(dash, "/account", pages.accountPage)
	dash.POST("/password", pages.changePassword)
	dash.POST("/sessions/:id/end", pages.endOneSession)
	dash.POST("/logout-everywhere", pages.logoutEverywhere)
	pages.routePasskeys(e, dash)

	httpx.GetAndHead(e, "/:owner", pages.ownerKeysOrPage)
	httpx.GetAndHead(e, "/:owner/:pack", pages.packagePage)
}

// New builds the pages around the registry service.
func New(svc *registry.Service, shared *httpx.Shared, cfg Config) *Pages {
	pages := &Pages{
		svc:           svc,
		shared:        shared,
		cfg:           cfg,
		static:        loadStatic(),
		documents:     render.NewCache(render.DefaultCacheBytes),
		sessions:      newSessionConfig(cfg.BaseURL),
		crossOrigin:   http.NewCrossOriginProtection(),
		pageSize:      20,
		dashboardSize: registry.MaxListLimit,
	}
	attempts, window := cfg.LoginAttempts, cfg.LoginWindow
	if attempts <= 0 {
		attempts = 5
	}
	if window <= 0 {
		window = 15 * time.Minute
	}
	keys := cfg.LoginTableKeys
	if keys <= 0 {
		keys = defaultThrottleKeys
	}
	pages.logins = newThrottle(attempts, window, keys)
	pages.loginsPerAcct = newThrottle(attempts*accountAttemptsFactor, window, keys)
	pages.loginsPerIP = newThrottle(attempts*20, window, keys)
	pages.signups = newThrottle(20, time.Hour, keys)
	pages.passwordChanges = newThrottle(attempts, window, keys)
	pages.deviceCodes = newThrottle(attempts*2, window, keys)
	pages.deviceCodesPerAcct = newThrottle(attempts*2, window, keys)
	// Behind a proxy the Host header may differ from the public address;
	// a form posted from the public address is same-origin all the same.
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		if err := pages.crossOrigin.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			shared.Log.Warn("base URL is not a usable origin", "base_url", cfg.BaseURL, "error", err.Error())
		}
	}
	if rp, err := passkeys.New(cfg.BaseURL); err != nil {
		pages.rpProblem = err.Error()
		shared.Log.Info("passkeys are off", "base_url", cfg.BaseURL, "reason", err.Error())
	} else {
		pages.rp = rp
	}
	// A pactd that serves no page (an API replica, or most tests' daemons)
	// never clones them: parsing and cloning the pages was about 7% of the
	// CPU that starting and stopping pactd takes (perf).
	pages.templates = sync.OnceValue(func() map[string]*template.Template { return clonePages(pages.templateFuncs()) })
	return pages
}

// parsedPages are the pages, parsed once per process with functions of
// the right names that no page runs: each Pages clones them and binds its
// own (html/template's Clone and Funcs; a template looks its functions up
// by name when it runs). Parsing them anew for every server cost the
// tests, which start hundreds, about a twentieth of their CPU.
var parsedPages = sync.OnceValue(func() map[string]*template.Template {
	return parsePages(new(Pages).templateFuncs())
})

// clonePages is every page, with funcs bound.
func clonePages(funcs template.FuncMap) map[string]*template.Template {
	pages := make(map[string]*template.Template)
	for name, parsed := range parsedPages() {
		pages[name] = template.Must(parsed.Clone()).Funcs(funcs)
	}
	return pages
}

// parsePages parses every page together with the layout it fills in.
func parsePages(funcs template.FuncMap) map[string]*template.Template {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := make(map[string]*template.Template)
	for _, name := range names {
		base := path.Base(name)
		if base == "layout.html" {
			continue
		}
		// templates/parts holds blocks that pages include, such as a
		// version's release.
		pages[base] = template.Must(template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts/*.html", name))
	}
	return pages
}

func loadStatic() map[string]staticFile {
	files := map[string]staticFile{}
	add := func(name string, body []byte) {
		sum := sha256.Sum256(body)
		ct := "application/octet-stream"
		switch path.Ext(name) {
		case ".css":
			ct = "text/css; charset=utf-8"
		case ".js":
			ct = "text/javascript; charset=utf-8"
		case ".svg":
			ct = "image/svg+xml"
		}
		files[name] = staticFile{body: body, contentType: ct, version: hex.EncodeToString(sum[:6])}
	}
	entries, err := fs.ReadDir(staticFS, "static")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := fs.ReadFile(staticFS, "static/"+e.Name())
		if err != nil {
			panic(err)
		}
		add(e.Name(), body)
	}
	add("highlight.css", render.HighlightCSS())
	return files
}

func (pages *Pages) templateFuncs() template.FuncMap {
	return template.FuncMap{
		// static links a file under /static/ with its content hash, so
		// browsers may cache it and still see a new release at once.
		"static": func(name string) string {
			f, ok := pages.static[name]
			if !ok {
				panic("no static file " + name)
			}
			return "/static/" + name + "?v=" + f.version
		},
		"datetime":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"downloads": func(n int64) string { return countOf(n, "download", "downloads") },
		"when":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"unix":      func(sec int64) time.Time { return time.Unix(sec, 0) },
		"day":       func(t time.Time) string { return t.UTC().Format("2006-01-02") },
		"lower":     strings.ToLower,
		// dashboardMenu is the menu every dashboard page shares.
		"dashboardMenu": func() []dashboardPage { return dashboardPages },
		// schemeURL is the search filtered by a scheme.
		"schemeURL": func(scheme string) string { return searchURL("", scheme) },
		// copyLine is a command line for the "copy-line" block.
		"copyLine": func(id, text string) copyLine { return copyLine{ID: id, Text: text} },
	}
}

// copyLine is a command a page shows whole, with a copy button: ID names
// the element the button copies.
type copyLine struct{ ID, Text string }

func (pages *Pages) serveStatic(c *gin.Context) {
	f, ok := pages.static[strings.TrimPrefix(c.Param("file"), "/")]
	if !ok {
		pages.notFound(c)
		return
	}
	h := c.Writer.Header()
	h.Set("Content-Type", f.contentType)
	if c.Query("v") == f.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	http.ServeContent(c.Writer, c.Request, "", time.Time{}, bytes.NewReader(f.body))
}

// securityHeaders is set on every answer of the web side.
func (pages *Pages) securityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	// No Referer leaves the site: not for a document's links or images,
	// whatever they say. Same-origin forms keep their Origin header.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Next()
}

// refuseCrossOrigin answers 403 to every state-changing request that a
// browser sends from another origin (Sec-Fetch-Site or Origin tells).
func (pages *Pages) refuseCrossOrigin(c *gin.Context) {
	if err := pages.crossOrigin.Check(c.Request); err != nil {
		pages.errorPage(c, registry.Errorf(registry.Forbidden,
			"This form was sent from another site. pact accepts forms only from its own pages."))
		return
	}
	c.Next()
}

// maxFormBytes bounds a dashboard form: the largest field is one SSH
// public key line.
const maxFormBytes = 64 << 10

// limitFormBody caps web form bodies; a larger one fails to parse and the
// form is answered as empty. A form counts against the body budget while
// it is handled, as API bodies do.
func (pages *Pages) limitFormBody(c *gin.Context) {
	if c.Request.Body == nil || c.Request.Body == http.NoBody || c.Request.Method != http.MethodPost {
		c.Next()
		return
	}
	n := c.Request.ContentLength
	if n < 0 || n > maxFormBytes {
		n = maxFormBytes
	}
	release, err := pages.shared.Bodies.Reserve(c.Request.Context(), n)
	if err != nil {
		httpx.SetRetryAfter(c, err)
		pages.errorPage(c, err)
		return
	}
	defer release()
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxFormBytes)
	c.Next()
}

// pageData is what every page template gets; Data holds the page's own.
type pageData struct {
	Account *registry.Account // the logged-in account, or nil
	Signup  bool              // sign-up is open
	Query   string            // the search box's text
	Data    any
}

func (pages *Pages) render(c *gin.Context, status int, name string, query string, data any) {
	tmpl, ok := pages.templates()[name]
	if !ok {
		panic("no page template " + name)
	}
	var buf bytes.Buffer
	pd := pageData{Account: pages.currentAccount(c), Signup: pages.cfg.Signup != "closed", Query: query, Data: data}
	if err := tmpl.ExecuteTemplate(&buf, "layout", pd); err != nil {
		pages.shared.Logger(c).Error("rendering page", "template", name, "error", err.Error())
		c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("internal error\n"))
		c.Abort()
		return
	}
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// notFound answers 404 with a page that offers a search for the words of
// the path: /nosuch/widget-thing searches for "nosuch widget thing".
func (pages *Pages) notFound(c *gin.Context) {
	words := pathWords(c.Request.URL.Path)
	pages.render(c, http.StatusNotFound, "notfound.html", "", gin.H{
		"Path": c.Request.URL.Path, "Words": words, "SearchURL": searchURL(words, ""),
	})
}

// maxPathWords and maxPathQuery bound the search a not-found page offers:
// the search box takes at most 200 characters.
const (
	maxPathWords = 8
	maxPathQuery = 200
)

// pathWords are the words of a path that led nowhere, as a search: each
// segment without its @version, split at everything that is not a letter
// or a digit, lower-cased, each word once. Numbers alone are left out:
// "/alice/widget@1.2.0" searches for "alice widget".
func pathWords(path string) string {
	var words []string
	seen := map[string]bool{}
	size := 0
	for _, segment := range strings.Split(path, "/") {
		segment, _, _ = strings.Cut(segment, "@")
		for _, w := range strings.FieldsFunc(segment, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			w = strings.ToLower(w)
			if seen[w] || !strings.ContainsFunc(w, unicode.IsLetter) || size+len(w)+1 > maxPathQuery {
				continue
			}
			seen[w] = true
			words = append(words, w)
			size += len(w) + 1
			if len(words) == maxPathWords {
				return strings.Join(words, " ")
			}
		}
	}
	return strings.Join(words, " ")
}

// errorPage answers with an HTML page that states err's user-facing message
// and the status its code maps to. Internal errors are logged, not shown.
func (pages *Pages) errorPage(c *gin.Context, err error) {
	status := httpx.Status(err)
	pages.shared.LogFailure(c, "page failed", status, err)
	httpx.SetRetryAfter(c, err)
	if registry.IsCode(err, registry.NotFound) {
		pages.notFound(c)
		c.Abort()
		return
	}
	pages.render(c, status, "error.html", "", gin.H{
		"Status":  status,
		"Title":   http.StatusText(status),
		"Message": httpx.Message(err),
	})
	c.Abort()
}

// now is the service's clock, so tests that move it move sessions and
// throttles too.
func (pages *Pages) now() time.Time {
	return pages.svc.Now()
}

func noStore(c *gin.Context) { c.Header("Cache-Control", "no-store") }
