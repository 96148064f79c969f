package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// Every JSON answer, byte for byte: field order ("ok" first), null where a
// value is unknown rather than an absent field, times in UTC with whole
// seconds although the clock has a fraction, HTML characters escaped as
// \u00XX. Clients and scripts parse these bytes; the only freedom left is
// in values the server makes up (ids, the cursor, messages).
func TestAnswersAreByteForByteTheWireFormat(t *testing.T) {
	t.Parallel()
	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		env.Clock.Advance(750 * time.Millisecond)
		at := quoteJSON(env.Clock.Now().UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z"))
		base := env.URL
		alice := env.CreateUser(t, "alice")

		pkg := func(id any, pack, description, doc string) string {
			sum := sha256.Sum256([]byte(doc))
			raw := base + "/raw/alice/" + pack + ".pact.md"
			return fmt.Sprintf(`{"id":%v,"owner_slug":"alice","pack_slug":%q,"name":%q,"description":%s,"scheme":"review-v1",`+
				`"version":"1.0.0","sha256":"%x","url":%q,"raw_url":%q,"install_command":%q,"versions_url":%q,`+
				`"created_at":%s,"updated_at":%s,"deprecated":"","trusted_publishing_only":false,"downloads":0}`,
				id, pack, pack, quoteJSON(description), sum, base+"/alice/"+pack, raw,
				"curl -fsSL "+raw+" -o "+pack+".pact.md", base+"/api/packages/alice/"+pack, at, at)
		}
		published := func(doc string, logIndex int) string {
			sum := sha256.Sum256([]byte(doc))
			return fmt.Sprintf(`{"version":"1.0.0","sha256":"%x","size":%d,"created_at":%s,"log_index":%d}`, sum, len(doc), at, logIndex)
		}
		want := func(what string, resp *apitest.Response, status int, body string) {
			t.Helper()
			if resp.Status != status || string(resp.Body) != body {
				t.Errorf("%s: %d\n%s\nwant %d\n%s", what, resp.Status, resp.Body, status, body)
			}
		}

		tokenDoc := packDoc("token-pack", "1.0.0", "scheme: review-v1\n")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": tokenDoc, "description": "Tom & Jerry <3>"}, alice.Bearer())
		tokenID := resp.JSON(t)["package"].(map[string]any)["id"]
		tokenPkg := pkg(tokenID, "token-pack", "Tom & Jerry <3>", tokenDoc)
		want("publish", resp, 200, `{"ok":true,"package":`+tokenPkg+`,"created":true,"warnings":[],"log_index":0,`+
			`"published":`+published(tokenDoc, 0)+`}`)

		pubLine := readPub(t, pub)
		publicKey := strings.Join(strings.Fields(pubLine)[:2], " ")
		resp = env.API.PostJSON("/api/ssh-keys", map[string]any{"public_key": pubLine, "name": "laptop"}, alice.Bearer())
		keyID := resp.JSON(t)["key"].(map[string]any)["id"]
		fingerprint := keygenFingerprint(t, pub)
		key := func(lastUsed string) string {
			return fmt.Sprintf(`{"id":%v,"name":"laptop","type":"ssh-ed25519","fingerprint":%q,"public_key":%q,"created_at":%s,"last_used_at":%s}`,
				keyID, fingerprint, publicKey, at, lastUsed)
		}
		want("add key", resp, 200, `{"ok":true,"key":`+key("null")+`}`)

		signedDoc := packDoc("signed-pack", "1.0.0", "scheme: review-v1\n")
		nonce := "nonce-0123456789abcdef"
		ts := env.Clock.Now().Unix()
		msg, err := sshsign.Message(ts, nonce, []byte(signedDoc), "", "")
		if err != nil {
			t.Fatal(err)
		}
		signature := sshtest.SignWithKeygen(t, priv, msg, sshsign.Namespace)
		resp = env.API.PostJSON("/api/publish-signed", map[string]any{
			"content": signedDoc, "timestamp": ts, "nonce": nonce, "fingerprint": fingerprint, "signature": signature,
		})
		signedID := resp.JSON(t)["package"].(map[string]any)["id"]
		signedPkg := pkg(signedID, "signed-pack", "", signedDoc)
		want("signed publish", resp, 200, `{"ok":true,"package":`+signedPkg+`,"auth":"ssh-signature","created":true,"warnings":[],"log_index":3,`+
			`"published":`+published(signedDoc, 3)+`}`)

		want("list", env.API.Get("/api/packages"), 200,
			`{"ok":true,"packages":[`+signedPkg+`,`+tokenPkg+`],"next_cursor":null}`)
		resp = env.API.Get("/api/packages?limit=1")
		cursor, _ := resp.JSON(t)["next_cursor"].(string)
		want("first page", resp, 200, `{"ok":true,"packages":[`+signedPkg+`],"next_cursor":`+quoteJSON(cursor)+`}`)

		version := func(pack, description, doc, signature string, logIndex int, publishedBy string) string {
			sum := sha256.Sum256([]byte(doc))
			return fmt.Sprintf(`{"version":"1.0.0","name":%q,"description":%s,"scheme":"review-v1","sha256":%q,"size":%d,`+
				`"created_at":%s,"raw_url":%q,"signature":%s,"yanked":false,"yank_reason":"","log_index":%d,"ci":null,"release_url":null,`+
				`"published_by":%s}`,
				pack, quoteJSON(description), hex.EncodeToString(sum[:]), len(doc), at, base+"/raw/alice/"+pack+"@1.0.0.pact.md", signature, logIndex, publishedBy)
		}
		// alice's token, the one the token publish used.
		aliceTokens, _ := env.API.Get("/api/tokens", alice.Bearer()).JSON(t)["tokens"].([]any)
		if len(aliceTokens) != 1 {
			t.Fatalf("alice has %d tokens, want 1", len(aliceTokens))
		}
		aliceTokenID := aliceTokens[0].(map[string]any)["id"]
		provenance := fmt.Sprintf(`{"fingerprint":%q,"timestamp":%d,"nonce":%q,"signature":%s,"signed_lines_known":true,`+
			`"signed_name":"","signed_description":"","public_key":%q}`, fingerprint, ts, nonce, quoteJSON(signature), publicKey)
		want("signed detail", env.API.Get("/api/packages/alice/signed-pack"), 200,
			`{"ok":true,"package":`+signedPkg+`,"versions":[`+version("signed-pack", "", signedDoc, provenance, 3, `{"username":"alice","auth":"ssh-signature","token_id":null}`)+`],"log_head":4}`)
		want("token detail", env.API.Get("/api/packages/alice/token-pack"), 200,
			`{"ok":true,"package":`+tokenPkg+`,"versions":[`+version("token-pack", "Tom & Jerry <3>", tokenDoc, "null", 0, fmt.Sprintf(`{"username":"alice","auth":"token","token_id":%v}`, aliceTokenID))+`],"log_head":1}`)

		want("me", env.API.Get("/api/me", alice.Bearer()), 200,
			fmt.Sprintf(`{"ok":true,"user":{"id":%d,"email":"alice@example.com","username":"alice","created_at":%s},`+
				`"token":{"name":"test","scopes":null,"packages":null,"expires_at":null}}`, alice.Account.ID, at))
		want("keys", env.API.Get("/api/ssh-keys", alice.Bearer()), 200, `{"ok":true,"keys":[`+key(at)+`]}`)
		want("delete key", env.API.Delete(fmt.Sprintf("/api/ssh-keys/%v", keyID), alice.Bearer()), 200, `{"ok":true}`)
		want("no keys", env.API.Get("/api/ssh-keys", alice.Bearer()), 200, `{"ok":true,"keys":[]}`)
		want("health", env.API.Get("/healthz"), 200, `{"ok":true}`)
		want("ready", env.API.Get("/readyz"), 200, `{"ok":true}`)

		resp = env.API.Get("/api/packages/alice/nothing")
		message, _ := resp.JSON(t)["error"].(string)
		if message == "" {
			t.Fatalf("404 without a message: %s", resp.Body)
		}
		want("error", resp, http.StatusNotFound, `{"ok":false,"error":`+quoteJSON(message)+`}`)

		// A login of the command line, and the refusal of its poll that
		// carries a code.
		resp = env.API.Post("/api/login/device", "application/json", nil)
		start := resp.JSON(t)
		deviceCode, _ := start["device_code"].(string)
		userCode, _ := start["user_code"].(string)
		want("device login", resp, 200, fmt.Sprintf(`{"ok":true,"device_code":%q,"user_code":%q,"verification_uri":%q,`+
			`"verification_uri_complete":%q,"expires_in":600,"interval":5}`, deviceCode, userCode, base+"/login/device", base+"/login/device?code="+userCode))
		resp = env.API.PostJSON("/api/login/device/token", map[string]string{"device_code": deviceCode})
		message, _ = resp.JSON(t)["error"].(string)
		want("device login pending", resp, http.StatusBadRequest, `{"ok":false,"error":`+quoteJSON(message)+`,"code":"authorization_pending"}`)
	})
}
