package server_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server/registry"
)

// deleteKeys deletes every SSH key of u through the API.
func deleteKeys(t *testing.T, env *servertest.Env, u *servertest.User) {
	t.Helper()
	for _, k := range env.API.Get("/api/ssh-keys", u.Bearer()).JSON(t)["keys"].([]any) {
		resp := env.API.Delete(fmt.Sprintf("/api/ssh-keys/%.0f", k.(map[string]any)["id"].(float64)), u.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	}
}

// versionOf returns version v of owner/pack as GET /api/packages answers it.
func versionOf(t *testing.T, env *servertest.Env, owner, pack, v string) map[string]any {
	t.Helper()
	resp := env.API.Get("/api/packages/" + owner + "/" + pack)
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	for _, version := range resp.JSON(t)["versions"].([]any) {
		if version := version.(map[string]any); version["version"] == v {
			return version
		}
	}
	t.Fatalf("%s/%s has no version %s: %s", owner, pack, v, resp.Body)
	return nil
}

// signedMessage rebuilds the six signed lines from a version of the API
// alone, as the README shows: nothing of the document but its sha256.
func signedMessage(version map[string]any) string {
	sig := version["signature"].(map[string]any)
	return fmt.Sprintf("pact-publish-v1\n%d\n%s\n%s\n%s\n%s\n", int64(sig["timestamp"].(float64)), sig["nonce"],
		version["sha256"], sig["signed_name"], sig["signed_description"])
}

// A version signed with empty name and description lines, of a document
// that names and describes itself, is verified again by ssh-keygen from the
// API's fields alone, after its key was deleted.
func TestSignedVersionVerifiesFromTheAPIAlone(t *testing.T) {
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		key := registerKey(t, env, alice, priv, pub)
		doc := packDoc("verify-me", "1.0.0", "description: What the document says about itself\n")
		// As the original service's client signs when it is given no name or
		// description: both lines empty.
		resp := env.API.PostJSON("/api/publish-signed", signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), doc, "", ""))
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		told := packDoc("verify-me", "2.0.0", "description: What the document says about itself\n")
		resp = env.API.PostJSON("/api/publish-signed", signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), told, "verify-me", "What the publisher says"))
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)

		deleteKeys(t, env, alice)
		if keys := strings.TrimSpace(string(env.API.Get("/alice.keys").Body)); keys != "" {
			t.Fatalf("alice.keys after deleting the key = %q", keys)
		}
		pubFields := strings.Fields(readPub(t, pub))
		for _, c := range []struct {
			version, name, description string
			signedName, signedDesc     string
		}{
			{"1.0.0", "verify-me", "What the document says about itself", "", ""},
			{"2.0.0", "verify-me", "What the publisher says", "verify-me", "What the publisher says"},
		} {
			v := versionOf(t, env, "alice", "verify-me", c.version)
			sig, ok := v["signature"].(map[string]any)
			if !ok {
				t.Fatalf("version %s has no signature: %v", c.version, v)
			}
			if v["name"] != c.name || v["description"] != c.description {
				t.Errorf("version %s: name %q, description %q; want %q, %q", c.version, v["name"], v["description"], c.name, c.description)
			}
			if sig["signed_lines_known"] != true || sig["signed_name"] != c.signedName || sig["signed_description"] != c.signedDesc {
				t.Errorf("version %s: signed_lines_known %v, signed_name %#v, signed_description %#v; want true, %q, %q",
					c.version, sig["signed_lines_known"], sig["signed_name"], sig["signed_description"], c.signedName, c.signedDesc)
			}
			if want := pubFields[0] + " " + pubFields[1]; sig["public_key"] != want {
				t.Errorf("version %s: public_key %v, want %s", c.version, sig["public_key"], want)
			}
			message := signedMessage(v)
			if err := sshtest.VerifyWithKeygen(t, sig["public_key"].(string), []byte(message), sig["signature"].(string), sshsign.Namespace); err != nil {
				t.Errorf("version %s: the message rebuilt from the API does not verify: %v\n%s", c.version, err, message)
			}
		}
		// What the API showed before, the derived name and description in
		// place of the empty signed lines, does not verify: the exact lines
		// are what makes the version verifiable.
		v := versionOf(t, env, "alice", "verify-me", "1.0.0")
		sig := v["signature"].(map[string]any)
		derived := fmt.Sprintf("pact-publish-v1\n%d\n%s\n%s\n%s\n%s\n", int64(sig["timestamp"].(float64)), sig["nonce"], v["sha256"], v["name"], v["description"])
		if err := sshtest.VerifyWithKeygen(t, sig["public_key"].(string), []byte(derived), sig["signature"].(string), sshsign.Namespace); err == nil {
			t.Errorf("the message with the derived name and description verifies too; the test proves nothing")
		}
	})
}

