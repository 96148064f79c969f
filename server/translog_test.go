package server_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// Every publish (token or signed) and every key added or removed is a log
// entry, in order; the log served over HTTP verifies with sumdb's own
// verifiers; log_index names each version's entry (docs/protocol.md,
// Transparency log).
func TestLogRecordsPublishesAndKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		logIndex := func(resp map[string]any) int64 {
			t.Helper()
			f, ok := resp["log_index"].(float64)
			if !ok {
				t.Fatalf("no log_index in %v", resp)
			}
			return int64(f)
		}

		first := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, first.Status, http.StatusOK, first.Body)
		second := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantStatus(t, second.Status, http.StatusOK, second.Body)
		// The identical version again: no new entry, the same index.
		again := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantStatus(t, again.Status, http.StatusOK, again.Body)
		// Each publish is followed by its package's pack-state entry.
		if a, b := logIndex(second.JSON(t)), logIndex(again.JSON(t)); a != b || a != 2 || logIndex(first.JSON(t)) != 0 {
			t.Errorf("log_index: first %d, second %d, identical again %d; want 0, 2, 2", logIndex(first.JSON(t)), a, b)
		}

		s := registerKey(t, env, alice, priv, pub)
		content := packDoc("signed", "2.0.0")
		ts, nonce := env.Clock.Now().Unix(), sshsign.NewNonce()
		signed := env.API.PostJSON("/api/publish-signed", signedBody(t, s, ts, nonce, content, "", "Signed."))
		wantStatus(t, signed.Status, http.StatusOK, signed.Body)
		if logIndex(signed.JSON(t)) != 5 {
			t.Errorf("signed publish log_index %d, want 5", logIndex(signed.JSON(t)))
		}
		keys := env.API.Get("/api/ssh-keys", alice.Bearer()).JSON(t)["keys"].([]any)
		keyID := keys[0].(map[string]any)["id"].(float64)
		deleted := env.API.Delete(fmt.Sprintf("/api/ssh-keys/%d", int64(keyID)), alice.Bearer())
		wantStatus(t, deleted.Status, http.StatusOK, deleted.Body)

		l := logtest.WaitFor(t, env.URL, 8)
		if l.Tree.N != 8 {
			t.Fatalf("the log holds %d entries, want 8", l.Tree.N)
		}
		kinds := []string{}
		for _, e := range l.Entries {
			kinds = append(kinds, logtest.Field(e, "kind")+" "+logtest.Field(e, "auth"))
		}
		if got := strings.Join(kinds, ","); got != "publish token,pack-state ,publish token,pack-state ,key-add ,publish ssh,pack-state ,key-remove " {
			t.Errorf("entry kinds %q", got)
		}
		keyLine := strings.Join(strings.Fields(sshtest.PublicKeyLine(t, pub))[:2], " ") // no comment
		message, _ := sshsign.Message(ts, nonce, []byte(content), "", "Signed.")
		sshEntry := l.Entries[5]
		if logtest.Field(sshEntry, "key") != keyLine || logtest.Field(sshEntry, "signed-lines") != base64.StdEncoding.EncodeToString(message) ||
			logtest.Field(sshEntry, "owner") != "alice" || logtest.Field(sshEntry, "pack") != "signed" {
			t.Errorf("the signed publish's entry:\n%s\nwant key %s and the signed lines\n%s", sshEntry, keyLine, message)
		}
		for _, i := range []int{4, 7} {
			if logtest.Field(l.Entries[i], "key") != keyLine || logtest.Field(l.Entries[i], "fingerprint") != s.fingerprint {
				t.Errorf("entry %d:\n%s\nwant the key and %s", i, l.Entries[i], s.fingerprint)
			}
		}

		// Each version of the package answer names its own entry.
		detail := env.API.Get("/api/packages/alice/widget").JSON(t)
		for _, v := range detail["versions"].([]any) {
			v := v.(map[string]any)
			entry := l.Entries[int(v["log_index"].(float64))]
			if logtest.Field(entry, "version") != v["version"] || logtest.Field(entry, "sha256") != v["sha256"] {
				t.Errorf("version %v: its log entry is\n%s", v["version"], entry)
			}
		}

		// HEAD answers as GET without a body; the key is the one the service holds.
		if h := env.API.Head("/log/checkpoint"); h.Status != http.StatusOK || len(h.Body) != 0 || h.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("HEAD /log/checkpoint: %d %q %q", h.Status, h.Header.Get("Cache-Control"), h.Body)
		}
		if key := env.API.Get("/log/key"); string(key.Body) != env.Service.LogVerifierKey()+"\n" {
			t.Errorf("/log/key = %q", key.Body)
		}
		partial := env.API.Get("/log/tile/0/000.p/8")
		if partial.Status != http.StatusOK || len(partial.Body) != 8*32 || partial.Header.Get("Cache-Control") != "public, max-age=60" {
			t.Errorf("GET /log/tile/0/000.p/8: %d %q, %d bytes", partial.Status, partial.Header.Get("Cache-Control"), len(partial.Body))
		}
	})
}

