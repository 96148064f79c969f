package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

func TestRawDocument(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		v1, v2 := packDoc("doc", "1.0"), packDoc("doc", "2.0")
		for _, doc := range []string{v1, v2} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
			wantStatus(t, resp.Status, 200, resp.Body)
		}
		etag := func(doc string) string {
			sum := sha256.Sum256([]byte(doc))
			return `"` + hex.EncodeToString(sum[:]) + `"`
		}
		cases := []struct {
			path, body, cache string
		}{
			{"/raw/alice/doc.pact.md", v2, "public, max-age=60"},
			{"/raw/alice/doc@1.0.pact.md", v1, "public, max-age=31536000, immutable"},
			{"/raw/alice/doc@2.0.pact.md", v2, "public, max-age=31536000, immutable"},
		}
		for _, tc := range cases {
			t.Run(tc.path, func(t *testing.T) {
				resp := env.API.Get(tc.path)
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				if string(resp.Body) != tc.body {
					t.Errorf("body = %q, want %q", resp.Body, tc.body)
				}
				h := resp.Header
				if h.Get("Content-Type") != "text/markdown; charset=utf-8" || h.Get("ETag") != etag(tc.body) || h.Get("Cache-Control") != tc.cache {
					t.Errorf("headers: Content-Type %q, ETag %q (want %s), Cache-Control %q (want %q)",
						h.Get("Content-Type"), h.Get("ETag"), etag(tc.body), h.Get("Cache-Control"), tc.cache)
				}
				notModified := env.API.Get(tc.path, "If-None-Match: "+etag(tc.body))
				wantStatus(t, notModified.Status, http.StatusNotModified, notModified.Body)
				if len(notModified.Body) != 0 {
					t.Errorf("304 has a body: %q", notModified.Body)
				}
				stale := env.API.Get(tc.path, `If-None-Match: "0000"`)
				wantStatus(t, stale.Status, http.StatusOK, stale.Body)

				head := env.API.Do(mustRequest(t, http.MethodHead, env.URL+tc.path))
				wantStatus(t, head.Status, http.StatusOK, head.Body)
				if len(head.Body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(tc.body)) || head.Header.Get("ETag") != etag(tc.body) {
					t.Errorf("HEAD: body %d bytes, Content-Length %q, ETag %q", len(head.Body), head.Header.Get("Content-Length"), head.Header.Get("ETag"))
				}
			})
		}
		for _, path := range []string{
			"/raw/alice/missing.pact.md", "/raw/nobody/doc.pact.md", "/raw/alice/doc@9.9.pact.md",
			"/raw/alice/doc.md", "/raw/alice/doc@.pact.md", "/raw/alice/.pact.md",
		} {
			resp := env.API.Get(path)
			wantError(t, resp.Status, resp.JSON(t), http.StatusNotFound, "")
		}
	})
}

func mustRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
