package server_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/server"
)

func wantRateLimited(t *testing.T, resp interface {
	JSON(testing.TB) map[string]any
}, status int, header http.Header) {
	t.Helper()
	wantError(t, status, resp.JSON(t), http.StatusTooManyRequests, "too many requests")
	if secs, err := strconv.Atoi(header.Get("Retry-After")); err != nil || secs < 1 {
		t.Errorf("Retry-After = %q, want a whole number of seconds >= 1", header.Get("Retry-After"))
	}
}

func TestRateLimitPerAddress(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{
		Limits: server.Limits{PerIP: server.Limit{Rate: 0.01, Burst: 3}},
	})
	for i := 0; i < 3; i++ {
		if resp := env.API.Get("/api/packages"); resp.Status != http.StatusOK {
			t.Fatalf("request %d within the burst: status %d", i+1, resp.Status)
		}
	}
	resp := env.API.Get("/api/packages")
	wantRateLimited(t, resp, resp.Status, resp.Header)
	// Raw documents are what curl installs fetch: they are not counted.
	if raw := env.API.Get("/raw/nobody/x.pact.md"); raw.Status != http.StatusNotFound {
		t.Errorf("raw document after the API limit: status %d, want 404 (not 429)", raw.Status)
	}
}

func TestRateLimitPerToken(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{
		Limits: server.Limits{PerToken: server.Limit{Rate: 0.01, Burst: 2}},
	})
	alice, bob := env.CreateUser(t, "alice"), env.CreateUser(t, "bob")
	for i := 0; i < 2; i++ {
		if resp := env.API.Get("/api/me", alice.Bearer()); resp.Status != http.StatusOK {
			t.Fatalf("request %d: status %d", i+1, resp.Status)
		}
	}
	resp := env.API.Get("/api/me", "X-Pact-Token: "+alice.Token)
	wantRateLimited(t, resp, resp.Status, resp.Header)
	if resp := env.API.Get("/api/me", bob.Bearer()); resp.Status != http.StatusOK {
		t.Errorf("another account's token was limited too: status %d", resp.Status)
	}
}

// A signed publish refused for its key's rate spends nothing: the same
// request succeeds once the bucket has refilled.
func TestRateLimitPerKeyKeepsTheNonce(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{
		Limits: server.Limits{PerKey: server.Limit{Rate: 2, Burst: 1}},
	})
	alice := env.CreateUser(t, "alice")
	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	key := registerKey(t, env, alice, priv, pub)
	now := env.Clock.Now().Unix()
	first := env.API.PostJSON("/api/publish-signed", signedBody(t, key, now, sshsign.NewNonce(), packDoc("k", "1.0"), "", ""))
	wantStatus(t, first.Status, http.StatusOK, first.Body)
	second := signedBody(t, key, now, sshsign.NewNonce(), packDoc("k", "2.0"), "", "")
	limited := env.API.PostJSON("/api/publish-signed", second)
	wantRateLimited(t, limited, limited.Status, limited.Header)
	env.Clock.Advance(600 * time.Millisecond) // the bucket refills on the registry's clock
	retried := env.API.PostJSON("/api/publish-signed", second)
	wantStatus(t, retried.Status, http.StatusOK, retried.Body)
}

// The per-address API limit counts an IPv6 client by its /64, as log-ins
// do: a host that rotates through its 2^64 addresses gets one budget, and
// a neighbour in another /64 keeps its own.
func TestRateLimitPerAddressCountsIPv6By64(t *testing.T) {
	t.Parallel()
	base := servertest.StartWithConfig(t, server.Config{BaseURL: "http://pact.test", TrustedProxies: []string{"127.0.0.1", "::1"},
		Limits: server.Limits{PerIP: server.Limit{Rate: 0.01, Burst: 3}}})
	get := func(from string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+"/api/packages", nil)
		req.Header.Set("X-Forwarded-For", from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 3 {
		if status := get(fmt.Sprintf("2001:db8:1:2::%x", i+1)); status != http.StatusOK {
			t.Fatalf("request %d within the /64's burst: status %d", i+1, status)
		}
	}
	if status := get("2001:db8:1:2:ffff:ffff:ffff:ffff"); status != http.StatusTooManyRequests {
		t.Errorf("a fourth address in the same /64: status %d, want 429", status)
	}
	if status := get("2001:db8:1:3::1"); status != http.StatusOK {
		t.Errorf("an address in the next /64: status %d, want 200", status)
	}
}
