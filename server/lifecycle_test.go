package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/servertest"
)

// What the tests read of a yank's answer and of a package's detail.
type yankAnswer struct {
	Package struct {
		Version, SHA256, Deprecated string
	} `json:"package"`
	Version struct {
		Version    string
		Yanked     bool
		YankReason string `json:"yank_reason"`
	} `json:"version"`
}

type detailAnswer struct {
	Package struct {
		Version, SHA256, Deprecated string
	} `json:"package"`
	Versions []struct {
		Version    string
		Yanked     bool
		YankReason string `json:"yank_reason"`
	} `json:"versions"`
}

type listAnswer struct {
	Packages []struct {
		PackSlug   string `json:"pack_slug"`
		Version    string
		Deprecated string
	} `json:"packages"`
}

func yankPath(pack, version, action string) string {
	return "/api/packages/alice/" + pack + "/versions/" + url.PathEscape(version) + "/" + action
}

func publishVersions(t *testing.T, env *servertest.Env, user *servertest.User, name string, versions ...string) map[string]string {
	t.Helper()
	docs := map[string]string{}
	for _, v := range versions {
		docs[v] = packDoc(name, v, "description: release "+v+"\n")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": docs[v]}, user.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	}
	return docs
}

func detail(t *testing.T, env *servertest.Env, pack string) detailAnswer {
	t.Helper()
	var d detailAnswer
	resp := env.API.Get("/api/packages/alice/" + pack)
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	resp.Decode(t, &d)
	return d
}

func list(t *testing.T, env *servertest.Env) listAnswer {
	t.Helper()
	var l listAnswer
	resp := env.API.Get("/api/packages")
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	resp.Decode(t, &l)
	return l
}

// A yanked version is never the latest and not offered by the list, but its
// exact address still serves it, marked as yanked; un-yanking undoes it.
// Both are idempotent.
func TestYankAndUnyank(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		docs := publishVersions(t, env, alice, "Widget", "1.0.0", "2.0.0", "1.5.0")
		// The first page of the list is cached (SQLite): it must follow.
		if l := list(t, env); len(l.Packages) != 1 || l.Packages[0].Version != "2.0.0" {
			t.Fatalf("list before the yank: %+v", l)
		}

		reason := "breaks the parser; use 1.5.0 — sorry"
		for range 2 {
			resp := env.API.PostJSON(yankPath("widget", "2.0.0", "yank"), map[string]any{"reason": "  " + reason + " "}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var got yankAnswer
			resp.Decode(t, &got)
			if got.Package.Version != "1.5.0" || !got.Version.Yanked || got.Version.Version != "2.0.0" || got.Version.YankReason != reason {
				t.Errorf("yank answers %+v; want latest 1.5.0 and 2.0.0 yanked for %q", got, reason)
			}
		}
		if l := list(t, env); len(l.Packages) != 1 || l.Packages[0].Version != "1.5.0" {
			t.Errorf("list after the yank: %+v, want widget at 1.5.0", l)
		}
		d := detail(t, env, "widget")
		if d.Package.Version != "1.5.0" || len(d.Versions) != 3 {
			t.Errorf("detail after the yank: %+v", d)
		}
		for _, v := range d.Versions {
			if v.Yanked != (v.Version == "2.0.0") || (v.Version == "2.0.0") != (v.YankReason == reason) {
				t.Errorf("detail shows version %+v", v)
			}
		}

		// Raw: the latest skips the yanked version; the pin still works,
		// marked by headers.
		for _, c := range []struct {
			path, version string
			yanked        bool
		}{
			{"/raw/alice/widget.pact.md", "1.5.0", false},
			{"/raw/alice/widget@latest.pact.md", "1.5.0", false},
			{"/raw/alice/widget@2.0.0.pact.md", "2.0.0", true},
			{"/raw/alice/widget@1.0.0.pact.md", "1.0.0", false},
		} {
			for _, method := range []string{"GET", "HEAD"} {
				var resp *apitest.Response
				if method == "GET" {
					resp = env.API.Get(c.path)
				} else {
					resp = env.API.Head(c.path)
				}
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				if method == "GET" && string(resp.Body) != docs[c.version] {
					t.Errorf("GET %s serves\n%s\nwant version %s", c.path, resp.Body, c.version)
				}
				wantYankHeaders(t, method+" "+c.path, resp.Header, c.yanked, reason)
			}
		}
		// A revalidation of the pinned copy is told too.
		etag := env.API.Get("/raw/alice/widget@2.0.0.pact.md").Header.Get("ETag")
		resp := env.API.Get("/raw/alice/widget@2.0.0.pact.md", "If-None-Match: "+etag)
		wantStatus(t, resp.Status, http.StatusNotModified, resp.Body)
		wantYankHeaders(t, "304 of 2.0.0", resp.Header, true, reason)

		web := servertest.NewWebClient(t, env.URL)
		servertest.WantPage(t, web.Get("/alice/widget@2.0.0"), http.StatusOK,
			`<p class="banner yanked" role="status"><strong>This version is yanked</strong>: `+reason+`. It is still served at its own address for existing pins; the latest version is <a href="/alice/widget">1.5.0</a>.</p>`,
			`<span class="version">2.0.0</span> <span class="tag yanked">yanked</span> (latest: <a href="/alice/widget">1.5.0</a>)`)
		page := web.Get("/alice/widget")
		servertest.WantPage(t, page, http.StatusOK, `<span class="version">1.5.0</span> (latest)`,
			`<a href="/alice/widget@2.0.0">2.0.0</a> <span class="tag yanked" title="`+reason+`">yanked</span>`)
		if strings.Contains(page.Body, "banner yanked") {
			t.Errorf("the latest version's page carries a yank banner:\n%s", page.Body)
		}

		// Un-yank, twice: 2.0.0 is the latest again, unmarked.
		for range 2 {
			resp := env.API.PostJSON(yankPath("widget", "2.0.0", "unyank"), nil, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var got yankAnswer
			resp.Decode(t, &got)
			if got.Package.Version != "2.0.0" || got.Version.Yanked || got.Version.YankReason != "" {
				t.Errorf("unyank answers %+v; want latest 2.0.0, not yanked", got)
			}
		}
		if l := list(t, env); len(l.Packages) != 1 || l.Packages[0].Version != "2.0.0" {
			t.Errorf("list after un-yanking: %+v, want widget at 2.0.0", l)
		}
		resp = env.API.Get("/raw/alice/widget@2.0.0.pact.md")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		wantYankHeaders(t, "2.0.0 un-yanked", resp.Header, false, "")

		// A yank without a body has no reason; Pact-Yank-Reason is then
		// left out.
		resp = env.API.Post(yankPath("widget", "1.0.0", "yank"), "", nil, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = env.API.Head("/raw/alice/widget@1.0.0.pact.md")
		wantYankHeaders(t, "1.0.0 yanked without a reason", resp.Header, true, "")
	})
}

func wantYankHeaders(t *testing.T, what string, h http.Header, yanked bool, reason string) {
	t.Helper()
	if !yanked {
		if h.Get("Pact-Yanked") != "" || h.Get("Pact-Yank-Reason") != "" {
			t.Errorf("%s: Pact-Yanked %q, Pact-Yank-Reason %q on a version that is not yanked", what, h.Get("Pact-Yanked"), h.Get("Pact-Yank-Reason"))
		}
		return
	}
	if got := h.Get("Pact-Yanked"); got != "true" {
		t.Errorf("%s: Pact-Yanked %q, want true", what, got)
	}
	got := h.Get("Pact-Yank-Reason")
	if reason == "" {
		if _, sent := h["Pact-Yank-Reason"]; sent {
			t.Errorf("%s: Pact-Yank-Reason %q sent without a reason", what, got)
		}
		return
	}
	if decoded, err := url.PathUnescape(got); err != nil || decoded != reason {
		t.Errorf("%s: Pact-Yank-Reason %q decodes to %q (%v), want %q", what, got, decoded, err, reason)
	}
	for _, c := range got {
		if c < 0x20 || c > 0x7e {
			t.Errorf("%s: Pact-Yank-Reason %q holds %U, not printable ASCII", what, got, c)
		}
	}
}

// With every version yanked a package has no latest version: it is not
// listed, its latest address answers 404 saying why, and each version is
// still served by its number.
func TestEveryVersionYanked(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		docs := publishVersions(t, env, alice, "Widget", "1.0.0", "2.0.0")
		publishVersions(t, env, alice, "Other", "1.0.0")
		list(t, env)
		for _, v := range []string{"1.0.0", "2.0.0"} {
			resp := env.API.PostJSON(yankPath("widget", v, "yank"), map[string]any{"reason": "withdrawn"}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		if l := list(t, env); len(l.Packages) != 1 || l.Packages[0].PackSlug != "other" {
			t.Errorf("list with every version of widget yanked: %+v, want only other", l)
		}
		d := detail(t, env, "widget")
		if d.Package.Version != "" || d.Package.SHA256 != "" || len(d.Versions) != 2 || !d.Versions[0].Yanked || !d.Versions[1].Yanked {
			t.Errorf("detail = %+v; want no latest version and both versions yanked", d)
		}
		for _, path := range []string{"/raw/alice/widget.pact.md", "/raw/alice/widget@latest.pact.md"} {
			resp := env.API.Get(path)
			var body map[string]any
			resp.Decode(t, &body)
			wantError(t, resp.Status, body, http.StatusNotFound, "every version of alice/widget is yanked")
			if resp = env.API.Head(path); resp.Status != http.StatusNotFound {
				t.Errorf("HEAD %s = %d, want 404", path, resp.Status)
			}
		}
		resp := env.API.Get("/raw/alice/widget@2.0.0.pact.md")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if string(resp.Body) != docs["2.0.0"] {
			t.Errorf("pinned 2.0.0 serves %s", resp.Body)
		}
		wantYankHeaders(t, "2.0.0", resp.Header, true, "withdrawn")

		web := servertest.NewWebClient(t, env.URL)
		page := web.Get("/alice/widget")
		servertest.WantPage(t, page, http.StatusOK, `<strong>Every version of this package is yanked.</strong>`,
			`none: every version is yanked`, `<a href="/alice/widget@1.0.0">1.0.0</a> <span class="tag yanked"`)
		if strings.Contains(page.Body, `id="install"`) {
			t.Errorf("the page offers an install command with no latest version:\n%s", page.Body)
		}
		servertest.WantPage(t, web.Get("/alice/widget@latest"), http.StatusOK, `Every version of this package is yanked.`)
		servertest.WantPage(t, web.Get("/alice/widget@1.0.0"), http.StatusOK, `<strong>This version is yanked</strong>: withdrawn.`,
			`(no latest version: every version is yanked)`)
		if home := web.Get("/"); strings.Contains(home.Body, "/alice/widget") {
			t.Errorf("the home page lists a package with every version yanked:\n%s", home.Body)
		}

		// A new publish gives it a latest version again.
		publishVersions(t, env, alice, "Widget", "0.1.0")
		if d := detail(t, env, "widget"); d.Package.Version != "0.1.0" {
			t.Errorf("after publishing 0.1.0 the latest is %q", d.Package.Version)
		}
		if l := list(t, env); len(l.Packages) != 2 || l.Packages[0].PackSlug != "widget" {
			t.Errorf("list after publishing again: %+v", l)
		}
	})
}

// Only the owner may yank, un-yank or deprecate; unknown packages and
// versions are 404, and a refused request changes nothing.
func TestLifecycleNeedsTheOwner(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		publishVersions(t, env, alice, "Widget", "1.0.0", "2.0.0")
		for _, c := range []struct {
			path    string
			body    any
			headers []string
			status  int
			message string
		}{
			{yankPath("widget", "2.0.0", "yank"), map[string]any{}, []string{bob.Bearer()}, 403, "only alice may yank versions of alice/widget"},
			{yankPath("widget", "2.0.0", "unyank"), nil, []string{bob.Bearer()}, 403, "only alice may un-yank versions of alice/widget"},
			{"/api/packages/alice/widget/deprecate", map[string]any{"message": "mine now"}, []string{bob.Bearer()}, 403, "only alice may deprecate alice/widget"},
			{yankPath("widget", "2.0.0", "yank"), map[string]any{}, nil, 401, "missing API token"},
			{yankPath("widget", "2.0.0", "unyank"), nil, []string{"Authorization: Bearer pact_nonsense"}, 401, "missing or invalid API token"},
			{"/api/packages/alice/widget/deprecate", map[string]any{"message": "x"}, nil, 401, "missing API token"},
			{yankPath("widget", "9.9.9", "yank"), map[string]any{}, []string{alice.Bearer()}, 404, "no version 9.9.9 of alice/widget"},
			{yankPath("widget", "9.9.9", "unyank"), nil, []string{alice.Bearer()}, 404, "no version 9.9.9 of alice/widget"},
			{yankPath("nothing", "1.0.0", "yank"), map[string]any{}, []string{alice.Bearer()}, 404, "no such package alice/nothing"},
			{"/api/packages/alice/nothing/deprecate", map[string]any{"message": "x"}, []string{alice.Bearer()}, 404, "no such package alice/nothing"},
			{"/api/packages/nobody/widget/deprecate", map[string]any{"message": "x"}, []string{alice.Bearer()}, 404, "no such package nobody/widget"},
			{yankPath("widget", "latest", "yank"), map[string]any{}, []string{alice.Bearer()}, 400, "name the version exactly"},
			{yankPath("widget", "Latest", "unyank"), nil, []string{alice.Bearer()}, 400, "name the version exactly"},
		} {
			var resp *apitest.Response
			if c.body == nil {
				resp = env.API.Post(c.path, "application/json", nil, c.headers...)
			} else {
				resp = env.API.PostJSON(c.path, c.body, c.headers...)
			}
			var body map[string]any
			resp.Decode(t, &body)
			wantError(t, resp.Status, body, c.status, c.message)
		}
		d := detail(t, env, "widget")
		if d.Package.Version != "2.0.0" || d.Package.Deprecated != "" || d.Versions[0].Yanked || d.Versions[1].Yanked {
			t.Errorf("after the refused requests: %+v", d)
		}
		// Another method on a lifecycle route is 405, not a page.
		resp := env.API.Get("/api/packages/alice/widget/deprecate")
		if resp.Status != http.StatusMethodNotAllowed {
			t.Errorf("GET deprecate = %d, want 405", resp.Status)
		}
	})
}