// Tile paths are parsed strictly and served only within the tree: a
// malformed path is 400, a tile beyond the latest checkpoint 404, and no
// path makes the server read more than one tile.
func TestLogTileBounds(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		logtest.WaitFor(t, env.URL, 2) // the publish and its pack-state entry
		for path, status := range map[string]int{
			"/log/tile/entries/000.p/1":                            http.StatusOK,
			"/log/tile/0/000.p/2":                                  http.StatusOK,
			"/log/tile/entries/000.p/3":                            http.StatusNotFound, // beyond the tree
			"/log/tile/entries/000":                                http.StatusNotFound,
			"/log/tile/0/001.p/1":                                  http.StatusNotFound,
			"/log/tile/1/000.p/1":                                  http.StatusNotFound,
			"/log/tile/7/x999/999":                                 http.StatusNotFound,
			"/log/tile/0/00":                                       http.StatusBadRequest, // not three digits
			"/log/tile/0/x000/000":                                 http.StatusBadRequest, // not canonical
			"/log/tile/0/000.p/256":                                http.StatusBadRequest,
			"/log/tile/0/000.p/0":                                  http.StatusBadRequest,
			"/log/tile/8/000":                                      http.StatusBadRequest, // no level 8 in a 64-bit tree
			"/log/tile/data/000":                                   http.StatusBadRequest, // sumdb's spelling, not C2SP's
			"/log/tile/entries/000.p/01":                           http.StatusBadRequest,
			"/log/tile/0/" + strings.Repeat("x999/", 2000) + "999": http.StatusBadRequest,
			"/log/tile/0/x9223/x372/x036/x854/x775/x808/000":       http.StatusBadRequest,
		} {
			got := env.API.Get(path)
			if got.Status != status {
				t.Errorf("GET %.60s: %d %s, want %d", path, got.Status, got.Body, status)
			}
		}
	})
}

// A log of more than one tile: full tiles, a partial one, and a tile of
// level 1 all verify with tlog's own proofs, and a full tile is immutable.
func TestLogBeyondOneTile(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		seedPacks(t, env, alice, 300) // 600 entries: a publish and a pack-state each
		l := logtest.WaitFor(t, env.URL, 600)
		if l.Tree.N != 600 {
			t.Fatalf("tree of %d entries, want 600", l.Tree.N)
		}
		full := env.API.Get("/log/tile/entries/001")
		if full.Status != http.StatusOK || full.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET /log/tile/entries/001: %d %q", full.Status, full.Header.Get("Cache-Control"))
		}
		if level1 := env.API.Get("/log/tile/1/000.p/2"); level1.Status != http.StatusOK || len(level1.Body) != 64 {
			t.Errorf("GET /log/tile/1/000.p/2: %d, %d bytes", level1.Status, len(level1.Body))
		}
	})
}

// GET /log/checkpoint?wait=1 answers a checkpoint covering every entry
// logged before the request, so a change is visible in the log the moment
// its answer arrives (what pact log watch relies on); on PostgreSQL also
// when another replica made the change.
func TestLogCheckpointWaitCoversWhatWasLogged(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{})
		reader := env
		if strings.HasPrefix(dsn, "postgres") {
			reader = servertest.Start(t, dsn, servertest.Options{}) // a second replica
		}
		alice := env.CreateUser(t, "alice")
		size := func(t *testing.T) int64 {
			t.Helper()
			resp := reader.API.Get("/log/checkpoint?wait=1")
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var n int64
			if _, err := fmt.Sscanf(strings.Split(string(resp.Body), "\n")[1], "%d", &n); err != nil {
				t.Fatalf("checkpoint %q: %v", resp.Body, err)
			}
			return n
		}
		for i := range 10 {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", fmt.Sprintf("1.0.%d", i))}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			index := int64(resp.JSON(t)["log_index"].(float64))
			if got := size(t); got <= index {
				t.Fatalf("publish %d logged at %d; GET /log/checkpoint?wait=1 right after answered a tree of %d entries", i, index, got)
			}
		}
		bad := reader.API.Get("/log/checkpoint?wait=yes")
		wantStatus(t, bad.Status, http.StatusBadRequest, bad.Body)
		if !strings.Contains(string(bad.Body), "wait must be 1") {
			t.Errorf("?wait=yes answered %s", bad.Body)
		}
	})
}

