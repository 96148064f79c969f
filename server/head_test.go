package server_test

import (
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
)

// perRequestHeaders differ between any two answers, or describe the
// framing of a body rather than the answer.
var perRequestHeaders = []string{"Date", "Content-Length", "Transfer-Encoding", "X-Request-Id", "Set-Cookie"}

// HEAD is answered wherever GET is, with GET's status and headers and no
// body: the API (checked against openapi.json), raw documents, the OpenAPI
// document, the operational endpoints, the API reference and every page.
func TestHeadAnswersWhereverGetDoes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		ok := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("head-pack", "1.0")}, alice.Bearer())
		wantStatus(t, ok.Status, http.StatusOK, ok.Body)
		priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
		registerKey(t, env, alice, priv, pub)

		api := []struct {
			path    string
			headers []string
			status  int
		}{
			{"/api/packages", nil, 200},
			{"/api/packages?limit=1&q=head", nil, 200},
			{"/api/packages?limit=0", nil, 400},
			{"/api/packages/alice/head-pack", nil, 200},
			{"/api/packages/alice/head-pack/downloads", nil, 200},
			{"/api/packages/alice/missing/downloads", nil, 404},
			{"/api/packages/alice/missing", nil, 404},
			{"/api/me", []string{alice.Bearer()}, 200},
			{"/api/me", nil, 401},
			{"/api/ssh-keys", []string{alice.Bearer()}, 200},
			{"/raw/alice/head-pack.pact.md", nil, 200},
			{"/raw/alice/head-pack@1.0.pact.md", nil, 200},
			{"/raw/alice/missing.pact.md", nil, 404},
			{"/alice.keys", nil, 200},
			{"/openapi.json", nil, 200},
			{"/healthz", nil, 200},
			{"/readyz", nil, 200},
			{"/metrics", nil, 200},
		}
		for _, tc := range api {
			get := env.API.Get(tc.path, tc.headers...)
			head := env.API.Head(tc.path, tc.headers...)
			wantSameAnswer(t, tc.path, tc.status, get.Status, get.Header, len(get.Body), head.Status, head.Header, head.Body)
		}

		home := servertest.NewWebClient(t, env.URL).Get("/")
		static := ""
		if i := strings.Index(home.Body, "/static/"); i >= 0 {
			static = home.Body[i:]
			static = static[:strings.IndexAny(static, `"' `)]
		}
		if static == "" {
			t.Fatalf("the home page links no static file: %s", home.Body)
		}
		pages := []struct {
			path   string
			status int
		}{
			{"/", 200}, {"/?q=head", 200}, {"/docs", 200}, {"/login", 200}, {"/signup", 200}, {"/logout", 200},
			{"/dashboard", http.StatusSeeOther}, {"/dashboard/tokens", http.StatusSeeOther}, {"/dashboard/keys", http.StatusSeeOther},
			{"/dashboard/orgs", http.StatusSeeOther}, {"/dashboard/trusted-publishers", http.StatusSeeOther}, {"/alice", 200}, {"/alice/head-pack", 200},
			{"/dashboard/packages", http.StatusSeeOther}, {"/dashboard/package/alice/head-pack", http.StatusSeeOther}, {"/dashboard/hooks/1", http.StatusSeeOther},
			{"/alice/missing", 404}, {"/nobody", 404}, {static, 200},
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, tc := range pages {
			do := func(method string) (*http.Response, []byte) {
				req := mustRequest(t, method, env.URL+tc.path)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s %s: %v", method, tc.path, err)
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				return resp, body
			}
			get, getBody := do(http.MethodGet)
			head, headBody := do(http.MethodHead)
			wantSameAnswer(t, tc.path, tc.status, get.StatusCode, get.Header, len(getBody), head.StatusCode, head.Header, headBody)
		}
	})
}

func wantSameAnswer(t *testing.T, path string, want, getStatus int, getHeader http.Header, getLen int, headStatus int, headHeader http.Header, headBody []byte) {
	t.Helper()
	if getStatus != want {
		t.Errorf("GET %s: status %d, want %d", path, getStatus, want)
	}
	if headStatus != getStatus {
		t.Errorf("HEAD %s: status %d, GET answers %d", path, headStatus, getStatus)
	}
	if len(headBody) != 0 {
		t.Errorf("HEAD %s: a body of %d bytes", path, len(headBody))
	}
	if cl := headHeader.Get("Content-Length"); cl != "" && cl != strconv.Itoa(getLen) {
		t.Errorf("HEAD %s: Content-Length %s, but GET sends %d bytes", path, cl, getLen)
	}
	for name := range mergeKeys(getHeader, headHeader) {
		if slices.Contains(perRequestHeaders, name) {
			continue
		}
		if g, h := getHeader.Values(name), headHeader.Values(name); !slices.Equal(g, h) {
			t.Errorf("%s: header %s is %q for GET, %q for HEAD", path, name, g, h)
		}
	}
}

func mergeKeys(a, b http.Header) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}
