package server_test

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// signer is a key made by ssh-keygen and registered to an account.
type signer struct {
	priv, pub   string
	fingerprint string
}

func registerKey(t *testing.T, env *servertest.Env, u *servertest.User, priv, pub string) signer {
	t.Helper()
	resp := env.API.PostJSON("/api/ssh-keys", map[string]any{"public_key": readPub(t, pub)}, u.Bearer())
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	return signer{priv: priv, pub: pub, fingerprint: resp.JSON(t)["key"].(map[string]any)["fingerprint"].(string)}
}

// signedBody signs the six-line message with ssh-keygen -Y sign, exactly as
// a user without the pact CLI would.
func signedBody(t *testing.T, s signer, ts int64, nonce, content, name, description string) map[string]any {
	t.Helper()
	msg, err := sshsign.Message(ts, nonce, []byte(content), name, description)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{
		"content": content, "timestamp": ts, "nonce": nonce, "fingerprint": s.fingerprint,
		"signature": sshtest.SignWithKeygen(t, s.priv, msg, sshsign.Namespace),
	}
	if name != "" {
		body["name"] = name
	}
	if description != "" {
		body["description"] = description
	}
	return body
}

func TestSignedPublishInteropWithSSHKeygen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type keyCase struct {
		typ  string
		bits int
	}
	keys := []keyCase{{"ed25519", 0}, {"rsa", 2048}, {"rsa", 3072}, {"rsa", 4096}}
	privs := map[keyCase][2]string{}
	for _, k := range keys {
		priv, pub := sshtest.GenerateKey(t, dir, k.typ, k.bits)
		privs[k] = [2]string{priv, pub}
	}
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		for _, k := range keys {
			t.Run(fmt.Sprintf("%s-%d", k.typ, k.bits), func(t *testing.T) {
				s := registerKey(t, env, alice, privs[k][0], privs[k][1])
				pack := fmt.Sprintf("signed-%s-%d", k.typ, k.bits)
				doc := packDoc(pack, "1.0.0")
				body := signedBody(t, s, env.Clock.Now().Unix(), sshsign.NewNonce(), doc, "", "signed with "+k.typ)
				// A token header sent along is ignored: the signature alone decides the owner.
				resp := env.API.PostJSON("/api/publish-signed", body, bob.Bearer())
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				got := resp.JSON(t)
				p := got["package"].(map[string]any)
				if got["auth"] != "ssh-signature" || p["owner_slug"] != "alice" || p["description"] != "signed with "+k.typ {
					t.Errorf("answer = %v", got)
				}
				verifyProvenanceOffline(t, env, "alice", pack, doc)
			})
		}
		keys := env.API.Get("/api/ssh-keys", alice.Bearer()).JSON(t)["keys"].([]any)
		for _, k := range keys {
			if k.(map[string]any)["last_used_at"] == nil {
				t.Errorf("key %v: last_used_at not set after a signed publish", k)
			}
		}
	})
}

// verifyProvenanceOffline re-verifies a signed version the way a third
// party would: the provenance from the API, the keys from /{owner}.keys, and
// ssh-keygen -Y verify.
func verifyProvenanceOffline(t *testing.T, env *servertest.Env, owner, pack, doc string) {
	t.Helper()
	detail := env.API.Get("/api/packages/" + owner + "/" + pack).JSON(t)
	sig, ok := detail["versions"].([]any)[0].(map[string]any)["signature"].(map[string]any)
	if !ok {
		t.Fatalf("version has no signature provenance: %v", detail)
	}
	msg, err := sshsign.Message(int64(sig["timestamp"].(float64)), sig["nonce"].(string), []byte(doc), "", detail["package"].(map[string]any)["description"].(string))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var allowed strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(env.API.Get("/"+owner+".keys").Body)), "\n") {
		fields := strings.Fields(line)
		allowed.WriteString(owner + " namespaces=\"pact\" " + fields[0] + " " + fields[1] + "\n")
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", write("allowed_signers", allowed.String()),
		"-I", owner, "-n", "pact", "-s", write("sig", sig["signature"].(string)))
	cmd.Stdin = strings.NewReader(string(msg))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("ssh-keygen -Y verify of the stored provenance failed: %v\n%s", err, out)
	}
}

