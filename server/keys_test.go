package server_test

import (
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
)

func readPub(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// keygenFingerprint is what ssh-keygen -lf prints for a key: "SHA256:...".
func keygenFingerprint(t *testing.T, pubPath string) string {
	t.Helper()
	out, err := exec.Command("ssh-keygen", "-lf", pubPath).Output()
	if err != nil {
		t.Fatalf("ssh-keygen -lf: %v", err)
	}
	return strings.Fields(string(out))[1]
}

func TestSSHKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, edPub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	_, rsaPub := sshtest.GenerateKey(t, dir, "rsa", 2048)
	_, shortRSAPub := sshtest.GenerateKey(t, dir, "rsa", 1024)
	_, ecdsaPub := sshtest.GenerateKey(t, dir, "ecdsa", 256)

	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")

		add := func(u *servertest.User, header string, body map[string]any) (int, map[string]any) {
			resp := env.API.PostJSON("/api/ssh-keys", body, header)
			return resp.Status, resp.JSON(t)
		}
		status, body := add(alice, alice.Bearer(), map[string]any{"public_key": readPub(t, edPub)})
		wantStatus(t, status, http.StatusOK, nil)
		key := body["key"].(map[string]any)
		edLine := strings.Fields(readPub(t, edPub))
		if key["fingerprint"] != keygenFingerprint(t, edPub) || key["type"] != "ssh-ed25519" ||
			key["public_key"] != edLine[0]+" "+edLine[1] || key["name"] != edLine[2] || key["last_used_at"] != nil {
			t.Errorf("key record = %v; want fingerprint %s, type ssh-ed25519, the key without comment, name = comment %q",
				key, keygenFingerprint(t, edPub), edLine[2])
		}

		// X-Pact-Token works on /api/ssh-keys too, and a name overrides the comment.
		status, body = add(alice, "X-Pact-Token: "+alice.Token, map[string]any{"public_key": readPub(t, rsaPub), "name": "laptop"})
		wantStatus(t, status, http.StatusOK, nil)
		rsaKey := body["key"].(map[string]any)
		if rsaKey["name"] != "laptop" || rsaKey["type"] != "ssh-rsa" || rsaKey["fingerprint"] != keygenFingerprint(t, rsaPub) {
			t.Errorf("rsa key record = %v", rsaKey)
		}

		t.Run("rejected keys", func(t *testing.T) {
			cases := []struct {
				name   string
				body   map[string]any
				status int
				msg    string
			}{
				{"already registered by another account", map[string]any{"public_key": readPub(t, edPub)}, 409, "registered"},
				{"rsa 1024", map[string]any{"public_key": readPub(t, shortRSAPub)}, 400, "1024"},
				{"ecdsa", map[string]any{"public_key": readPub(t, ecdsaPub)}, 400, "ecdsa"},
				{"garbage", map[string]any{"public_key": "ssh-ed25519 not-base64!"}, 400, "public_key"},
				{"missing", map[string]any{"name": "x"}, 400, "public_key"},
				{"two lines", map[string]any{"public_key": readPub(t, edPub) + "\n" + readPub(t, rsaPub)}, 400, "public_key"},
				{"wrong type", map[string]any{"public_key": 7}, 400, "public_key"},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					status, body := add(bob, bob.Bearer(), tc.body)
					wantError(t, status, body, tc.status, tc.msg)
				})
			}
			list := env.API.Get("/api/ssh-keys", bob.Bearer())
			if keys := list.JSON(t)["keys"].([]any); len(keys) != 0 {
				t.Errorf("bob has %d keys after only rejected additions", len(keys))
			}
		})

		list := env.API.Get("/api/ssh-keys", alice.Bearer())
		wantStatus(t, list.Status, http.StatusOK, list.Body)
		if keys := list.JSON(t)["keys"].([]any); len(keys) != 2 {
			t.Fatalf("alice has %d keys, want 2", len(keys))
		}

		// The account's keys are public as authorized_keys lines.
		authorized := env.API.Get("/alice.keys")
		wantStatus(t, authorized.Status, http.StatusOK, authorized.Body)
		if !strings.Contains(string(authorized.Body), edLine[0]+" "+edLine[1]) || strings.Count(string(authorized.Body), "\n") != 2 {
			t.Errorf("/alice.keys = %q", authorized.Body)
		}

		id := jsonInt(key["id"])
		del := func(u *servertest.User) int {
			req := mustRequest(t, http.MethodDelete, env.URL+"/api/ssh-keys/"+id)
			req.Header.Set("Authorization", "Bearer "+u.Token)
			return env.API.Do(req).Status
		}
		if got := del(bob); got != http.StatusNotFound {
			t.Errorf("bob deleting alice's key: status %d, want 404", got)
		}
		if got := del(alice); got != http.StatusOK {
			t.Errorf("alice deleting her key: status %d, want 200", got)
		}
		if got := del(alice); got != http.StatusNotFound {
			t.Errorf("deleting it again: status %d, want 404", got)
		}
		// Once deleted, the key can be registered again, by anyone.
		status, _ = add(bob, bob.Bearer(), map[string]any{"public_key": readPub(t, edPub)})
		wantStatus(t, status, http.StatusOK, nil)

		noToken := env.API.Get("/api/ssh-keys")
		wantError(t, noToken.Status, noToken.JSON(t), http.StatusUnauthorized, "token")
	})
}

func jsonInt(v any) string { return strconv.FormatInt(int64(v.(float64)), 10) }
