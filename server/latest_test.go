package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/servertest"
)

// The latest version is the highest semantic version, not the last publish,
// everywhere the server names one: publish answers, the list, the detail,
// the raw URL (also as @latest), install_command and the pages.
func TestLatestIsTheHighestVersion(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		docs := map[string]string{}
		for _, v := range []string{"2.0.0", "1.3.1", "3.0.0-rc.1", "draft"} {
			docs[v] = packDoc("Widget", v, "description: release "+v+"\n")
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": docs[v]}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var got struct {
				Package struct{ Version, Description string } `json:"package"`
			}
			resp.Decode(t, &got)
			if got.Package.Version != "2.0.0" || got.Package.Description != "release 2.0.0" {
				t.Errorf("publishing %s answers package version %q (%q), want 2.0.0", v, got.Package.Version, got.Package.Description)
			}
		}
		sum := sha256.Sum256([]byte(docs["2.0.0"]))
		wantSHA := hex.EncodeToString(sum[:])

		var list struct {
			Packages []struct {
				Version, SHA256, Description string
				RawURL                       string `json:"raw_url"`
				InstallCommand               string `json:"install_command"`
			} `json:"packages"`
		}
		resp := env.API.Get("/api/packages")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp.Decode(t, &list)
		if len(list.Packages) != 1 {
			t.Fatalf("%d packages listed, want 1", len(list.Packages))
		}
		if p := list.Packages[0]; p.Version != "2.0.0" || p.SHA256 != wantSHA || p.Description != "release 2.0.0" {
			t.Errorf("listed %+v, want version 2.0.0 with its sha256 and description", p)
		}

		var detail struct {
			Package  struct{ Version, SHA256 string } `json:"package"`
			Versions []struct{ Version string }       `json:"versions"`
		}
		resp = env.API.Get("/api/packages/alice/widget")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp.Decode(t, &detail)
		if detail.Package.Version != "2.0.0" || detail.Package.SHA256 != wantSHA || len(detail.Versions) != 4 {
			t.Errorf("detail = %+v, want latest 2.0.0 of 4 versions", detail)
		}

		// The raw URL the list hands out, and install_command with it.
		raw := strings.TrimPrefix(list.Packages[0].RawURL, env.URL)
		if !strings.Contains(list.Packages[0].InstallCommand, list.Packages[0].RawURL) {
			t.Errorf("install_command %q does not fetch %q", list.Packages[0].InstallCommand, list.Packages[0].RawURL)
		}
		for _, c := range []struct {
			method, path, version, cache string
		}{
			{"GET", raw, "2.0.0", "public, max-age=60"},
			{"GET", "/raw/alice/widget@latest.pact.md", "2.0.0", "public, max-age=60"},
			{"HEAD", "/raw/alice/widget@latest.pact.md", "2.0.0", "public, max-age=60"},
			{"GET", "/raw/Alice/widget@latest.pact.md", "2.0.0", "public, max-age=60"},
			{"GET", "/raw/alice/widget@1.3.1.pact.md", "1.3.1", "public, max-age=31536000, immutable"},
			{"GET", "/raw/alice/widget@draft.pact.md", "draft", "public, max-age=31536000, immutable"},
		} {
			var resp *apitest.Response
			if c.method == "HEAD" {
				resp = env.API.Head(c.path)
			} else {
				resp = env.API.Get(c.path)
			}
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			sum := sha256.Sum256([]byte(docs[c.version]))
			if etag := resp.Header.Get("ETag"); etag != `"`+hex.EncodeToString(sum[:])+`"` {
				t.Errorf("%s %s: ETag %s, want version %s's", c.method, c.path, etag, c.version)
			}
			if c.method == "GET" && string(resp.Body) != docs[c.version] {
				t.Errorf("%s %s serves\n%s\nwant version %s", c.method, c.path, resp.Body, c.version)
			}
			if got := resp.Header.Get("Cache-Control"); got != c.cache {
				t.Errorf("%s %s: Cache-Control %q, want %q", c.method, c.path, got, c.cache)
			}
		}

		web := servertest.NewWebClient(t, env.URL)
		for path, want := range map[string]string{
			"/alice/widget":        `<span class="version">2.0.0</span> (latest)`,
			"/alice/widget@latest": `<span class="version">2.0.0</span> (latest)`,
			"/alice/widget@1.3.1":  `<span class="version">1.3.1</span> (latest: <a href="/alice/widget">2.0.0</a>)`,
		} {
			servertest.WantPage(t, web.Get(path), http.StatusOK, want)
		}
	})
}

// No version may be called latest: @latest could never reach it.
func TestPublishRefusesVersionNamedLatest(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("Widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		for _, v := range []string{"latest", "Latest", "LATEST"} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("Widget", v)}, alice.Bearer())
			var body map[string]any
			resp.Decode(t, &body)
			wantError(t, resp.Status, body, http.StatusBadRequest, `version "`+v+`" is reserved`)
			resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("Other", v)}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusBadRequest, resp.Body)
		}
		var detail struct {
			Package  struct{ Version string }   `json:"package"`
			Versions []struct{ Version string } `json:"versions"`
		}
		resp = env.API.Get("/api/packages/alice/widget")
		resp.Decode(t, &detail)
		if detail.Package.Version != "1.0.0" || len(detail.Versions) != 1 {
			t.Errorf("after the refused publishes: %+v, want only 1.0.0", detail)
		}
		resp = env.API.Get("/api/packages/alice/other")
		wantStatus(t, resp.Status, http.StatusNotFound, resp.Body)
	})
}
