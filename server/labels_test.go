package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server/registry"
)

// Labels with control characters or bidirectional overrides are refused on
// every route that stores one, with a message naming the field, and
// nothing is stored.
func TestLabelsWithControlCharactersAreRefusedEverywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	_, otherPub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	const esc = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\x1b[2J"
	const rlo = "txt.\u202Eexe.md"

	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		s := registerKey(t, env, alice, priv, pub)
		before := snapshot(t, env, alice)
		yamlDoc := func(yamlLines ...string) string {
			return "# Doc\n\n```yaml pact:pack\n" + strings.Join(yamlLines, "\n") + "\n```\n"
		}
		now := env.Clock.Now().Unix()

		api := []struct {
			name  string
			send  func() *apitest.Response
			field string
		}{
			{"JSON publish, name", func() *apitest.Response {
				return env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("plain", "1.0"), "name": "a" + esc}, alice.Bearer())
			}, "name"},
			{"JSON publish, description", func() *apitest.Response {
				return env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("plain", "1.0"), "description": rlo}, alice.Bearer())
			}, "description"},
			{"JSON publish, name in the yaml block", func() *apitest.Response {
				return env.API.PostJSON("/api/publish", map[string]any{"content": yamlDoc(`name: "evil\e[31m"`, "version: 1")}, alice.Bearer())
			}, "name"},
			{"JSON publish, description in the yaml block", func() *apitest.Response {
				return env.API.PostJSON("/api/publish", map[string]any{"content": yamlDoc("name: plain", "version: 1", "description: \"a\\u202Eb\"")}, alice.Bearer())
			}, "description"},
			{"multipart publish, name field", func() *apitest.Response {
				return env.API.PostMultipart("/api/publish", map[string]string{"name": "a" + esc},
					map[string]apitest.FileField{"file": {Name: "x.pact.md", Content: []byte(packDoc("plain", "1.0"))}}, alice.Bearer())
			}, "name"},
			{"multipart publish, description field", func() *apitest.Response {
				return env.API.PostMultipart("/api/publish", map[string]string{"description": "line\rover"},
					map[string]apitest.FileField{"file": {Name: "x.pact.md", Content: []byte(packDoc("plain", "1.0"))}}, alice.Bearer())
			}, "description"},
			{"multipart publish, name from the file name", func() *apitest.Response {
				return env.API.PostMultipart("/api/publish", nil,
					map[string]apitest.FileField{"file": {Name: "a\u2066b.pact.md", Content: []byte(yamlDoc("version: 1"))}}, alice.Bearer())
			}, "name"},
			{"signed publish, signed name", func() *apitest.Response {
				return env.API.PostJSON("/api/publish-signed", signedBody(t, s, now, sshsign.NewNonce(), packDoc("plain", "1.0"), "a"+esc, ""))
			}, "name"},
			{"signed publish, name in the yaml block", func() *apitest.Response {
				return env.API.PostJSON("/api/publish-signed", signedBody(t, s, now, sshsign.NewNonce(), yamlDoc(`name: "a\x9bb"`, "version: 1"), "", ""))
			}, "name"},
			{"SSH key, name", func() *apitest.Response {
				return env.API.PostJSON("/api/ssh-keys", map[string]any{"public_key": readPub(t, otherPub), "name": "a" + esc}, alice.Bearer())
			}, "name"},
			{"SSH key, comment", func() *apitest.Response {
				fields := strings.Fields(readPub(t, otherPub))
				return env.API.PostJSON("/api/ssh-keys", map[string]any{"public_key": fields[0] + " " + fields[1] + " " + rlo}, alice.Bearer())
			}, "name (the key's comment)"},
		}
		for _, tc := range api {
			t.Run(tc.name, func(t *testing.T) {
				resp := tc.send()
				wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, tc.field+" must not contain control characters")
				if strings.ContainsAny(string(resp.Body), "\x1b\u202E\u2066\r\u009b") {
					t.Errorf("the answer repeats the hostile character: %q", resp.Body)
				}
			})
		}

		web := servertest.NewWebClient(t, env.URL)
		web.Login(alice)
		forms := []struct {
			name, path string
			form       url.Values
			message    string
		}{
			{"dashboard token name", "/dashboard/tokens", url.Values{"name": {"ci" + esc}}, "token name must not contain control characters"},
			{"dashboard SSH key name", "/dashboard/keys", url.Values{"name": {rlo}, "public_key": {readPub(t, otherPub)}}, "name must not contain control characters"},
			{"sign-up email", "/signup", url.Values{"email": {"a\u202Eb@example.com"}, "username": {"mallory"}, "password": {"a long passphrase"}, "confirm_password": {"a long passphrase"}}, "Email must not contain control characters"},
		}
		for _, tc := range forms {
			t.Run(tc.name, func(t *testing.T) {
				client := web
				if tc.path == "/signup" {
					client = servertest.NewWebClient(t, env.URL)
				}
				servertest.WantPage(t, client.Post(tc.path, tc.form), http.StatusBadRequest, tc.message)
			})
		}

		if after := snapshot(t, env, alice); after != before {
			t.Errorf("refused requests changed what the API shows:\nbefore %s\nafter  %s", before, after)
		}
		assertNoPackages(t, env)
		ctx := context.Background()
		if tokens, err := env.Store.ListTokens(ctx, alice.Account.ID, registry.TokenFilter{}); err != nil || len(tokens) != 1 {
			t.Errorf("alice's tokens: %+v, %v; want only the one she had", tokens, err)
		}
		if _, err := env.Store.AccountByUsername(ctx, "mallory"); registry.ErrorCode(err) != registry.NotFound {
			t.Errorf("sign-up with a hostile email made an account: %v", err)
		}
	})
}
