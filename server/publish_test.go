package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server/registry"
)

func TestPublishJSON(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		doc := packDoc("Hello World", "1.0", "scheme: pact/v1\ndescription: Says hello\n")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		var got struct {
			OK      bool `json:"ok"`
			Created bool `json:"created"`
			Package struct {
				ID                                              int64
				OwnerSlug                                       string `json:"owner_slug"`
				PackSlug                                        string `json:"pack_slug"`
				Name, Version, Scheme, Description, URL, SHA256 string
				RawURL                                          string `json:"raw_url"`
				InstallCommand                                  string `json:"install_command"`
				VersionsURL                                     string `json:"versions_url"`
			} `json:"package"`
		}
		resp.Decode(t, &got)
		p := got.Package
		if !got.OK || !got.Created {
			t.Errorf("ok=%v created=%v, want both true", got.OK, got.Created)
		}
		want := map[string][2]string{
			"owner_slug":      {p.OwnerSlug, "alice"},
			"pack_slug":       {p.PackSlug, "hello-world"},
			"name":            {p.Name, "Hello World"},
			"version":         {p.Version, "1.0"},
			"scheme":          {p.Scheme, "pact/v1"},
			"description":     {p.Description, "Says hello"},
			"url":             {p.URL, env.URL + "/alice/hello-world"},
			"raw_url":         {p.RawURL, env.URL + "/raw/alice/hello-world.pact.md"},
			"install_command": {p.InstallCommand, "curl -fsSL " + env.URL + "/raw/alice/hello-world.pact.md -o hello-world.pact.md"},
			"versions_url":    {p.VersionsURL, env.URL + "/api/packages/alice/hello-world"},
		}
		for field, gw := range want {
			if gw[0] != gw[1] {
				t.Errorf("%s = %q, want %q", field, gw[0], gw[1])
			}
		}
		// The raw URL serves exactly what was published.
		raw := env.API.Get("/raw/alice/hello-world.pact.md")
		wantStatus(t, raw.Status, http.StatusOK, raw.Body)
		if string(raw.Body) != doc {
			t.Errorf("raw document differs from the published one:\n%s", raw.Body)
		}
	})
}

func TestPublishAcceptsBothTokenHeaders(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		for _, header := range []string{"Authorization: Bearer " + alice.Token, "X-Pact-Token: " + alice.Token} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("pack", "1.0.0")}, header)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
	})
}

func TestPublishMultipart(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		fromFile := "# doc\n\n```yaml pact:pack\nversion: 2.0.0\n```\n"
		t.Run("file name is the last-resort name", func(t *testing.T) {
			resp := env.API.PostMultipart("/api/publish", nil,
				map[string]apitest.FileField{"file": {Name: "My Tools.pact.md", Content: []byte(fromFile)}}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			p := resp.JSON(t)["package"].(map[string]any)
			if p["pack_slug"] != "my-tools" || p["version"] != "2.0.0" {
				t.Errorf("package = %v, want slug my-tools version 2.0.0", p)
			}
		})
		t.Run("file wins over content; name and description fields win over the document", func(t *testing.T) {
			resp := env.API.PostMultipart("/api/publish",
				map[string]string{"content": packDoc("ignored", "9.9.9"), "name": "Form Name", "description": "from the form"},
				map[string]apitest.FileField{"file": {Name: "x.pact.md", Content: []byte(packDoc("doc name", "1.2.3"))}},
				alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			p := resp.JSON(t)["package"].(map[string]any)
			if p["pack_slug"] != "form-name" || p["version"] != "1.2.3" || p["description"] != "from the form" {
				t.Errorf("package = %v, want form-name 1.2.3 'from the form'", p)
			}
		})
		t.Run("content field alone", func(t *testing.T) {
			resp := env.API.PostMultipart("/api/publish", map[string]string{"content": packDoc("text field", "1.0")}, nil, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		})
		t.Run("neither file nor content", func(t *testing.T) {
			resp := env.API.PostMultipart("/api/publish", map[string]string{"name": "x"}, nil, alice.Bearer())
			wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "file")
		})
	})
}

