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
	t.Parallel()
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
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		key := &registry.SSHKey{AccountID: alice.Account.ID, Name: "old", Type: "ssh-ed25519",
			Fingerprint: "SHA256:b2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xkb2x", PublicKey: "ssh-ed25519 AAAAold", CreatedAt: env.Clock.Now()}
		if err := registry.CreateSSHKey(t.Context(), env.Store, key, "alice"); err != nil {
			t.Fatal(err)
		}
		content := packDoc("old", "1.0.0")
		sum := sha256.Sum256([]byte(content))
		in := registry.PublishInput{OwnerID: alice.Account.ID, OwnerSlug: "alice", PackSlug: "old", Name: "old", Version: "1.0.0",
			Content: []byte(content), SHA256: hex.EncodeToString(sum[:]), Now: env.Clock.Now()}
		// As the store held signed versions before: no lines, no key.
		in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: env.Clock.Now().Unix(),
			Nonce: "nonce-of-an-old-version", Signature: "-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"}
		if _, _, err := registry.PublishVersion(t.Context(), env.Store, in); err != nil {
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
// request, which anyone can rebuild from the public provenance. The spent
// nonce, remembered by fingerprint for twice the window, refuses it for as
// long as the window would accept its timestamp; then the window does.
func TestSignedPublishReplayIntoAnotherAccount(t *testing.T) {
	t.Parallel()
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
		refused := func(when, want string) {
			t.Helper()
			replay := env.API.PostJSON("/api/publish-signed", request)
			wantError(t, replay.Status, replay.JSON(t), http.StatusBadRequest, want)
			if resp := env.API.Get("/api/packages/mallory/stolen"); resp.Status != http.StatusNotFound {
				t.Errorf("GET /api/packages/mallory/stolen after the replay %s = %d: %s", when, resp.Status, resp.Body)
			}
			if list := env.API.Get("/api/packages?owner=mallory").JSON(t)["packages"].([]any); len(list) != 0 {
				t.Errorf("mallory owns packages after the replay %s: %v", when, list)
			}
		}

		// Within the same second: only the remembered nonce refuses it.
		stolen := registerKey(t, env, mallory, priv, pub)
		if stolen.fingerprint != key.fingerprint {
			t.Fatalf("mallory registered %s, alice had %s", stolen.fingerprint, key.fingerprint)
		}
		refused("in the same second", "nonce was already used")

		// Later in the window, the key registered again, the nonce still does.
		env.Clock.Advance(100 * time.Second)
		deleteKeys(t, env, mallory)
		registerKey(t, env, mallory, priv, pub)
		refused("100 s later", "nonce was already used")

		// In the last second of the window, after nonces were pruned, too.
		env.Clock.Advance(time.Duration(sshsign.MaxSkew) - 100*time.Second)
		if _, err := env.Service.PruneNonces(t.Context()); err != nil {
			t.Fatal(err)
		}
		deleteKeys(t, env, mallory)
		registerKey(t, env, mallory, priv, pub)
		refused("at the end of the window", "nonce was already used")

		// After it, the timestamp window refuses it.
		env.Clock.Advance(time.Second)
		refused("after the window", "outside the accepted window")
	})
}

// A signature dated in the second its key was registered, or by a signer
// whose clock is behind the server's by up to the window, is accepted:
// registration and timestamp are compared at whole seconds, with the lag
// the timestamp window allows.
func TestSignedPublishRightAfterTheKeyFromAClockBehind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		// Registered late in a second: at T.9.
		env.Clock.Advance(900 * time.Millisecond)
		key := registerKey(t, env, alice, priv, pub)
		second := env.Clock.Now().Unix()
		for i, lag := range []int64{0, 1, int64(sshsign.MaxSkew/time.Second) - 1} {
			name := fmt.Sprintf("lag%d", i)
			req := signedBody(t, key, second-lag, sshsign.NewNonce(), packDoc(name, "1.0.0"), "", "")
			resp := env.API.PostJSON("/api/publish-signed", req)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			if v := versionOf(t, env, "alice", name, "1.0.0"); v["signature"] == nil {
				t.Errorf("%s: published without its signature: %v", name, v)
			}
		}
	})
}

// A signature dated more than the window before its key's registration is
// refused, even with a nonce never seen and a timestamp the server's clock
// now reads as fresh (a replica whose clock is behind the one that
// registered the key): a signed request that leaked must not publish into
// whichever account registers the key later.
func TestSignedPublishOlderThanTheKeyIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		mallory := env.CreateUser(t, "mallory")
		key := registerKey(t, env, alice, priv, pub)
		leakedAt := env.Clock.Now().Unix()
		leaked := signedBody(t, key, leakedAt, sshsign.NewNonce(), packDoc("leaked", "1.0.0"), "", "")
		deleteKeys(t, env, alice)

		window := time.Duration(sshsign.MaxSkew)
		env.Clock.Advance(window + time.Second)
		registerKey(t, env, mallory, priv, pub)
		// The clock that checks is behind the one that registered.
		env.Clock.Advance(-window)
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
		// Signed within the window before the registration is accepted.
		fresh := signedBody(t, key, leakedAt+2, sshsign.NewNonce(), packDoc("fresh", "1.0.0"), "", "")
		ok := env.API.PostJSON("/api/publish-signed", fresh)
		wantStatus(t, ok.Status, http.StatusOK, ok.Body)
	})
}
