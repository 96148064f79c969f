package server_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// snapshot is everything a hostile request could have changed, as the API
// shows it.
func snapshot(t *testing.T, env *servertest.Env, u *servertest.User) string {
	t.Helper()
	var b strings.Builder
	list := env.API.Get("/api/packages?limit=100")
	b.Write(list.Body)
	for _, p := range list.JSON(t)["packages"].([]any) {
		pkg := p.(map[string]any)
		b.Write(env.API.Get("/api/packages/" + pkg["owner_slug"].(string) + "/" + pkg["pack_slug"].(string)).Body)
	}
	b.Write(env.API.Get("/api/ssh-keys", u.Bearer()).Body)
	return b.String()
}

func multipartBody(t *testing.T, parts int) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i := 0; i < parts; i++ {
		w.WriteField(fmt.Sprintf("f%d", i), "x")
	}
	fw, _ := w.CreateFormFile("file", "x.pact.md")
	fw.Write([]byte(packDoc("parts", "1.0")))
	w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

func billionLaughs() string {
	var b strings.Builder
	b.WriteString("```yaml pact:pack\nname: lol\nversion: 1.0.0\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("```\n")
	return b.String()
}

// Every hostile input gets a clear 4xx, changes nothing, and the server
// keeps serving.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	keyLines := map[string]string{}
	for _, k := range []struct {
		typ  string
		bits int
	}{{"ecdsa", 256}, {"ecdsa", 384}, {"ecdsa", 521}, {"rsa", 1024}} {
		_, pub := sshtest.GenerateKey(t, keys, k.typ, k.bits)
		keyLines[fmt.Sprintf("%s-%d", k.typ, k.bits)] = readPub(t, pub)
	}
	caPriv, _ := sshtest.GenerateKey(t, keys, "ed25519", 0)
	_, userPub := sshtest.GenerateKey(t, keys, "ed25519", 0)
	if out, err := exec.Command("ssh-keygen", "-q", "-s", caPriv, "-I", "user", userPub).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -s: %v\n%s", err, out)
	}
	cert, err := os.ReadFile(strings.TrimSuffix(userPub, ".pub") + "-cert.pub")
	if err != nil {
		t.Fatal(err)
	}
	keyLines["certificate"] = strings.TrimSpace(string(cert))
	signerPriv, signerPub := sshtest.GenerateKey(t, filepath.Join(keys), "ed25519", 0)

	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		key := registerKey(t, env, alice, signerPriv, signerPub)
		ok := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("existing", "1.0")}, alice.Bearer())
		wantStatus(t, ok.Status, http.StatusOK, ok.Body)
		before := snapshot(t, env, alice)

		deepYAML := "```yaml pact:pack\nname: deep\nversion: 1.0.0\nx: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n```\n"
		deepQuote := strings.Repeat(">", 5000) + " ```yaml pact:pack\n" + strings.Repeat(">", 5000) + " version: 1.0\n"
		partsType, partsBody := multipartBody(t, 5000)
		now := env.Clock.Now().Unix()
		signed := func(mutate func(map[string]any)) map[string]any {
			b := signedBody(t, key, now, sshsign.NewNonce(), packDoc("signed", "1.0"), "", "")
			mutate(b)
			return b
		}
		type request struct {
			method, path, contentType string
			body                      []byte
			headers                   []string
		}
		publishJSON := func(doc string) request {
			return request{"POST", "/api/publish", "application/json", []byte(jsonString(doc)), []string{alice.Bearer()}}
		}
		asJSON := func(path string, v map[string]any) request {
			return request{"POST", path, "application/json", []byte(mustJSON(t, v)), []string{alice.Bearer()}}
		}
		cases := []struct {
			name   string
			req    request
			status int
			msg    string
		}{
			{"YAML alias bomb", publishJSON(billionLaughs()), 400, "alias"},
			{"YAML nested 10001 deep", publishJSON(deepYAML), 400, ""},
			{"markdown quotes nested 5000 deep", publishJSON(deepQuote), 400, "nest"},
			{"NUL byte", publishJSON(packDoc("nul", "1.0") + "\x00"), 400, "NUL"},
			{"invalid UTF-8 in an uploaded file", request{"POST", "/api/publish", "", nil, nil}, 400, "UTF-8"},
			{"name that slugs to nothing: ../..", publishJSON(packDoc("'../..'", "1.0")), 400, "slug"},
			{"name of look-alike letters only", publishJSON(packDoc("аррӏе", "1.0")), 400, "slug"},
			{"version with a path", publishJSON(packDoc("v", "../../1.0")), 400, "version"},
			{"version with %2e%2e", publishJSON(packDoc("v", "'%2e%2e'")), 400, "version"},
			{"multipart with 5000 parts", request{"POST", "/api/publish", partsType, partsBody, []string{alice.Bearer()}}, 400, "parts"},
			{"multipart with a broken boundary", request{"POST", "/api/publish", "multipart/form-data; boundary=abc", []byte("--xyz\r\n\r\n"), []string{alice.Bearer()}}, 400, "multipart"},
			{"JSON content as an object", request{"POST", "/api/publish", "application/json", []byte(`{"content":{"a":1}}`), []string{alice.Bearer()}}, 400, "content"},
			{"JSON content as a list", request{"POST", "/api/publish", "application/json", []byte(`{"content":["x"]}`), []string{alice.Bearer()}}, 400, "content"},
			{"JSON with content twice", request{"POST", "/api/publish", "application/json", []byte(`{"content":` + quoteJSON(packDoc("a", "1.0")) + `,"content":` + quoteJSON(packDoc("b", "1.0")) + `}`), []string{alice.Bearer()}}, 400, "twice"},
			{"JSON array body", request{"POST", "/api/publish", "application/json", []byte(`[1,2]`), []string{alice.Bearer()}}, 400, ""},
			{"signed: timestamp as a string", asJSON("/api/publish-signed", signed(func(b map[string]any) { b["timestamp"] = fmt.Sprint(now) })), 400, "timestamp"},
			{"signed: timestamp as a float", asJSON("/api/publish-signed", signed(func(b map[string]any) { b["timestamp"] = float64(now) + 0.5 })), 400, "timestamp"},
			{"signed: timestamp overflowing int64", request{"POST", "/api/publish-signed", "application/json", []byte(`{"content":"x","timestamp":99999999999999999999999,"nonce":"aaaaaaaaaaaaaaaa","fingerprint":"SHA256:x","signature":"x"}`), nil}, 400, "timestamp"},
			{"signed: overlong nonce", asJSON("/api/publish-signed", signed(func(b map[string]any) { b["nonce"] = strings.Repeat("n", 10000) })), 400, "nonce"},
			{"signed: fingerprint twice", request{"POST", "/api/publish-signed", "application/json", []byte(`{"fingerprint":"a","fingerprint":"b"}`), nil}, 400, "twice"},
			{"SSH key body over 64 KiB", asJSON("/api/ssh-keys", map[string]any{"public_key": "ssh-ed25519 " + strings.Repeat("A", 70<<10)}), 413, "limit"},
			{"huge header", request{"GET", "/api/packages", "", nil, []string{"X-Junk: " + strings.Repeat("j", 100<<10)}}, 431, ""},
		}
		for name, line := range keyLines {
			cases = append(cases, struct {
				name   string
				req    request
				status int
				msg    string
			}{"key of type " + name, asJSON("/api/ssh-keys", map[string]any{"public_key": line}), 400, "public_key"})
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				req := tc.req
				if tc.name == "invalid UTF-8 in an uploaded file" {
					var buf bytes.Buffer
					w := multipart.NewWriter(&buf)
					fw, _ := w.CreateFormFile("file", "bad.pact.md")
					fw.Write([]byte(packDoc("bad", "1.0") + "\xff\xfe"))
					w.Close()
					req = request{"POST", "/api/publish", w.FormDataContentType(), buf.Bytes(), []string{alice.Bearer()}}
				}
				httpReq, err := http.NewRequest(req.method, env.URL+req.path, bytes.NewReader(req.body))
				if err != nil {
					t.Fatal(err)
				}
				if req.contentType != "" {
					httpReq.Header.Set("Content-Type", req.contentType)
				}
				for _, h := range req.headers {
					name, value, _ := strings.Cut(h, ": ")
					httpReq.Header.Set(name, value)
				}
				var resp struct {
					Status int
					Body   []byte
				}
				if tc.status == 431 {
					// net/http answers this before pact sees the request.
					r, err := http.DefaultClient.Do(httpReq)
					if err != nil {
						t.Fatal(err)
					}
					r.Body.Close()
					resp.Status = r.StatusCode
				} else {
					r := env.API.Do(httpReq)
					resp.Status, resp.Body = r.Status, r.Body
					wantError(t, r.Status, r.JSON(t), tc.status, tc.msg)
				}
				if resp.Status != tc.status {
					t.Errorf("status %d, want %d: %s", resp.Status, tc.status, resp.Body)
				}
				if after := snapshot(t, env, alice); after != before {
					t.Errorf("the request changed what the API shows:\nbefore %s\nafter  %s", before, after)
				}
				if h := env.API.Get("/healthz"); h.Status != http.StatusOK {
					t.Errorf("server stopped serving: /healthz %d", h.Status)
				}
			})
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := jsonMarshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