func TestPublishRejectsBadRequests(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		big := packDoc("big", "1.0", "notes: "+strings.Repeat("x", 1<<20)+"\n")
		cases := []struct {
			name        string
			contentType string
			body        string
			headers     []string
			status      int
			message     string
		}{
			{"no token", "application/json", `{"content":"x"}`, []string{"Accept: application/json"}, 401, "token"},
			{"unknown token", "application/json", `{"content":"x"}`, []string{"Authorization: Bearer pact_nope"}, 401, "token"},
			{"token without prefix", "application/json", `{"content":"x"}`, []string{"X-Pact-Token: abc"}, 401, "token"},
			{"empty body", "application/json", ``, nil, 400, "body is required"},
			{"malformed JSON", "application/json", `{"content":`, nil, 400, "not valid JSON"},
			{"content missing", "application/json", `{"name":"x"}`, nil, 400, "content is required"},
			{"content empty", "application/json", `{"content":""}`, nil, 400, "content is required"},
			{"content not a string", "application/json", `{"content":42}`, nil, 400, "content must be a string"},
			{"trailing data", "application/json", `{"content":"x"} {}`, nil, 400, "after the JSON"},
			{"no pact block", "application/json", `{"content":"# just prose\n"}`, nil, 400, "no ```yaml pact:pack``` block"},
			{"two pact blocks", "application/json", jsonString(packDoc("a", "1.0") + packDoc("b", "1.0")), nil, 400, "2"},
			{"no version", "application/json", jsonString("```yaml pact:pack\nname: x\n```\n"), nil, 400, "version"},
			{"bad version", "application/json", jsonString(packDoc("x", "'1 0'")), nil, 400, "version"},
			{"not a mapping", "application/json", jsonString("```yaml pact:pack\n- a\n```\n"), nil, 400, "mapping"},
			{"bad YAML", "application/json", jsonString("# t\n\n```yaml pact:pack\nname: [\n```\n"), nil, 400, "line"},
			{"empty slug", "application/json", jsonString(packDoc("'!!!'", "1.0")), nil, 400, "slug"},
			{"invalid UTF-8", "application/json", `{"content":"` + "\xff" + `"}`, nil, 400, ""},
			{"document too large", "application/json", jsonString(big), nil, 413, "limit"},
			{"body too large", "application/json", `{"content":"` + strings.Repeat("x", 5<<20) + `"}`, nil, 413, "limit"},
			{"text/plain", "text/plain", packDoc("x", "1.0"), nil, 415, "Content-Type"},
			{"form-urlencoded", "application/x-www-form-urlencoded", "content=x", nil, 415, "Content-Type"},
			{"no content type with body", "", `{"content":"x"}`, nil, 415, "Content-Type"},
			{"multipart without boundary", "multipart/form-data", "x", nil, 400, "boundary"},
			{"multipart broken", "multipart/form-data; boundary=zzz", "--zzz\r\nbroken", nil, 400, "multipart"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				headers := tc.headers
				if headers == nil {
					headers = []string{alice.Bearer()}
				}
				resp := env.API.Post("/api/publish", tc.contentType, []byte(tc.body), headers...)
				wantError(t, resp.Status, resp.JSON(t), tc.status, tc.message)
				if tc.status == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="pact"` {
					t.Errorf("WWW-Authenticate = %q", resp.Header.Get("WWW-Authenticate"))
				}
				assertNoPackages(t, env)
			})
		}
	})
}

func jsonString(doc string) string {
	return `{"content":` + quoteJSON(doc) + `}`
}

func assertNoPackages(t *testing.T, env *servertest.Env) {
	t.Helper()
	pkgs, err := env.Store.ListPackages(context.Background(), registry.PackageFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 0 {
		t.Errorf("a rejected request stored %d package(s): %+v", len(pkgs), pkgs)
	}
}

func TestPublishVersionsAreImmutable(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		publish := func(doc string) *apitest.Response {
			return env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
		}
		first := publish(packDoc("foo", "1.2.0"))
		wantStatus(t, first.Status, 200, first.Body)
		id := first.JSON(t)["package"].(map[string]any)["id"]

		again := publish(packDoc("foo", "1.2.0"))
		wantStatus(t, again.Status, 200, again.Body)
		if got := again.JSON(t); got["created"] != false || got["package"].(map[string]any)["id"] != id {
			t.Errorf("identical re-publish = %v, want the same package and created=false", got)
		}

		changed := publish(packDoc("foo", "1.2.0", "description: changed\n"))
		wantError(t, changed.Status, changed.JSON(t), http.StatusConflict,
			"version 1.2.0 of alice/foo already exists with different content")
		raw := env.API.Get("/raw/alice/foo.pact.md")
		if string(raw.Body) != packDoc("foo", "1.2.0") {
			t.Errorf("a 409 changed the stored document: %s", raw.Body)
		}

		next := publish(packDoc("foo", "1.3.0"))
		wantStatus(t, next.Status, 200, next.Body)
		p := next.JSON(t)["package"].(map[string]any)
		if p["id"] != id || p["version"] != "1.3.0" {
			t.Errorf("after publishing 1.3.0: package = %v, want same id and version 1.3.0", p)
		}
		detail := env.API.Get("/api/packages/alice/foo")
		wantStatus(t, detail.Status, 200, detail.Body)
		versions := detail.JSON(t)["versions"].([]any)
		if len(versions) != 2 || versions[0].(map[string]any)["version"] != "1.3.0" || versions[1].(map[string]any)["version"] != "1.2.0" {
			t.Errorf("versions = %v, want 1.3.0 then 1.2.0", versions)
		}
		// Each version stays reachable at its own immutable address.
		old := env.API.Get("/raw/alice/foo@1.2.0.pact.md")
		if string(old.Body) != packDoc("foo", "1.2.0") {
			t.Errorf("pinned 1.2.0 = %s", old.Body)
		}
	})
}

func TestPublishOwnerIsTheTokensAccount(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		a := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("shared", "1.0")}, alice.Bearer())
		b := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("shared", "1.0", "description: bob's\n")}, bob.Bearer())
		wantStatus(t, a.Status, 200, a.Body)
		wantStatus(t, b.Status, 200, b.Body)
		pa, pb := a.JSON(t)["package"].(map[string]any), b.JSON(t)["package"].(map[string]any)
		if pa["owner_slug"] != "alice" || pb["owner_slug"] != "bob" || pa["id"] == pb["id"] {
			t.Errorf("alice's %v and bob's %v must be two packages of their own", pa, pb)
		}
	})
}

func TestBaseURLComesFromConfigNotHost(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("x", "1.0")}, alice.Bearer(), "Host: evil.example")
		wantStatus(t, resp.Status, 200, resp.Body)
		if url := resp.JSON(t)["package"].(map[string]any)["url"].(string); !strings.HasPrefix(url, env.URL+"/") {
			t.Errorf("url = %q, want it under the configured base %s", url, env.URL)
		}
	})
}

// A publish answer names the version published, token or signed, also
// when it is not the latest (package then describes another version) and
// when the identical version existed already: its fields are the ones
// GET /api/packages/{owner}/{pack} shows for that version.
func TestPublishAnswersNameTheVersionPublished(t *testing.T) {
	t.Parallel()
	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		key := registerKey(t, env, alice, priv, pub)
		token := func(doc string) map[string]any {
			t.Helper()
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			return resp.JSON(t)
		}
		signed := func(doc string) map[string]any {
			t.Helper()
			resp := env.API.PostJSON("/api/publish-signed", signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), doc, "", ""))
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			return resp.JSON(t)
		}
		// wantPublished checks that answer names version as the package's
		// versions list shows it, and that the package is still latest's.
		wantPublished := func(what string, answer map[string]any, version, latest string, created bool) {
			t.Helper()
			if p := answer["package"].(map[string]any); p["version"] != latest || answer["created"] != created {
				t.Errorf("%s: package.version %v, created %v; want %s, %v", what, p["version"], answer["created"], latest, created)
			}
			var listed map[string]any
			for _, v := range env.API.Get("/api/packages/alice/foo").JSON(t)["versions"].([]any) {
				if v := v.(map[string]any); v["version"] == version {
					listed = v
				}
			}
			got, _ := answer["published"].(map[string]any)
			want := map[string]any{}
			for _, field := range []string{"version", "sha256", "size", "created_at", "log_index"} {
				want[field] = listed[field]
			}
			if listed == nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: published = %v, want %v (as listed)", what, got, want)
			}
			if answer["log_index"] != want["log_index"] {
				t.Errorf("%s: log_index %v, published.log_index %v", what, answer["log_index"], want["log_index"])
			}
		}

		wantPublished("2.0.0", token(packDoc("foo", "2.0.0")), "2.0.0", "2.0.0", true)
		env.Clock.Advance(time.Minute)
		older := packDoc("foo", "1.5.0")
		first := token(older)
		wantPublished("1.5.0 after 2.0.0", first, "1.5.0", "2.0.0", true)
		if sum, pub := sha256.Sum256([]byte(older)), first["published"]; pub == nil || pub.(map[string]any)["sha256"] != hex.EncodeToString(sum[:]) {
			t.Errorf("published.sha256 is not the document's: %v", first["published"])
		}

		// Republished later, by token or signed: the version that existed,
		// with its own time and log entry.
		env.Clock.Advance(time.Minute)
		again := token(older)
		wantPublished("1.5.0 again", again, "1.5.0", "2.0.0", false)
		if !reflect.DeepEqual(again["published"], first["published"]) {
			t.Errorf("identical republish: published %v, want the first publish's %v", again["published"], first["published"])
		}
		env.Clock.Advance(time.Minute)
		wantPublished("1.5.0 signed", signed(older), "1.5.0", "2.0.0", false)
		wantPublished("signed 1.6.0-rc.1", signed(packDoc("foo", "1.6.0-rc.1")), "1.6.0-rc.1", "2.0.0", true)
	})
}