// GET /log/proof/{index} answers a C2SP tlog-proof that filippo.io/torchwood
// verifies with the log's key alone: the entry as its extra data, included
// in the checkpoint /log/checkpoint serves. An index beyond the tree is 404,
// one that is not a canonical decimal 400 (docs/protocol.md, Offline
// proofs).
func TestLogProofVerifiesWithTorchwood(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		for _, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", v)}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		l := logtest.WaitFor(t, env.URL, 6) // three publishes, each with its pack-state entry
		verifier, err := note.NewVerifier(l.VerifierKey)
		if err != nil {
			t.Fatal(err)
		}
		policy := torchwood.ThresholdPolicy(2, torchwood.OriginPolicy(l.Origin), torchwood.SingleVerifierPolicy(verifier))
		for i, entry := range l.Entries {
			resp := env.API.Get(fmt.Sprintf("/log/proof/%d", i))
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			if ct, cc := resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"); ct != "text/plain; charset=utf-8" || cc != "no-cache" {
				t.Errorf("GET /log/proof/%d: Content-Type %q, Cache-Control %q", i, ct, cc)
			}
			if err := torchwood.VerifyProof(policy, tlog.RecordHash(entry), resp.Body); err != nil {
				t.Errorf("GET /log/proof/%d does not verify for its entry: %v\n%s", i, err, resp.Body)
			}
			extra, err := torchwood.ProofExtraData(resp.Body)
			if err != nil || !bytes.Equal(extra, entry) {
				t.Errorf("GET /log/proof/%d: extra %q (%v), want the entry\n%s", i, extra, err, entry)
			}
			if checkpoint := env.API.Get("/log/checkpoint").Body; !bytes.HasSuffix(resp.Body, checkpoint) {
				t.Errorf("GET /log/proof/%d does not end in the served checkpoint\n%s\nproof:\n%s", i, checkpoint, resp.Body)
			}
			// The proof is of its own entry only.
			other := tlog.RecordHash(l.Entries[(i+1)%len(l.Entries)])
			var recordErr *torchwood.VerifyRecordError
			if err := torchwood.VerifyProof(policy, other, resp.Body); !errors.As(err, &recordErr) {
				t.Errorf("GET /log/proof/%d verifies another entry: %v", i, err)
			}
		}
		if h := env.API.Head("/log/proof/0"); h.Status != http.StatusOK || len(h.Body) != 0 {
			t.Errorf("HEAD /log/proof/0: %d %q", h.Status, h.Body)
		}
		for path, status := range map[string]int{
			"/log/proof/6":                    http.StatusNotFound, // the tree holds 0 to 5
			"/log/proof/1099511627776":        http.StatusNotFound,
			"/log/proof/-1":                   http.StatusBadRequest,
			"/log/proof/01":                   http.StatusBadRequest,
			"/log/proof/+1":                   http.StatusBadRequest,
			"/log/proof/x":                    http.StatusBadRequest,
			"/log/proof/99999999999999999999": http.StatusBadRequest,
		} {
			if got := env.API.Get(path); got.Status != status {
				t.Errorf("GET %s: %d %s, want %d", path, got.Status, got.Body, status)
			}
		}
	})
}

// Without a witness policy nothing changes: /log/policy is 404 (the JSON
// error), and /readyz says only ok, as it did before witnesses existed.
func TestLogWithoutWitnessPolicy(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		got := env.API.Get("/log/policy")
		wantStatus(t, got.Status, http.StatusNotFound, got.Body)
		if msg, _ := got.JSON(t)["error"].(string); msg != "this registry's log has no witness policy" {
			t.Errorf("GET /log/policy: error %q", msg)
		}
		ready := env.API.Get("/readyz")
		wantStatus(t, ready.Status, http.StatusOK, ready.Body)
		if body := strings.TrimSpace(string(ready.Body)); body != `{"ok":true}` {
			t.Errorf("GET /readyz = %s, want {\"ok\":true}", body)
		}
	})
}
