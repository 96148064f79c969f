package apitest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pact-registry/pact/internal/apitest"
)

// recordingTB is a testing.TB whose Errorf is recorded instead of failing
// the test, so these tests can assert that the harness reports a mismatch.
// Everything else (Fatalf included: a harness that cannot run at all is a
// real failure) goes to the real test.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) recorded() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

const sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func validPackage() map[string]any {
	return map[string]any{
		"id": 1, "owner_slug": "alice", "pack_slug": "code-review", "name": "Code review",
		"description": "Reviews code", "scheme": "", "version": "1.0", "sha256": sha,
		"url":             "http://pact.test/alice/code-review",
		"raw_url":         "http://pact.test/raw/alice/code-review.pact.md",
		"install_command": "curl -fsSL http://pact.test/raw/alice/code-review.pact.md -o code-review.pact.md",
		"versions_url":    "http://pact.test/api/packages/alice/code-review",
		"created_at":      "2026-03-01T12:00:00Z", "updated_at": "2026-03-02T08:30:00Z",
		"deprecated":              "",
		"trusted_publishing_only": false,
		"downloads":               0,
	}
}

func validVersion(signature any) map[string]any {
	return map[string]any{
		"version": "1.0", "name": "Code review", "description": "", "scheme": "", "sha256": sha, "size": 120,
		"created_at": "2026-03-01T12:00:00Z", "raw_url": "http://pact.test/raw/alice/code-review@1.0.pact.md",
		"signature": signature, "yanked": false, "yank_reason": "", "log_index": 7, "ci": nil, "published_by": nil, "release_url": nil,
	}
}

func without(m map[string]any, key string) map[string]any {
	delete(m, key)
	return m
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func answerJSON(status int, body any) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, status, body) }
}