func TestSignedPublishRejections(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	alicePriv, alicePub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	otherPriv, otherPub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	strayPriv, _ := sshtest.GenerateKey(t, dir, "ed25519", 0)

	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		key := registerKey(t, env, alice, alicePriv, alicePub)
		bobKey := registerKey(t, env, bob, otherPriv, otherPub)
		now := env.Clock.Now().Unix()
		doc := packDoc("signed", "1.0.0")

		// A good request first, so the replay case has a spent nonce.
		spent := sshsign.NewNonce()
		ok := env.API.PostJSON("/api/publish-signed", signedBody(t, key, now, spent, doc, "", ""))
		wantStatus(t, ok.Status, http.StatusOK, ok.Body)

		fresh := func(mutate func(b map[string]any)) map[string]any {
			b := signedBody(t, key, now, sshsign.NewNonce(), packDoc("signed", "2.0.0"), "", "")
			mutate(b)
			return b
		}
		withSigner := func(s signer, ts int64, nonce, content, name, desc string) map[string]any {
			return signedBody(t, s, ts, nonce, content, name, desc)
		}
		stray := signer{priv: strayPriv, fingerprint: key.fingerprint}
		cases := []struct {
			name string
			body map[string]any
			msg  string
		}{
			{"replayed nonce", signedBody(t, key, now, spent, packDoc("signed", "3.0.0"), "", ""), "nonce was already used"},
			{"tampered content", fresh(func(b map[string]any) { b["content"] = packDoc("signed", "2.0.1") }), "does not verify"},
			{"tampered name", fresh(func(b map[string]any) { b["name"] = "other" }), "does not verify"},
			{"tampered description", fresh(func(b map[string]any) { b["description"] = "added" }), "does not verify"},
			{"tampered timestamp", fresh(func(b map[string]any) { b["timestamp"] = now - 1 }), "does not verify"},
			{"stale timestamp", withSigner(key, now-301, sshsign.NewNonce(), doc, "", ""), "window"},
			{"future timestamp", withSigner(key, now+301, sshsign.NewNonce(), doc, "", ""), "window"},
			{"unknown fingerprint", fresh(func(b map[string]any) { b["fingerprint"] = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }), "no SSH key"},
			{"another registered key's fingerprint", fresh(func(b map[string]any) { b["fingerprint"] = bobKey.fingerprint }), "another key"},
			{"signed by an unregistered key", withSigner(stray, now, sshsign.NewNonce(), doc, "", ""), "another key"},
			{"garbage signature", fresh(func(b map[string]any) { b["signature"] = "not a signature" }), "armored"},
			{"truncated signature", fresh(func(b map[string]any) { s := b["signature"].(string); b["signature"] = s[:len(s)/2] }), "armored"},
			{"wrong namespace", fresh(func(b map[string]any) {
				msg, _ := sshsign.Message(now, b["nonce"].(string), []byte(b["content"].(string)), "", "")
				b["signature"] = sshtest.SignWithKeygen(t, alicePriv, msg, "git")
			}), "namespace"},
			{"nonce too short", fresh(func(b map[string]any) { b["nonce"] = "short" }), "nonce"},
			{"nonce with bad characters", fresh(func(b map[string]any) { b["nonce"] = strings.Repeat("é", 20) }), "nonce"},
			{"nonce too long", fresh(func(b map[string]any) { b["nonce"] = strings.Repeat("a", 129) }), "nonce"},
			{"multi-line name", fresh(func(b map[string]any) { b["name"] = "a\nb" }), "name"},
			{"carriage return in description", fresh(func(b map[string]any) { b["description"] = "a\rb" }), "description"},
			{"timestamp as a string", fresh(func(b map[string]any) { b["timestamp"] = fmt.Sprint(now) }), "timestamp"},
			{"timestamp missing", fresh(func(b map[string]any) { delete(b, "timestamp") }), "timestamp"},
			{"signature missing", fresh(func(b map[string]any) { delete(b, "signature") }), "signature"},
			{"content missing", fresh(func(b map[string]any) { delete(b, "content") }), "content"},
			{"fingerprint malformed", fresh(func(b map[string]any) { b["fingerprint"] = "MD5:aa:bb" }), "fingerprint"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				resp := env.API.PostJSON("/api/publish-signed", tc.body)
				wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, tc.msg)
			})
		}
		detail := env.API.Get("/api/packages/alice/signed").JSON(t)
		if n := len(detail["versions"].([]any)); n != 1 {
			t.Errorf("rejected signed publishes stored versions: %d versions, want 1", n)
		}
		wrongType := env.API.Post("/api/publish-signed", "application/x-www-form-urlencoded", []byte("content=x"))
		wantError(t, wrongType.Status, wrongType.JSON(t), http.StatusUnsupportedMediaType, "")
	})
}

func TestSignedPublishSameNonceOtherKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p1, pub1 := sshtest.GenerateKey(t, dir, "ed25519", 0)
	p2, pub2 := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		k1, k2 := registerKey(t, env, alice, p1, pub1), registerKey(t, env, alice, p2, pub2)
		nonce := sshsign.NewNonce()
		now := env.Clock.Now().Unix()
		for i, k := range []signer{k1, k2} {
			resp := env.API.PostJSON("/api/publish-signed", signedBody(t, k, now, nonce, packDoc("n", fmt.Sprintf("1.%d", i)), "", ""))
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		// Nonces are remembered long enough: still refused near the end of the window.
		env.Clock.Advance(299 * time.Second)
		again := env.API.PostJSON("/api/publish-signed", signedBody(t, k1, now, nonce, packDoc("n", "1.9"), "", ""))
		wantError(t, again.Status, again.JSON(t), http.StatusBadRequest, "nonce")
	})
}

func TestSignedPublishConcurrentReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		key := registerKey(t, env, alice, priv, pub)
		body := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("race", "1.0"), "", "")
		const n = 20
		statuses := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				statuses[i] = env.API.PostJSON("/api/publish-signed", body).Status
			}(i)
		}
		close(start)
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		if count[200] != 1 || count[400] != n-1 {
			t.Errorf("statuses of %d identical signed requests = %v, want exactly one 200 and %d 400", n, count, n-1)
		}
	})
}
