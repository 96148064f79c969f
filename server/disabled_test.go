package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// A disabled account's tokens and SSH-signed publishes are refused with 403
// and a message saying so; enabled again, both work as before.
func TestDisabledAccountIsRefusedOnTheAPI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		ctx := context.Background()
		alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
		key := registerKey(t, env, alice, priv, pub)

		if _, _, err := env.Service.DisableAccount(ctx, "alice"); err != nil {
			t.Fatalf("DisableAccount: %v", err)
		}
		refused := []struct {
			name string
			do   func() (int, []byte)
		}{
			{"GET /api/me", func() (int, []byte) { r := env.API.Get("/api/me", alice.Bearer()); return r.Status, r.Body }},
			{"GET /api/ssh-keys", func() (int, []byte) { r := env.API.Get("/api/ssh-keys", alice.Bearer()); return r.Status, r.Body }},
			{"POST /api/publish", func() (int, []byte) {
				r := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
				return r.Status, r.Body
			}},
			{"POST /api/publish-signed", func() (int, []byte) {
				body := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("signed", "1.0.0"), "", "")
				r := env.API.PostJSON("/api/publish-signed", body)
				return r.Status, r.Body
			}},
		}
		for _, c := range refused {
			status, body := c.do()
			if status != http.StatusForbidden || !strings.Contains(string(body), "the account alice is disabled") {
				t.Errorf("%s by the disabled alice = %d %s, want 403 saying the account is disabled", c.name, status, body)
			}
		}
		if r := env.API.Head("/api/me", alice.Bearer()); r.Status != http.StatusForbidden {
			t.Errorf("HEAD /api/me by the disabled alice = %d, want 403", r.Status)
		}
		// Nothing was published, and bob is not affected.
		wantStatus(t, env.API.Get("/api/packages/alice/widget").Status, http.StatusNotFound, nil)
		wantStatus(t, env.API.Get("/api/packages/alice/signed").Status, http.StatusNotFound, nil)
		wantStatus(t, env.API.Get("/api/me", bob.Bearer()).Status, http.StatusOK, nil)

		if _, err := env.Service.EnableAccount(ctx, "alice"); err != nil {
			t.Fatalf("EnableAccount: %v", err)
		}
		me := env.API.Get("/api/me", alice.Bearer())
		wantStatus(t, me.Status, http.StatusOK, me.Body)
		r := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, r.Status, http.StatusOK, r.Body)
		body := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("signed", "1.0.0"), "", "")
		r = env.API.PostJSON("/api/publish-signed", body)
		wantStatus(t, r.Status, http.StatusOK, r.Body)
	})
}
