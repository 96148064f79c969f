package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/translog"
)

type releaseAnswer struct {
	Release struct {
		ContractID       string           `json:"contract_id"`
		Version          string           `json:"version"`
		ContractDigest   string           `json:"contract_digest"`
		ContractURL      *string          `json:"contract_url"`
		ArtifactIndexURL string           `json:"artifact_index_url"`
		Artifacts        []map[string]any `json:"artifacts"`
		SourceGitCommit  *string          `json:"source_git_commit"`
		ReleaseDigest    string           `json:"release_digest"`
		CreatedAt        string           `json:"created_at"`
		LogIndex         *int64           `json:"log_index"`
		URL              string           `json:"url"`
		HTMLURL          string           `json:"html_url"`
	} `json:"release"`
	Created bool `json:"created"`
}

var (
	sumA = strings.Repeat("a", 64)
	sumB = strings.Repeat("b", 64)
)

func releaseBody(contract, version string, artifacts ...map[string]any) map[string]any {
	if artifacts == nil {
		artifacts = []map[string]any{}
	}
	return map[string]any{"contract_id": contract, "version": version,
		"artifact_index_url": "https://example.com/widget/" + version + "/index.json", "artifacts": artifacts}
}

// docSHA is the sha256 of a published version, from the package's detail.
func docSHA(t *testing.T, env *servertest.Env, owner, pack, version string) string {
	t.Helper()
	resp := env.API.Get("/api/packages/" + owner + "/" + pack)
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	for _, v := range resp.JSON(t)["versions"].([]any) {
		if v := v.(map[string]any); v["version"] == version {
			return v["sha256"].(string)
		}
	}
	t.Fatalf("no version %s", version)
	return ""
}

