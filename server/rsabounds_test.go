package server_test

import (
	"context"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server/registry"
)

// Anyone may make the server verify a signature with a registered key, so
// RSA keys are bounded to what verifies cheaply: 2048 to 8192 bits, an odd
// exponent of at most 65537.
func TestSSHKeyRSABounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv8192, pub8192 := sshtest.RSA8192(t, dir)
	_, pub1024 := sshtest.GenerateKey(t, dir, "rsa", 1024)
	rsaLine := func(e *big.Int, bits int) string { return sshtest.RSAPublicKeyLine(t, e, bits, "hostile") }

	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		mallory := env.CreateUser(t, "mallory")

		t.Run("refused at registration", func(t *testing.T) {
			cases := []struct {
				name, line, msg string
			}{
				{"ssh-keygen rsa 1024", readPub(t, pub1024), "RSA public key of 1024 bits is too short: RSA keys must have 2048 to 8192 bits"},
				{"rsa 16384", rsaLine(big.NewInt(65537), 16384), "RSA public key of 16384 bits is too long: RSA keys must have 2048 to 8192 bits"},
				{"rsa 8193", rsaLine(big.NewInt(65537), 8193), "8193 bits is too long"},
				{"rsa 20000, beyond what x/crypto parses", rsaLine(big.NewInt(65537), 20000), "20000 bits is too long"},
				{"exponent 2^24-1", rsaLine(big.NewInt(1<<24-1), 8192), "RSA public exponent 16777215 is not accepted: it must be odd and between 3 and 65537"},
				{"even exponent", rsaLine(big.NewInt(65536), 2048), "RSA public exponent 65536 is not accepted"},
				{"exponent 2^64+1", rsaLine(new(big.Int).SetBit(big.NewInt(1), 64, 1), 2048), "RSA public exponent 18446744073709551617 is not accepted"},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					resp := env.API.PostJSON("/api/ssh-keys", map[string]any{"public_key": tc.line}, mallory.Bearer())
					wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, tc.msg)
				})
			}
			t.Run("dashboard form", func(t *testing.T) {
				web := servertest.NewWebClient(t, env.URL)
				web.Login(mallory)
				page := web.Post("/dashboard/keys", url.Values{"public_key": {rsaLine(big.NewInt(65537), 16384)}, "name": {"big"}})
				servertest.WantPage(t, page, http.StatusBadRequest, "16384 bits is too long")
			})
			keys, err := env.Store.ListSSHKeys(context.Background(), mallory.Account.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != 0 {
				t.Errorf("refused keys were stored: %+v", keys)
			}
		})

		t.Run("8192 bits made by ssh-keygen registers and signs", func(t *testing.T) {
			s := registerKey(t, env, alice, priv8192, pub8192)
			doc := packDoc("big-key", "1.0.0")
			body := signedBody(t, s, env.Clock.Now().Unix(), sshsign.NewNonce(), doc, "", "")
			resp := env.API.PostJSON("/api/publish-signed", body)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			verifyProvenanceOffline(t, env, "alice", "big-key", doc)
		})

		// A key stored while longer keys were accepted is refused when it is
		// used, before the server spends any work on the signature.
		t.Run("stored 16384-bit key refused at verification", func(t *testing.T) {
			line := rsaLine(big.NewInt(1<<24-1), 16384)
			pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
			if err != nil {
				t.Fatal(err)
			}
			stored := &registry.SSHKey{
				AccountID: mallory.Account.ID, Name: "old", Type: pub.Type(),
				Fingerprint: sshsign.Fingerprint(pub), PublicKey: sshsign.MarshalPublicKey(pub), CreatedAt: env.Clock.Now(),
			}
			if err := registry.CreateSSHKey(context.Background(), env.Store, stored, "mallory"); err != nil {
				t.Fatal(err)
			}
			body := map[string]any{
				"content": packDoc("forged", "1.0.0"), "timestamp": env.Clock.Now().Unix(), "nonce": sshsign.NewNonce(),
				"fingerprint": stored.Fingerprint, "signature": sshtest.ForgedSignature(t, line),
			}
			resp := env.API.PostJSON("/api/publish-signed", body)
			wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest,
				"the SSH key "+stored.Fingerprint+" is no longer accepted for signing: RSA public key of 16384 bits is too long")
			if msg := resp.JSON(t)["error"].(string); !strings.Contains(msg, "register another key") {
				t.Errorf("error %q does not say what to do", msg)
			}
			if got := env.API.Get("/api/packages/mallory/forged"); got.Status != http.StatusNotFound {
				t.Errorf("GET /api/packages/mallory/forged = %d, want 404: %s", got.Status, got.Body)
			}
		})
	})
}