// Bodies are bounded and checked before anything changes: malformed JSON,
// a wrong type, a reason or message that is not one line of printable text
// or is too long, another media type, a body over 16 KiB.
func TestLifecycleBodies(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		publishVersions(t, env, alice, "Widget", "1.0.0", "2.0.0")
		yank, deprecate := yankPath("widget", "2.0.0", "yank"), "/api/packages/alice/widget/deprecate"
		huge := `{"reason":"` + strings.Repeat(`\u0041`, 4000) + `"}`
		for _, c := range []struct {
			name, path, contentType, body string
			status                        int
			message                       string
		}{
			{"malformed yank", yank, "application/json", `{"reason": "x"`, 400, "not valid JSON"},
			{"reason not a string", yank, "application/json", `{"reason": 5}`, 400, "field reason must be a string"},
			{"reason of two lines", yank, "application/json", `{"reason": "one\ntwo"}`, 400, "reason must not contain control characters"},
			{"reason with a bidi override", yank, "application/json", `{"reason": "a\u202eb"}`, 400, "U+202E"},
			{"reason too long", yank, "application/json", `{"reason": "` + strings.Repeat("é", 201) + `"}`, 400, "reason must be at most 200 characters"},
			{"yank as a form", yank, "application/x-www-form-urlencoded", `reason=x`, 415, "Content-Type must be application/json"},
			{"yank body over the limit", yank, "application/json", huge + strings.Repeat(" ", 16<<10), 413, "larger than the limit"},
			{"an array", yank, "application/json", `["x"]`, 400, "must be a JSON object"},
			{"deprecate without a body", deprecate, "application/json", ``, 400, "request body is required"},
			{"deprecate without message", deprecate, "application/json", `{}`, 400, "message is required"},
			{"message null", deprecate, "application/json", `{"message": null}`, 400, "message is required"},
			{"message not a string", deprecate, "application/json", `{"message": ["x"]}`, 400, "field message must be a string"},
			{"message of two lines", deprecate, "application/json", `{"message": "a\rb"}`, 400, "U+000D"},
			{"message too long", deprecate, "application/json", `{"message": "` + strings.Repeat("x", 501) + `"}`, 400, "message must be at most 500 characters"},
			{"message twice", deprecate, "application/json", `{"message": "a", "Message": "b"}`, 400, "names the field"},
			{"deprecate as text", deprecate, "text/plain", `use bar`, 415, "Content-Type must be application/json"},
		} {
			t.Run(c.name, func(t *testing.T) {
				resp := env.API.Post(c.path, c.contentType, []byte(c.body), alice.Bearer())
				var body map[string]any
				resp.Decode(t, &body)
				wantError(t, resp.Status, body, c.status, c.message)
			})
		}
		d := detail(t, env, "widget")
		if d.Package.Version != "2.0.0" || d.Package.Deprecated != "" || d.Versions[0].Yanked || d.Versions[1].Yanked {
			t.Errorf("after the refused bodies: %+v", d)
		}
		// At the bounds: 200 characters of reason, 500 of message.
		resp := env.API.PostJSON(yank, map[string]any{"reason": strings.Repeat("é", 200)}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = env.API.PostJSON(deprecate, map[string]any{"message": strings.Repeat("x", 500)}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	})
}