// Registering a release, reading it back by both encodings of
// contract_id, immutability and the log entry.
func TestReleaseRegisterAndRead(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		publishVersions(t, env, alice, "Widget", "1.0.0", "1.1.0")
		sha := docSHA(t, env, "alice", "widget", "1.0.0")

		body := releaseBody("alice/widget", "1.0.0",
			map[string]any{"name": "widget-linux-amd64.tar.gz", "url": "https://example.com/dl/widget-linux-amd64.tar.gz",
				"sha256": sumA, "size": 1234, "media_type": "application/gzip", "platform": map[string]any{"os": "linux", "arch": "amd64"}},
			map[string]any{"name": "ghcr.io/alice/widget", "digest": "sha256:" + sumB})
		body["contract_digest"] = "sha256:" + sha
		body["contract_url"] = env.URL + "/raw/alice/widget@1.0.0.pact.md"
		body["source_git_commit"] = "ABC1234"
		resp := env.API.PostJSON("/api/releases", body, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		var first releaseAnswer
		resp.Decode(t, &first)
		r := first.Release
		if !first.Created || r.ContractID != "alice/widget" || r.Version != "1.0.0" || r.ContractDigest != "sha256:"+sha ||
			r.SourceGitCommit == nil || *r.SourceGitCommit != "abc1234" || r.ContractURL == nil || len(r.Artifacts) != 2 ||
			r.Artifacts[0]["size"] != float64(1234) || r.Artifacts[0]["platform"].(map[string]any)["arch"] != "amd64" ||
			r.LogIndex == nil || r.URL != env.URL+"/api/contracts/alice/widget/releases/1.0.0" || r.HTMLURL != env.URL+"/alice/widget@1.0.0" {
			t.Fatalf("first registration answers %s", resp.Body)
		}

		// The log entry holds the release's digest.
		entries, err := env.Store.LogEntries(t.Context(), *r.LogIndex, *r.LogIndex+1)
		if err != nil {
			t.Fatal(err)
		}
		e, err := translog.Parse(entries[0])
		if err != nil {
			t.Fatal(err)
		}
		ev, err := e.Release()
		if err != nil || "sha256:"+ev.Release != r.ReleaseDigest || ev.SHA256 != sha || ev.Artifacts != 2 || ev.Commit != "abc1234" {
			t.Fatalf("log entry %q: %+v, %v", entries[0], ev, err)
		}

		// The identical release again (without the optional check of the
		// digest) changes nothing; a different one is refused.
		delete(body, "contract_digest")
		resp = env.API.PostJSON("/api/releases", body, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		var again releaseAnswer
		resp.Decode(t, &again)
		if again.Created || again.Release.CreatedAt != r.CreatedAt || *again.Release.LogIndex != *r.LogIndex || again.Release.ReleaseDigest != r.ReleaseDigest {
			t.Errorf("the identical release again answers %s; want created false and the first one", resp.Body)
		}
		body["source_git_commit"] = "def5678"
		resp = env.API.PostJSON("/api/releases", body, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusConflict, resp.Body)
		if !strings.Contains(resp.JSON(t)["error"].(string), "immutable") {
			t.Errorf("conflict says %s", resp.Body)
		}

		// Read back: contract_id as two segments, as one encoded segment
		// (net/http and real curl), and through the version's entry.
		var got releaseAnswer
		resp = env.API.Get("/api/contracts/alice/widget/releases/1.0.0")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp.Decode(t, &got)
		if got.Release.ReleaseDigest != r.ReleaseDigest || got.Release.Artifacts[1]["digest"] != "sha256:"+sumB {
			t.Errorf("GET answers %s", resp.Body)
		}
		for _, path := range []string{"/api/contracts/alice%2Fwidget/releases/1.0.0", "/api/contracts/Alice%2fWidget/releases/1.0.0",
			"/api/contracts/alice%2Fwidget/releases"} {
			req, err := http.NewRequest(http.MethodGet, env.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if req.URL.EscapedPath() != path {
				t.Fatalf("net/http would send %s, not %s", req.URL.EscapedPath(), path)
			}
			// Plain net/http: the OpenAPI router of apitest matches the
			// encoded path, and the document names the decoded one.
			httpResp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := io.ReadAll(httpResp.Body)
			httpResp.Body.Close()
			if httpResp.StatusCode != http.StatusOK || !bytes.Contains(answer, []byte(r.ReleaseDigest)) {
				t.Errorf("%s answers %d %s", path, httpResp.StatusCode, answer)
			}
			out, err := exec.Command("curl", "-fsS", env.URL+path).CombinedOutput()
			if err != nil || !bytes.Contains(out, []byte(r.ReleaseDigest)) {
				t.Errorf("curl %s: %v: %s", path, err, out)
			}
		}
		resp = env.API.Get("/api/contracts/alice/widget/releases/latest")
		wantStatus(t, resp.Status, http.StatusNotFound, resp.Body) // 1.1.0, the latest, has none

		d := env.API.Get("/api/packages/alice/widget")
		for _, v := range d.JSON(t)["versions"].([]any) {
			v := v.(map[string]any)
			want := any(nil)
			if v["version"] == "1.0.0" {
				want = r.URL
			}
			if v["release_url"] != want {
				t.Errorf("version %s has release_url %v, want %v", v["version"], v["release_url"], want)
			}
		}

		// A bare pack slug is the caller's own pack; lists are newest first
		// and paged.
		resp = env.API.PostJSON("/api/releases", releaseBody("widget", "1.1.0", map[string]any{"url": "https://example.com/x"}), alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = env.API.Get("/api/contracts/alice/widget/releases?limit=1")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		page := resp.JSON(t)
		releases := page["releases"].([]any)
		cursor, _ := page["next_cursor"].(string)
		if len(releases) != 1 || releases[0].(map[string]any)["version"] != "1.1.0" || cursor == "" {
			t.Fatalf("first page %s", resp.Body)
		}
		resp = env.API.Get("/api/contracts/alice/widget/releases?limit=1&cursor=" + cursor)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		page = resp.JSON(t)
		if releases := page["releases"].([]any); len(releases) != 1 || releases[0].(map[string]any)["version"] != "1.0.0" || page["next_cursor"] != nil {
			t.Fatalf("second page %s", resp.Body)
		}
		// A list counts each release's artifacts; its url answers them.
		listed := page["releases"].([]any)[0].(map[string]any)
		if _, has := listed["artifacts"]; has || listed["artifact_count"] != float64(2) || listed["url"] != r.URL ||
			listed["release_digest"] != r.ReleaseDigest {
			t.Errorf("a listed release is %v; want artifact_count 2, no artifacts, and its url", listed)
		}
		resp = env.API.Get("/api/contracts/alice/gadget/releases")
		wantStatus(t, resp.Status, http.StatusNotFound, resp.Body)
		resp = env.API.Get("/api/contracts/alice/widget/releases?limit=500")
		wantStatus(t, resp.Status, http.StatusBadRequest, resp.Body)
	})
}

// The rules a registration must pass: the digest, the owner, the token's
// scope, a published version, and bounds on every field.
func TestReleaseRefusals(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		publishVersions(t, env, alice, "Widget", "1.0.0")
		sha := docSHA(t, env, "alice", "widget", "1.0.0")
		post := func(body any, header string, status int, wantInError ...string) {
			t.Helper()
			var headers []string
			if header != "" {
				headers = append(headers, header)
			}
			resp := env.API.PostJSON("/api/releases", body, headers...)
			wantStatus(t, resp.Status, status, resp.Body)
			msg, _ := resp.JSON(t)["error"].(string)
			for _, w := range wantInError {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		}

		wrong := releaseBody("alice/widget", "1.0.0")
		wrong["contract_digest"] = sumA
		post(wrong, alice.Bearer(), http.StatusConflict, "sha256:"+sumA, "sha256:"+sha)
		post(releaseBody("alice/widget", "2.0.0"), alice.Bearer(), http.StatusNotFound, "no version 2.0.0", "publish it first")
		post(releaseBody("alice/gadget", "1.0.0"), alice.Bearer(), http.StatusNotFound, "alice/gadget")
		// Another owner's pack: 403, as for yanking it (the package is
		// public, so its existence is no secret).
		post(releaseBody("alice/widget", "1.0.0"), bob.Bearer(), http.StatusForbidden, "only alice may")
		post(releaseBody("widget", "1.0.0"), bob.Bearer(), http.StatusNotFound, "bob/widget")
		// Tokens: publish scope for that pack.
		other := makeToken(t, env, alice.Bearer(), map[string]any{"name": "other", "scopes": []string{"publish"}, "packages": []string{"gadget-*"}})
		post(releaseBody("alice/widget", "1.0.0"), bearer(other), http.StatusForbidden, `"widget" is not one of them`)
		yankOnly := makeToken(t, env, alice.Bearer(), map[string]any{"name": "yank", "scopes": []string{"yank"}})
		post(releaseBody("alice/widget", "1.0.0"), bearer(yankOnly), http.StatusForbidden, `lacks the "publish" scope`)
		post(releaseBody("alice/widget", "1.0.0"), "", http.StatusUnauthorized)

		// Malformed bodies and artifacts: 400 naming the field (and the
		// index), and nothing stored.
		many := make([]map[string]any, 1001)
		for i := range many {
			many[i] = map[string]any{"name": fmt.Sprint("a", i)}
		}
		longName := strings.Repeat("n", 257)
		fields := map[string]any{}
		for i := range 33 {
			fields[fmt.Sprint("f", i)] = 1
		}
		fields["name"] = "x"
		cases := []struct {
			name string
			edit func(b map[string]any)
			want string
		}{
			{"no contract_id", func(b map[string]any) { delete(b, "contract_id") }, "contract_id is required"},
			{"bad contract_id", func(b map[string]any) { b["contract_id"] = "alice/wid get" }, "contract_id:"},
			{"no version", func(b map[string]any) { delete(b, "version") }, "version is required"},
			{"latest", func(b map[string]any) { b["version"] = "latest" }, "name the version exactly"},
			{"no index", func(b map[string]any) { delete(b, "artifact_index_url") }, "artifact_index_url is required"},
			{"ftp index", func(b map[string]any) { b["artifact_index_url"] = "ftp://example.com/x" }, "artifact_index_url: not an http(s) URL"},
			{"index with password", func(b map[string]any) { b["artifact_index_url"] = "https://u:p@example.com/" }, "artifact_index_url: must not carry"},
			{"long index", func(b map[string]any) { b["artifact_index_url"] = "https://example.com/" + strings.Repeat("x", 2048) }, "artifact_index_url: longer than 2048"},
			{"javascript contract_url", func(b map[string]any) { b["contract_url"] = "javascript:alert(1)" }, "contract_url: not an http(s) URL"},
			{"short commit", func(b map[string]any) { b["source_git_commit"] = "abc12" }, "source_git_commit: not 7 to 64 hex digits"},
			{"non-hex commit", func(b map[string]any) { b["source_git_commit"] = "xyz1234" }, "source_git_commit:"},
			{"bad contract_digest", func(b map[string]any) { b["contract_digest"] = "md5:abc" }, "contract_digest:"},
			{"no artifacts", func(b map[string]any) { delete(b, "artifacts") }, "artifacts is required"},
			{"artifacts not a list", func(b map[string]any) { b["artifacts"] = "x" }, "artifacts must be an array"},
			{"too many artifacts", func(b map[string]any) { b["artifacts"] = many }, "artifacts: 1001 of them, more than 1000"},
			{"unknown field", func(b map[string]any) { b["notes"] = "x" }, `field "notes" is not known`},
			{"artifact not an object", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": "a"}, 7} }, "artifacts[1]: not a JSON object"},
			{"artifact without name or url", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"sha256": sumA}} }, "artifacts[0]: has neither a name nor a url"},
			{"artifact sha256", func(b map[string]any) {
				b["artifacts"] = []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}, map[string]any{"name": "c"}, map[string]any{"name": "d", "sha256": "abc"}}
			}, "artifacts[3].sha256: not 64 hex digits"},
			{"artifact sha256 not a string", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": "a", "sha256": 5}} }, "artifacts[0].sha256: not a string"},
			{"artifact digest", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": "a", "digest": "md5:00"}} }, "artifacts[0].digest:"},
			{"artifact digests differ", func(b map[string]any) {
				b["artifacts"] = []any{map[string]any{"name": "a", "sha256": sumA, "digest": "sha256:" + sumB}}
			}, "artifacts[0].digest: differs from artifacts[0].sha256"},
			{"artifact size", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": "a", "size": -1}} }, "artifacts[0].size: not a whole number"},
			{"artifact size fraction", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": "a", "size": 1.5}} }, "artifacts[0].size:"},
			{"artifact media type", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": "a", "media_type": "gzip"}} }, "artifacts[0].media_type:"},
			{"artifact url", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"url": "file:///etc/passwd"}} }, "artifacts[0].url: not an http(s) URL"},
			{"artifact long name", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": longName}} }, "artifacts[0].name:"},
			{"artifact name with a newline", func(b map[string]any) { b["artifacts"] = []any{map[string]any{"name": "a\nb"}} }, "artifacts[0].name:"},
			{"artifact too many fields", func(b map[string]any) { b["artifacts"] = []any{fields} }, "artifacts[0]: 34 fields, more than 32"},
			{"artifact large extra field", func(b map[string]any) {
				b["artifacts"] = []any{map[string]any{"name": "a", "notes": strings.Repeat("x", 5000)}}
			}, "artifacts[0].notes: longer than 4096 bytes"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				b := releaseBody("alice/widget", "1.0.0")
				c.edit(b)
				post(b, alice.Bearer(), http.StatusBadRequest, c.want)
			})
		}

		// A body over 256 KiB is refused before it is decoded.
		huge := releaseBody("alice/widget", "1.0.0", map[string]any{"name": "a", "notes": strings.Repeat("x", 256<<10)})
		post(huge, alice.Bearer(), http.StatusRequestEntityTooLarge, "larger than the limit of 262144 bytes")
		// A body just under it, of 1,000 artifacts, is accepted.
		full := make([]map[string]any, 1000)
		for i := range full {
			full[i] = map[string]any{"name": fmt.Sprintf("widget-%04d.tar.gz", i), "url": fmt.Sprintf("https://example.com/dl/%04d", i),
				"sha256": sumA, "size": i}
		}
		text, _ := json.Marshal(releaseBody("alice/widget", "1.0.0", full...))
		if len(text) > 256<<10 {
			t.Fatalf("the full body is %d bytes", len(text))
		}
		resp := env.API.Get("/api/contracts/alice/widget/releases/1.0.0")
		wantStatus(t, resp.Status, http.StatusNotFound, resp.Body) // nothing refused was stored
		post(releaseBody("alice/widget", "1.0.0", full...), alice.Bearer(), http.StatusOK)
	})
}
