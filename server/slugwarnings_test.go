package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/server/registry"
)

// publishAnswer returns the pack_slug and warnings of a successful publish.
func publishAnswer(t *testing.T, status int, body []byte, doc map[string]any) (string, []string) {
	t.Helper()
	wantStatus(t, status, http.StatusOK, body)
	pkg := doc["package"].(map[string]any)
	raw, ok := doc["warnings"].([]any)
	if !ok {
		t.Fatalf("warnings is %v, want a list: %s", doc["warnings"], body)
	}
	warnings := []string{}
	for _, w := range raw {
		warnings = append(warnings, w.(string))
	}
	return pkg["pack_slug"].(string), warnings
}

func TestPublishAnswerSaysWhatTheSlugLost(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Long ", 20)
	tests := []struct {
		name, packName, body string
		wantSlug             string
		wantWarnings         []string
	}{
		{"diacritics fold, nothing lost", "Ünïcødé", "", "unicode", []string{}},
		{"dessert", "Crème Brûlée", "", "creme-brulee", []string{}},
		{"ASCII name as before", "Hello World", "", "hello-world", []string{}},
		{"characters dropped", "中文 Crème", "", "creme",
			[]string{`the name's characters "中文" have no slug form and were dropped`}},
		{"slug cut", "", long, strings.TrimSuffix(strings.Repeat("long-", 13), "-"),
			[]string{"the slug was cut to 64 characters"}},
	}
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				req := map[string]any{"content": packDoc(tt.packName, "1.0.0")}
				if tt.body != "" {
					// A name given with the request is slugged the same way.
					req = map[string]any{"content": packDoc("ignored", "1.0.0"), "name": tt.body}
				}
				resp := env.API.PostJSON("/api/publish", req, alice.Bearer())
				slug, warnings := publishAnswer(t, resp.Status, resp.Body, resp.JSON(t))
				if slug != tt.wantSlug || !slices.Equal(warnings, tt.wantWarnings) {
					t.Errorf("publish %q: slug %q, warnings %q; want %q, %q", tt.packName+tt.body, slug, warnings, tt.wantSlug, tt.wantWarnings)
				}
				// A retry of the same version says the same again.
				resp = env.API.PostJSON("/api/publish", req, alice.Bearer())
				slug, warnings = publishAnswer(t, resp.Status, resp.Body, resp.JSON(t))
				if resp.JSON(t)["created"] != false || slug != tt.wantSlug || !slices.Equal(warnings, tt.wantWarnings) {
					t.Errorf("retry: created %v, slug %q, warnings %q", resp.JSON(t)["created"], slug, warnings)
				}
				wantStatus(t, env.API.Get("/api/packages/alice/"+tt.wantSlug).Status, http.StatusOK, nil)
			})
		}
	})
}

func TestSignedPublishAnswerSaysWhatTheSlugLost(t *testing.T) {
	t.Parallel()
	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		key := registerKey(t, env, alice, priv, pub)
		now := env.Clock.Now().Unix()

		resp := env.API.PostJSON("/api/publish-signed", signedBody(t, key, now, "nonce-slug-0000000001", packDoc("Łódź 🚀", "1.0.0"), "", ""))
		slug, warnings := publishAnswer(t, resp.Status, resp.Body, resp.JSON(t))
		want := []string{`the name's character "🚀" has no slug form and was dropped`}
		if slug != "lodz" || !slices.Equal(warnings, want) {
			t.Errorf("signed publish: slug %q, warnings %q; want %q, %q", slug, warnings, "lodz", want)
		}

		resp = env.API.PostJSON("/api/publish-signed", signedBody(t, key, now, "nonce-slug-0000000002", packDoc("Straße", "1.0.0"), "", ""))
		slug, warnings = publishAnswer(t, resp.Status, resp.Body, resp.JSON(t))
		if slug != "strasse" || len(warnings) != 0 {
			t.Errorf("signed publish: slug %q, warnings %q; want %q and []", slug, warnings, "strasse")
		}
	})
}

// A package stored under the slug the ASCII-only rule gave keeps it; the
// same name published now makes the package of the new slug, and the old
// one goes on serving what it had.
func TestOldSlugPackageStaysWhenItsNameIsPublishedAgain(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		oldDoc := packDoc("Ünïcødé", "1.0.0")
		sum := sha256.Sum256([]byte(oldDoc))
		_, _, err := registry.PublishVersion(context.Background(), env.Store, registry.PublishInput{
			OwnerID: alice.Account.ID, OwnerSlug: "alice", PackSlug: "n-c-d", Name: "Ünïcødé",
			Version: "1.0.0", Content: []byte(oldDoc), SHA256: hex.EncodeToString(sum[:]), Now: env.Clock.Now(),
		})
		if err != nil {
			t.Fatal(err)
		}

		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("Ünïcødé", "2.0.0")}, alice.Bearer())
		slug, _ := publishAnswer(t, resp.Status, resp.Body, resp.JSON(t))
		if slug != "unicode" || resp.JSON(t)["created"] != true {
			t.Errorf("publish: slug %q, created %v; want a new package %q", slug, resp.JSON(t)["created"], "unicode")
		}
		old := env.API.Get("/api/packages/alice/n-c-d")
		wantStatus(t, old.Status, http.StatusOK, old.Body)
		if v := old.JSON(t)["package"].(map[string]any)["version"]; v != "1.0.0" {
			t.Errorf("old package n-c-d: version %v, want 1.0.0 (untouched)", v)
		}

		// A name whose slug is the old slug still reaches the old package.
		resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("Ünïcødé", "3.0.0"), "name": "n-c-d"}, alice.Bearer())
		slug, _ = publishAnswer(t, resp.Status, resp.Body, resp.JSON(t))
		if slug != "n-c-d" || resp.JSON(t)["package"].(map[string]any)["id"] != old.JSON(t)["package"].(map[string]any)["id"] {
			t.Errorf("publish named n-c-d: slug %q, package %v; want the old package", slug, resp.JSON(t)["package"])
		}
	})
}