// A deprecation message shows in the API (list, detail), on the package's
// page and in the lists of pages; an empty message undoes it.
func TestDeprecatePackage(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		publishVersions(t, env, alice, "Widget", "1.0.0")
		list(t, env) // fill the list cache
		message := "unmaintained: use alice/gadget <2>"
		for range 2 {
			resp := env.API.PostJSON("/api/packages/alice/widget/deprecate", map[string]any{"message": " " + message + " "}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var got struct {
				Package struct{ Version, Deprecated string } `json:"package"`
			}
			resp.Decode(t, &got)
			if got.Package.Deprecated != message || got.Package.Version != "1.0.0" {
				t.Errorf("deprecate answers %+v", got)
			}
		}
		if l := list(t, env); len(l.Packages) != 1 || l.Packages[0].Deprecated != message {
			t.Errorf("list after deprecating: %+v", l)
		}
		if d := detail(t, env, "widget"); d.Package.Deprecated != message {
			t.Errorf("detail after deprecating: %+v", d)
		}
		// Still served: deprecation withdraws nothing.
		resp := env.API.Get("/raw/alice/widget.pact.md")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)

		web := servertest.NewWebClient(t, env.URL)
		banner := `<p class="banner deprecated" role="status"><strong>This package is deprecated:</strong> unmaintained: use alice/gadget &lt;2&gt;</p>`
		servertest.WantPage(t, web.Get("/alice/widget"), http.StatusOK, banner)
		servertest.WantPage(t, web.Get("/alice/widget@1.0.0"), http.StatusOK, banner)
		servertest.WantPage(t, web.Get("/"), http.StatusOK, `<strong>Deprecated:</strong> unmaintained: use alice/gadget &lt;2&gt;`)
		servertest.WantPage(t, web.Get("/alice"), http.StatusOK, `<strong>Deprecated:</strong>`)

		for _, undo := range []string{"", "   "} {
			resp = env.API.PostJSON("/api/packages/alice/widget/deprecate", map[string]any{"message": undo}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			if d := detail(t, env, "widget"); d.Package.Deprecated != "" {
				t.Errorf("deprecated %q after sending %q", d.Package.Deprecated, undo)
			}
		}
		if l := list(t, env); l.Packages[0].Deprecated != "" {
			t.Errorf("list after undoing: %+v", l)
		}
		if page := web.Get("/alice/widget"); strings.Contains(page.Body, "banner deprecated") {
			t.Errorf("the page still shows the deprecation:\n%s", page.Body)
		}
	})
}
