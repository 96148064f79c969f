package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// A full run through every way a secret enters pactd — passwords at the
// dashboard, session cookies, tokens made both ways, signatures good and
// bad — then a search of everything pactd logged for each of them.
func TestSecretsNeverReachTheLogs(t *testing.T) {
	srv, err := pactdtest.Start(pactdBin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	secrets := map[string]string{"password": "s3cret-password-" + sshsign.NewNonce()}
	if err := srv.CreateUser("alice", "alice@example.com", secrets["password"]); err != nil {
		t.Fatal(err)
	}
	if secrets["cli token"], err = srv.CreateToken("alice"); err != nil {
		t.Fatal(err)
	}
	secrets["wrong password"] = "wrong-password-" + sshsign.NewNonce()

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	postForm := func(path string, form url.Values) string {
		t.Helper()
		resp, err := browser.PostForm(srv.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	postForm("/login", url.Values{"login": {"alice"}, "password": {secrets["wrong password"]}})
	postForm("/login", url.Values{"login": {"alice"}, "password": {secrets["password"]}})
	base, _ := url.Parse(srv.URL)
	for _, c := range jar.Cookies(base) {
		secrets["cookie "+c.Name] = c.Value
	}
	if len(secrets) < 4 {
		t.Fatalf("logging in gave no session cookie")
	}
	page := postForm("/dashboard/tokens", url.Values{"name": {"web"}, "expires_in_days": {"30"}})
	secrets["dashboard token"] = regexp.MustCompile(`pact_[0-9A-Za-z]{43}`).FindString(page)
	if secrets["dashboard token"] == "" {
		t.Fatalf("the dashboard showed no new token")
	}

	api := func(method, path, token string, body any) {
		t.Helper()
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = strings.NewReader(string(b))
		}
		req, _ := http.NewRequest(method, srv.URL+path, r)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	doc := "# s\n\n```yaml pact:pack\nname: secret-test\nversion: 1.0.0\n```\n"
	api("GET", "/api/me", secrets["dashboard token"], nil)
	api("POST", "/api/publish", secrets["cli token"], map[string]any{"content": doc})
	api("POST", "/api/publish", secrets["cli token"], map[string]any{"content": "no block"})
	api("GET", "/api/me", secrets["cli token"]+"x", nil)

	priv, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	line, _ := os.ReadFile(pub)
	api("POST", "/api/ssh-keys", secrets["cli token"], map[string]any{"public_key": string(line)})
	parsed, _, err := sshsign.ParseAuthorizedKey(string(line))
	if err != nil {
		t.Fatal(err)
	}
	for i, content := range []string{doc + "\nsigned\n", doc + "\ntampered\n"} {
		ts, nonce := time.Now().Unix(), sshsign.NewNonce()
		msg, _ := sshsign.Message(ts, nonce, []byte(doc+"\nsigned\n"), "", "")
		sig := sshtest.SignWithKeygen(t, priv, msg, sshsign.Namespace)
		secrets["signature "+string(rune('0'+i))] = strings.Split(sig, "\n")[1]
		api("POST", "/api/publish-signed", "", map[string]any{
			"content": content, "timestamp": ts, "nonce": nonce, "fingerprint": sshsign.Fingerprint(parsed), "signature": sig,
		})
	}
	postForm("/logout", url.Values{})

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	logs := srv.Logs()
	if !strings.Contains(logs, `"path":"/api/publish-signed"`) {
		t.Fatalf("the logs do not show the run at all:\n%s", logs)
	}
	t.Logf("searched the logs for %d secrets", len(secrets))
	for name, secret := range secrets {
		if secret != "" && strings.Contains(logs, secret) {
			t.Errorf("the %s reached pactd's logs", name)
		}
	}
}
