package main_test

// Helpers of the tests that run several real pactd processes on PostgreSQL
// (replicas, backups, PostgreSQL restarts) and talk to them over HTTP.

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/seedtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// unlimited turns pactd's rate limits off: these tests send bursts on
// purpose and must never see a 429.
var unlimited = []string{"--rate-ip", "0", "--rate-token", "0", "--rate-key", "0", "--rate-log-ip", "0"}

// startPactd runs pactd serve on db until the test ends.
func startPactd(t *testing.T, db string, args ...string) *pactdtest.Server {
	t.Helper()
	srv, err := pactdtest.StartDB(pactdBin, db, append(append([]string{}, unlimited...), args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stopping pactd: %v", err)
		}
		if t.Failed() {
			t.Logf("pactd at %s logged (access log left out):\n%s", srv.URL, withoutAccessLog(srv.Logs()))
		}
	})
	return srv
}

// startWithToken runs pactd serve on db (as startPactd) and makes the
// account username with an API token through pactd's admin commands.
func startWithToken(t *testing.T, username, db string, args ...string) (*pactdtest.Server, string) {
	t.Helper()
	srv := startPactd(t, db, args...)
	token, err := srv.CreateUserWithToken(username)
	if err != nil {
		t.Fatal(err)
	}
	return srv, token
}

// withoutAccessLog keeps the last lines of pactd's log that are not one
// line per request.
func withoutAccessLog(logs string) string {
	var kept []string
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, `"msg":"request"`) {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept[max(0, len(kept)-60):], "\n")
}

// httpClient bounds every request: a hung pactd fails the test instead of
// hanging it.
var httpClient = &http.Client{Timeout: 30 * time.Second}

type answer struct {
	status int
	body   []byte
	header http.Header
}

func (a answer) String() string { return fmt.Sprintf("%d %s", a.status, bytes.TrimSpace(a.body)) }

// call sends one request; body, when not nil, goes as JSON.
func call(t *testing.T, client *http.Client, method, url, token string, body any) answer {
	t.Helper()
	var reader io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		reader = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, reader)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	return answer{resp.StatusCode, b, resp.Header}
}

func get(t *testing.T, url, token string) answer {
	t.Helper()
	return call(t, httpClient, http.MethodGet, url, token, nil)
}

func publish(t *testing.T, base, token, content string) answer {
	t.Helper()
	return call(t, httpClient, http.MethodPost, base+"/api/publish", token, map[string]string{"content": content})
}

func wantAnswer(t *testing.T, what string, got answer, status int) {
	t.Helper()
	if got.status != status {
		t.Fatalf("%s: %s, want status %d", what, got, status)
	}
}

// packDocument is a pack document as users write them.
func packDocument(name, version, prose string) string {
	return fmt.Sprintf("# %s\n\n%s\n\n```yaml pact:pack\nname: %s\nversion: %s\nscheme: skill\n```\n", name, prose, name, version)
}

// sshIdentity is an ed25519 key registered for signed publishing.
type sshIdentity struct {
	signer      ssh.Signer
	fingerprint string
	id          int64
}

// registerKey makes a key and registers it through base with token.
func registerKey(t *testing.T, base, token, name string) *sshIdentity {
	t.Helper()
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(private)
	if err != nil {
		t.Fatal(err)
	}
	a := call(t, httpClient, http.MethodPost, base+"/api/ssh-keys", token,
		map[string]string{"public_key": sshsign.MarshalPublicKey(signer.PublicKey()), "name": name})
	wantAnswer(t, "register SSH key", a, http.StatusOK)
	var out struct {
		Key struct {
			ID          int64  `json:"id"`
			Fingerprint string `json:"fingerprint"`
		} `json:"key"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil {
		t.Fatal(err)
	}
	return &sshIdentity{signer: signer, fingerprint: out.Key.Fingerprint, id: out.Key.ID}
}

// signedPublish is the body of /api/publish-signed for content, signed now
// with nonce.
func (k *sshIdentity) signedPublish(t *testing.T, content, nonce string) map[string]any {
	t.Helper()
	now := time.Now().Unix()
	message, err := sshsign.Message(now, nonce, []byte(content), "", "")
	if err != nil {
		t.Fatal(err)
	}
	signature, err := sshsign.Sign(k.signer, message)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"content": content, "timestamp": now, "nonce": nonce, "fingerprint": k.fingerprint, "signature": signature}
}

// dashboardSession logs in to the dashboard of base as a browser would
// (cookies kept, redirects not followed, so each answer can be checked).
func dashboardSession(t *testing.T, base, login, password string) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 30 * time.Second, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(base+"/login", url.Values{"login": {login}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasSuffix(resp.Header.Get("Location"), "/dashboard") {
		t.Fatalf("log in as %s: status %d, Location %q, want 303 to /dashboard", login, resp.StatusCode, resp.Header.Get("Location"))
	}
	return client
}

// seedAlicePacks writes n/2 packages of alice's, pack-0 to pack-(n/2-1),
// straight into dsn's store, n log entries (n even): each package's publish
// and its pack-state entry. pactd sequences them into its log when it
// starts.
func seedAlicePacks(t *testing.T, dsn string, n int) {
	t.Helper()
	req := seedtest.Request{Owners: []string{"alice"}, Batch: n / 2}
	for i := range n / 2 {
		name := fmt.Sprintf("pack-%d", i)
		content := []byte(packDocument(name, "1.0.0", "Seeded."))
		sum := sha256.Sum256(content)
		req.Packages = append(req.Packages, seedtest.Package{Owner: "alice", Pack: name,
			Name: name, Version: "1.0.0", Content: content, SHA256: hex.EncodeToString(sum[:]), Now: time.Now()})
	}
	seedtest.Seed(t, dsn, req)
}
