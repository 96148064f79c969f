package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/pkg/sshsign"
)

func TestRequestIDsLogsAndMetrics(t *testing.T) {
	t.Parallel()
	logs := &syncbuf.Buffer{}
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{Logs: logs})
	alice := env.CreateUser(t, "alice")
	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	key := registerKey(t, env, alice, priv, pub)

	given := env.API.Get("/api/packages", "X-Request-ID: trace-123")
	if given.Header.Get("X-Request-ID") != "trace-123" {
		t.Errorf("X-Request-ID = %q, want the caller's trace-123", given.Header.Get("X-Request-ID"))
	}
	made := env.API.Get("/api/packages", "X-Request-ID: bad id with spaces")
	if id := made.Header.Get("X-Request-ID"); id == "" || strings.Contains(id, " ") {
		t.Errorf("X-Request-ID = %q, want a fresh id", id)
	}

	// A failing and a succeeding publish of each kind, with secrets in play.
	env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("m", "1.0")}, alice.Bearer())
	env.API.PostJSON("/api/publish", map[string]any{"content": "no block"}, alice.Bearer())
	good := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("m", "2.0"), "", "")
	env.API.PostJSON("/api/publish-signed", good)
	bad := signedBody(t, key, env.Clock.Now().Unix(), sshsign.NewNonce(), packDoc("m", "3.0"), "", "")
	bad["content"] = packDoc("m", "3.1")
	env.API.PostJSON("/api/publish-signed", bad)

	sawTrace := false
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		if line["msg"] == "request" && line["request_id"] == nil {
			t.Errorf("request log line without request_id: %s", sc.Text())
		}
		if line["request_id"] == "trace-123" {
			sawTrace = true
		}
	}
	if !sawTrace {
		t.Errorf("no log line carries the caller's request id")
	}
	for name, secret := range map[string]string{
		"token": alice.Token, "password": alice.Password,
		"signature": strings.Split(good["signature"].(string), "\n")[1],
	} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the %s reached the logs", name)
		}
	}

	resp, err := http.Get(env.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, series := range []string{
		`pact_http_requests_total{method="GET",route="/api/packages",status="200"} 2`,
		`pact_http_request_duration_seconds_bucket{method="GET",route="/api/packages"`,
		`pact_publishes_total{auth="token",result="created"} 1`,
		`pact_publishes_total{auth="token",result="invalid"} 1`,
		`pact_publishes_total{auth="ssh-signature",result="created"} 1`,
		`pact_signature_failures_total{reason="bad_signature"} 1`,
	} {
		if !strings.Contains(string(body), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}