// Versions signed before the signed lines were kept say so.
func TestOlderSignedVersionsSayTheirLinesAreUnknown(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		key := &registry.SSHKey{AccountID: alice.Account.ID, Name: "old", Type: "ssh-ed25519",
			Fingerprint: "SHA256:b2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2x", PublicKey: "ssh-ed25519 AAAAold", CreatedAt: env.Clock.Now()}
		if err := env.Store.CreateSSHKey(t.Context(), key); err != nil {
			t.Fatal(err)
		}
		content := packDoc("old", "1.0.0")
		sum := sha256.Sum256([]byte(content))
		in := registry.PublishInput{OwnerID: alice.Account.ID, OwnerSlug: "alice", PackSlug: "old", Name: "old", Version: "1.0.0",
			Content: []byte(content), SHA256: hex.EncodeToString(sum[:]), Now: env.Clock.Now()}
		// As the store held signed versions before: no lines, no key.
		in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: env.Clock.Now().Unix(),
			Nonce: "nonce-of-an-old-version", Signature: "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"}
		if _, _, err := env.Store.Publish(t.Context(), in); err != nil {
			t.Fatal(err)
		}
		sig := versionOf(t, env, "alice", "old", "1.0.0")["signature"].(map[string]any)
		for _, field := range []string{"signed_name", "signed_description", "public_key"} {
			if v, present := sig[field]; !present || v != nil {
				t.Errorf("%s = %#v (present %v), want null", field, v, present)
			}
		}
		if sig["signed_lines_known"] != false {
			t.Errorf("signed_lines_known = %#v, want false", sig["signed_lines_known"])
		}
	})
}

// The replay into another account: alice publishes signed and deletes her key; within the
// timestamp window mallory registers alice's public key and replays alice's
// request, which anyone can rebuild from the public provenance.
func TestSignedPublishReplayIntoAnotherAccount(t *testing.T) {
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		mallory := env.CreateUser(t, "mallory")
		key := registerKey(t, env, alice, priv, pub)
		request := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("stolen", "1.0.0"), "", "")
		resp := env.API.PostJSON("/api/publish-signed", request)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		deleteKeys(t, env, alice)

		// Within the same second, so that the registration time alone
		// cannot refuse it: only the remembered nonce can.
		stolen := registerKey(t, env, mallory, priv, pub)
		if stolen.fingerprint != key.fingerprint {
			t.Fatalf("mallory registered %s, alice had %s", stolen.fingerprint, key.fingerprint)
		}
		replay := env.API.PostJSON("/api/publish-signed", request)
		wantError(t, replay.Status, replay.JSON(t), http.StatusBadRequest, "nonce was already used")
		if resp := env.API.Get("/api/packages/mallory/stolen"); resp.Status != http.StatusNotFound {
			t.Errorf("GET /api/packages/mallory/stolen after the refused replay = %d: %s", resp.Status, resp.Body)
		}
		if list := env.API.Get("/api/packages?owner=mallory").JSON(t)["packages"].([]any); len(list) != 0 {
			t.Errorf("mallory owns packages after the refused replay: %v", list)
		}

		// Later in the window the registration time refuses it too.
		env.Clock.Advance(100 * time.Second)
		deleteKeys(t, env, mallory)
		registerKey(t, env, mallory, priv, pub)
		replay = env.API.PostJSON("/api/publish-signed", request)
		wantError(t, replay.Status, replay.JSON(t), http.StatusBadRequest, "older than the registration")
		if resp := env.API.Get("/api/packages/mallory/stolen"); resp.Status != http.StatusNotFound {
			t.Errorf("GET /api/packages/mallory/stolen after the second replay = %d: %s", resp.Status, resp.Body)
		}
	})
}

// A signature made before its key was registered is refused, even with a
// nonce never seen: a signed request that leaked (a CI log, a proxy) must
// not publish into whichever account registers the key later.
func TestSignedPublishOlderThanTheKeyIsRefused(t *testing.T) {
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		mallory := env.CreateUser(t, "mallory")
		key := registerKey(t, env, alice, priv, pub)
		leaked := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("leaked", "1.0.0"), "", "")
		deleteKeys(t, env, alice)

		env.Clock.Advance(time.Second)
		registerKey(t, env, mallory, priv, pub)
		resp := env.API.PostJSON("/api/publish-signed", leaked)
		body := resp.JSON(t)
		wantError(t, resp.Status, body, http.StatusBadRequest, "older than the registration of SSH key "+key.fingerprint)
		if msg := body["error"].(string); !strings.Contains(msg, "sign again") {
			t.Errorf("error %q does not say what to do", msg)
		}
		for _, owner := range []string{"alice", "mallory"} {
			if resp := env.API.Get("/api/packages/" + owner + "/leaked"); resp.Status != http.StatusNotFound {
				t.Errorf("GET /api/packages/%s/leaked after the refusal = %d", owner, resp.Status)
			}
		}
		// Signed at the second of the registration or later is accepted.
		fresh := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("fresh", "1.0.0"), "", "")
		ok := env.API.PostJSON("/api/publish-signed", fresh)
		wantStatus(t, ok.Status, http.StatusOK, ok.Body)
	})
}