func answerRaw(cacheControl string, etag string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if etag != "" {
			w.Header().Set("ETag", etag)
		}
		w.Header().Set("Cache-Control", cacheControl)
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		if r.Method != http.MethodHead {
			_, _ = io.WriteString(w, "# Code review\n\n```yaml pact:pack\nversion: \"1.0\"\n```\n")
		}
	}
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHarnessReportsWhatTheDocumentDoesNotAllow(t *testing.T) {
	const (
		latestCache = "public, max-age=60"
		pinnedCache = "public, max-age=31536000, immutable"
		quotedSHA   = `"` + sha + `"`
	)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		send    func(c *apitest.Client)
		// wantReport lists substrings of the one reported error; nil: no report.
		wantReport []string
	}{
		{
			name:    "valid package list passes",
			handler: answerJSON(200, map[string]any{"ok": true, "packages": []any{validPackage()}, "next_cursor": nil}),
			send:    func(c *apitest.Client) { c.Get("/api/packages?limit=5") },
		},
		{
			name:       "package missing raw_url is reported",
			handler:    answerJSON(200, map[string]any{"ok": true, "packages": []any{without(validPackage(), "raw_url")}, "next_cursor": nil}),
			send:       func(c *apitest.Client) { c.Get("/api/packages") },
			wantReport: []string{"GET /api/packages -> 200", "listPackages", `property "raw_url" is missing`},
		},
		{
			name:       "package list without next_cursor is reported",
			handler:    answerJSON(200, map[string]any{"ok": true, "packages": []any{}}),
			send:       func(c *apitest.Client) { c.Get("/api/packages") },
			wantReport: []string{`property "next_cursor" is missing`},
		},
		{
			name:       "a timestamp that is not UTC is reported",
			handler:    answerJSON(200, map[string]any{"ok": true, "packages": []any{func() map[string]any { p := validPackage(); p["created_at"] = "2026-03-01T12:00:00+02:00"; return p }()}, "next_cursor": nil}),
			send:       func(c *apitest.Client) { c.Get("/api/packages") },
			wantReport: []string{"created_at"},
		},
		{
			name: "JSON served as text/plain is reported",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "packages": []any{}, "next_cursor": nil})
			},
			send:       func(c *apitest.Client) { c.Get("/api/packages") },
			wantReport: []string{"documented as application/json", `"text/plain"`},
		},
		{
			name:       "a status the operation does not document is reported",
			handler:    answerJSON(http.StatusTeapot, map[string]any{"ok": false, "error": "teapot"}),
			send:       func(c *apitest.Client) { c.Get("/api/packages") },
			wantReport: []string{"status 418 is not documented"},
		},
		{
			name:       "an error with ok true is reported",
			handler:    answerJSON(400, map[string]any{"ok": true, "error": "bad limit"}),
			send:       func(c *apitest.Client) { c.Get("/api/packages?limit=0") },
			wantReport: []string{"Error"},
		},
		{
			name:    "package detail with a signed and an unsigned version passes",
			handler: answerJSON(200, map[string]any{"ok": true, "package": validPackage(), "log_head": nil, "versions": []any{validVersion(map[string]any{"fingerprint": "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s", "timestamp": 1772366400, "nonce": "0123456789abcdef", "signature": "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n", "signed_lines_known": true, "signed_name": "", "signed_description": "", "public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"}), validVersion(nil)}}),
			send:    func(c *apitest.Client) { c.Get("/api/packages/alice/code-review") },
		},
		{
			name:    "a version signed before the signed lines were kept passes",
			handler: answerJSON(200, map[string]any{"ok": true, "package": validPackage(), "log_head": nil, "versions": []any{validVersion(map[string]any{"fingerprint": "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s", "timestamp": 1772366400, "nonce": "0123456789abcdef", "signature": "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n", "signed_lines_known": false, "signed_name": nil, "signed_description": nil, "public_key": nil})}}),
			send:    func(c *apitest.Client) { c.Get("/api/packages/alice/code-review") },
		},
		{
			name:       "a signature without its signed lines is reported",
			handler:    answerJSON(200, map[string]any{"ok": true, "package": validPackage(), "versions": []any{validVersion(map[string]any{"fingerprint": "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s", "timestamp": 1772366400, "nonce": "0123456789abcdef", "signature": "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"})}}),
			send:       func(c *apitest.Client) { c.Get("/api/packages/alice/code-review") },
			wantReport: []string{"signed_name"},
		},
		{
			name:       "a version without its signature field is reported",
			handler:    answerJSON(200, map[string]any{"ok": true, "package": validPackage(), "versions": []any{without(validVersion(nil), "signature")}}),
			send:       func(c *apitest.Client) { c.Get("/api/packages/alice/code-review") },
			wantReport: []string{`property "signature" is missing`},
		},
		{
			name:       "401 without WWW-Authenticate is reported",
			handler:    answerJSON(401, map[string]any{"ok": false, "error": "missing token"}),
			send:       func(c *apitest.Client) { c.Get("/api/me") },
			wantReport: []string{"getMe", "WWW-Authenticate"},
		},
		{
			name: "401 with WWW-Authenticate passes",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="pact"`)
				writeJSON(w, 401, map[string]any{"ok": false, "error": "missing token"})
			},
			send: func(c *apitest.Client) { c.Get("/api/me", "X-Pact-Token: nope") },
		},
		{
			name:    "latest raw document passes",
			handler: answerRaw(latestCache, quotedSHA),
			send:    func(c *apitest.Client) { c.Get("/raw/alice/code-review.pact.md") },
		},
		{
			name:    "pinned raw document passes",
			handler: answerRaw(pinnedCache, quotedSHA),
			send:    func(c *apitest.Client) { c.Get("/raw/alice/code-review@1.0.pact.md") },
		},
		{
			// With "pinned raw document passes" (the latest operation refuses
			// the pinned Cache-Control), proves the pinned address is checked
			// against its own operation, not the latest one whose template
			// also matches it. (@latest answers the latest's Cache-Control
			// at the pinned address, so that value passes there.)
			name:       "pinned raw document with a Cache-Control of neither is reported",
			handler:    answerRaw("no-store", quotedSHA),
			send:       func(c *apitest.Client) { c.Get("/raw/alice/code-review@1.0.pact.md") },
			wantReport: []string{"getRawDocumentVersion", "Cache-Control"},
		},
		{
			name:       "HEAD of a raw document without ETag is reported",
			handler:    answerRaw(latestCache, ""),
			send:       func(c *apitest.Client) { c.Head("/raw/alice/code-review.pact.md") },
			wantReport: []string{"HEAD /raw/alice/code-review.pact.md -> 200", "headRawDocument", "ETag"},
		},
		{
			name:    "HEAD of a raw document with its headers passes",
			handler: answerRaw(latestCache, quotedSHA),
			send:    func(c *apitest.Client) { c.Head("/raw/alice/code-review.pact.md") },
		},
		{
			name:    "missing raw document answered with the error object passes",
			handler: answerJSON(404, map[string]any{"ok": false, "error": "no such package"}),
			send:    func(c *apitest.Client) { c.Get("/raw/alice/nothing.pact.md") },
		},
		{
			name: "authorized_keys as text/plain passes",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				_, _ = io.WriteString(w, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl laptop\n")
			},
			send: func(c *apitest.Client) { c.Get("/alice.keys") },
		},
		{
			name:    "unknown /api route answered 404 with the error object passes",
			handler: answerJSON(404, map[string]any{"ok": false, "error": "no such route"}),
			send:    func(c *apitest.Client) { c.Get("/api/nothing-here") },
		},
		{
			name: "unknown /api route answered with HTML is reported",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(404)
				_, _ = io.WriteString(w, "<h1>not found</h1>")
			},
			send:       func(c *apitest.Client) { c.Get("/api/nothing-here") },
			wantReport: []string{"application/json", "not JSON"},
		},
		{
			name:    "wrong method answered 405 with the error object passes",
			handler: answerJSON(405, map[string]any{"ok": false, "error": "method DELETE is not allowed"}),
			send:    func(c *apitest.Client) { c.Delete("/api/packages") },
		},
		{
			name:       "wrong method answered 404 is reported",
			handler:    answerJSON(404, map[string]any{"ok": false, "error": "no such route"}),
			send:       func(c *apitest.Client) { c.Delete("/api/packages") },
			wantReport: []string{"must be 405"},
		},
		{
			name:       "a method the document does not give a public path is reported",
			handler:    answerJSON(405, map[string]any{"ok": false, "error": "method not allowed"}),
			send:       func(c *apitest.Client) { c.PostJSON("/alice.keys", map[string]string{}) },
			wantReport: []string{"route not in openapi.json", "not for method POST"},
		},
		{
			name:       "a path outside the document is reported",
			handler:    answerJSON(200, map[string]any{"ok": true}),
			send:       func(c *apitest.Client) { c.Get("/somewhere/else/entirely") },
			wantReport: []string{"route not in openapi.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := serve(t, tt.handler)
			rec := &recordingTB{TB: t}
			tt.send(apitest.New(rec, base))
			reports := rec.recorded()
			if tt.wantReport == nil {
				if len(reports) != 0 {
					t.Fatalf("want no report, got:\n%s", strings.Join(reports, "\n"))
				}
				return
			}
			if len(reports) != 1 {
				t.Fatalf("want one report, got %d:\n%s", len(reports), strings.Join(reports, "\n"))
			}
			for _, want := range tt.wantReport {
				if !strings.Contains(reports[0], want) {
					t.Errorf("the report does not mention %q:\n%s", want, reports[0])
				}
			}
		})
	}
}

// What the helpers put on the wire, as a server sees it.
func TestRequestsReachTheServerAsWritten(t *testing.T) {
	publishResult := map[string]any{"ok": true, "package": validPackage(), "created": true, "warnings": []string{}, "log_index": 0,
		"published": map[string]any{"version": "1.0", "sha256": sha, "size": 10, "created_at": "2026-03-01T12:00:00Z", "log_index": 0}}
	type seen struct {
		method, path, contentType, token, authorization string
		fields                                          map[string]string
		body                                            string
	}
	var got seen
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = seen{method: r.Method, path: r.URL.RequestURI(), contentType: r.Header.Get("Content-Type"),
			token: r.Header.Get("X-Pact-Token"), authorization: r.Header.Get("Authorization"), fields: map[string]string{}}
		if strings.HasPrefix(got.contentType, "multipart/form-data") {
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				t.Errorf("parsing the multipart body: %v", err)
			}
			for name, values := range r.MultipartForm.Value {
				got.fields[name] = values[0]
			}
			for name, files := range r.MultipartForm.File {
				f, err := files[0].Open()
				if err != nil {
					t.Fatal(err)
				}
				content, _ := io.ReadAll(f)
				f.Close()
				got.fields[name] = files[0].Filename + ":" + string(content)
			}
		} else {
			body, _ := io.ReadAll(r.Body)
			got.body = string(body)
		}
		writeJSON(w, 200, publishResult)
	}))
	c := apitest.New(t, base)

	t.Run("PostJSON encodes the body and sends the headers", func(t *testing.T) {
		c.PostJSON("/api/publish", map[string]string{"content": "# hi"}, "Authorization: Bearer pact_abc")
		want := seen{method: "POST", path: "/api/publish", contentType: "application/json",
			authorization: "Bearer pact_abc", fields: map[string]string{}, body: `{"content":"# hi"}`}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("server saw %+v, want %+v", got, want)
		}
	})
	t.Run("PostJSON sends raw bytes as they are", func(t *testing.T) {
		c.PostJSON("/api/publish", []byte(`{"content":`), "X-Pact-Token: pact_xyz")
		if got.body != `{"content":` || got.token != "pact_xyz" {
			t.Errorf("server saw body %q and token %q", got.body, got.token)
		}
	})
	t.Run("PostMultipart sends fields and files", func(t *testing.T) {
		c.PostMultipart("/api/publish",
			map[string]string{"name": "Code review", "description": "Reviews"},
			map[string]apitest.FileField{"file": {Name: "code-review.pact.md", Content: []byte("# doc\n")}},
			"X-Pact-Token: pact_xyz")
		want := map[string]string{"name": "Code review", "description": "Reviews", "file": "code-review.pact.md:# doc\n"}
		if fmt.Sprint(got.fields) != fmt.Sprint(want) {
			t.Errorf("server saw fields %v, want %v", got.fields, want)
		}
		if !strings.HasPrefix(got.contentType, "multipart/form-data; boundary=") {
			t.Errorf("Content-Type = %q", got.contentType)
		}
	})
	t.Run("Post sends any Content-Type", func(t *testing.T) {
		c.Post("/api/publish", "text/plain", []byte("# doc"), "X-Pact-Token: pact_xyz")
		if got.contentType != "text/plain" || got.body != "# doc" {
			t.Errorf("server saw Content-Type %q and body %q", got.contentType, got.body)
		}
	})
	t.Run("Do sends a request without a host to the server", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, "/api/publish?x=1", strings.NewReader(`{"content":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp := c.Do(req)
		if got.path != "/api/publish?x=1" {
			t.Errorf("server saw path %q", got.path)
		}
		if resp.JSON(t)["created"] != true {
			t.Errorf("decoded answer = %v", resp.JSON(t))
		}
	})
}

func TestDecodeReadsTheBody(t *testing.T) {
	base := serve(t, answerJSON(200, map[string]any{"ok": true, "user": map[string]any{
		"id": 7, "email": "alice@example.com", "username": "alice", "created_at": "2026-03-01T12:00:00Z"},
		"token": map[string]any{"name": "cli", "scopes": nil, "packages": nil, "expires_at": nil}}))
	resp := apitest.New(t, base).Get("/api/me", "Authorization: Bearer pact_abc")
	var me struct {
		OK   bool `json:"ok"`
		User struct {
			ID       int64  `json:"id"`
			Username string `json:"username"`
		} `json:"user"`
	}
	resp.Decode(t, &me)
	if resp.Status != 200 || !me.OK || me.User.ID != 7 || me.User.Username != "alice" {
		t.Errorf("status %d, decoded %+v", resp.Status, me)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
}

// Test suites run in parallel; one shared document and router serve them all.
func TestConcurrentClientsShareTheDocument(t *testing.T) {
	base := serve(t, answerJSON(200, map[string]any{"ok": true, "packages": []any{validPackage(), without(validPackage(), "url")}, "next_cursor": "abc"}))
	rec := &recordingTB{TB: t}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c := apitest.New(rec, base)
			for range 5 {
				c.Get("/api/packages")
			}
		})
	}
	wg.Wait()
	reports := rec.recorded()
	if len(reports) != 40 {
		t.Fatalf("want 40 reports of the missing url, got %d", len(reports))
	}
	for _, r := range reports {
		if !strings.Contains(r, `property "url" is missing`) {
			t.Errorf("unexpected report:\n%s", r)
		}
	}
}

func TestSpecLoads(t *testing.T) {
	doc, err := apitest.Spec()
	if err != nil {
		t.Fatal(err)
	}
	if doc.Paths.Value("/api/packages") == nil {
		t.Error("the loaded document has no /api/packages")
	}
}
