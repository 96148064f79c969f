package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// A version's page lists its release: each artifact with its digest, the
// index and the source commit; a version without one shows no release.
func TestVersionPageShowsItsRelease(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		publishDoc(t, env, alice, packDoc("Widget", "1.0.0"))
		publishDoc(t, env, alice, packDoc("Widget", "1.1.0"))
		sum := strings.Repeat("c", 64)
		resp := env.API.PostJSON("/api/releases", map[string]any{
			"contract_id": "alice/widget", "version": "1.0.0", "source_git_commit": "0123abcd",
			"artifact_index_url": "https://example.com/widget/v1.0.0/",
			"artifacts": []any{
				map[string]any{"name": "widget-linux-amd64.tar.gz", "url": "https://example.com/dl/widget-linux-amd64.tar.gz",
					"sha256": sum, "size": 2048, "media_type": "application/gzip"},
				map[string]any{"name": "ghcr.io/alice/widget:1.0.0 <b>", "digest": "sha512:" + strings.Repeat("d", 128)},
			},
		}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		digest := resp.JSON(t)["release"].(map[string]any)["release_digest"].(string)

		page := web.Get("/alice/widget@1.0.0")
		servertest.WantPage(t, page, http.StatusOK,
			`<h2 id="release-heading">Release</h2>`,
			`<dt>Source commit</dt><dd><code class="commit">0123abcd</code>`,
			`<a href="https://example.com/widget/v1.0.0/" rel="nofollow noopener">`,
			`<a href="https://example.com/dl/widget-linux-amd64.tar.gz" rel="nofollow noopener">widget-linux-amd64.tar.gz</a> <span class="muted">application/gzip</span>`,
			`<code class="digest">sha256:`+sum+`</code>`, "2048 bytes",
			`ghcr.io/alice/widget:1.0.0 &lt;b&gt;`, `<code class="digest">sha512:`+strings.Repeat("d", 128)+`</code>`,
			`<code class="digest">`+digest+`</code>`, `href="/api/contracts/alice/widget/releases/1.0.0"`,
		)
		for _, path := range []string{"/alice/widget@1.1.0", "/alice/widget"} {
			if p := web.Get(path); strings.Contains(p.Body, "release-heading") {
				t.Errorf("%s, a version without a release, shows one", path)
			}
		}
	})
}
