package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/oidctest"
	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/syncbuf"
)

// ttyServe runs pactd serve with its stdout and stderr on a terminal (a
// pty that script(1) makes), as an operator who starts it by hand sees it,
// and returns what the terminal showed once a request has been logged.
func ttyServe(t *testing.T, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed (util-linux)")
	}
	line := append([]string{pactdBin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "p.db")}, args...)
	cmd := exec.Command("script", "-qfec", strings.Join(line, " "), "/dev/null")
	cmd.Env = pactdtest.CleanEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
	})
	listening := regexp.MustCompile(`listening on \S+ \((\S+)\)`)
	var base string
	if !eventually(30*time.Second, func() bool {
		m := listening.FindStringSubmatch(out.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	}) {
		t.Fatalf("pactd on a terminal did not start:\n%s", out.String())
	}
	wantAnswer(t, "GET /healthz", get(t, base+"/healthz", ""), http.StatusOK)
	if !eventually(10*time.Second, func() bool { return strings.Contains(out.String(), "/healthz") }) {
		t.Fatalf("pactd on a terminal logged no request line:\n%s", out.String())
	}
	return strings.ReplaceAll(out.String(), "\r\n", "\n")
}

// logLines are the lines of pactd's stderr (and stdout, which the
// harness mixes in) that hold msg.
func logLines(logs, msg string) []string {
	var lines []string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, msg) {
			lines = append(lines, line)
		}
	}
	return lines
}

func isJSONObject(line string) bool {
	var v map[string]any
	return json.Unmarshal([]byte(line), &v) == nil
}

var textRequestLine = regexp.MustCompile(`^time=\S+ level=INFO msg=request request_id=\S+ method=GET route=/healthz path=/healthz status=200 `)

func TestLogFormat(t *testing.T) {
	t.Parallel()
	t.Run("a terminal gets text", func(t *testing.T) {
		out := ttyServe(t)
		requests := logLines(out, "/healthz")
		if len(requests) != 1 || !textRequestLine.MatchString(requests[0]) {
			t.Errorf("request lines on a terminal: %q, want one text line matching %s", requests, textRequestLine)
		}
		if started := logLines(out, `msg="pactd listening"`); len(started) != 1 || !strings.HasPrefix(started[0], "time=") {
			t.Errorf("start-up lines on a terminal: %q, want one text line", started)
		}
		if strings.Contains(out, `{"time"`) {
			t.Errorf("JSON on a terminal:\n%s", out)
		}
	})
	t.Run("a terminal gets JSON when asked", func(t *testing.T) {
		out := ttyServe(t, "--log-format", "json")
		requests := logLines(out, `"msg":"request"`)
		if len(requests) != 1 || !isJSONObject(requests[0]) {
			t.Errorf("request lines on a terminal with --log-format json: %q, want one JSON object", requests)
		}
	})

	pipe := func(t *testing.T, args ...string) string {
		srv := startPactd(t, filepath.Join(t.TempDir(), "p.db"), args...)
		wantAnswer(t, "GET /healthz", get(t, srv.URL+"/healthz", ""), http.StatusOK)
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		return srv.Logs()
	}
	t.Run("a pipe gets JSON", func(t *testing.T) {
		logs := pipe(t)
		requests := logLines(logs, "/healthz")
		if len(requests) != 1 || !isJSONObject(requests[0]) || !strings.Contains(requests[0], `"msg":"request"`) {
			t.Errorf("request lines on a pipe: %q, want one JSON object", requests)
		}
		for _, msg := range []string{`"msg":"pactd listening"`, `"msg":"stopped"`} {
			if lines := logLines(logs, msg); len(lines) != 1 || !isJSONObject(lines[0]) {
				t.Errorf("%s lines on a pipe: %q, want one JSON object", msg, lines)
			}
		}
	})
	t.Run("a pipe gets text when asked, from the environment too", func(t *testing.T) {
		for _, args := range [][]string{{"--log-format", "text"}, {"--config", writeFile(t, "pactd.yaml", "log-format: text\n")}} {
			requests := logLines(pipe(t, args...), "/healthz")
			if len(requests) != 1 || !textRequestLine.MatchString(requests[0]) {
				t.Errorf("request lines on a pipe with %v: %q, want one text line", args, requests)
			}
		}
	})
	t.Run("a page view is one line: its static files log at debug", func(t *testing.T) {
		view := func(t *testing.T, args ...string) string {
			srv := startPactd(t, filepath.Join(t.TempDir(), "p.db"), args...)
			status, home := getText(t, srv.URL+"/")
			if status != http.StatusOK {
				t.Fatalf("GET /: %d", status)
			}
			assets := regexp.MustCompile(`"(/static/[^"?]+)\?v=[0-9a-f]+"`).FindAllStringSubmatch(home, -1)
			if len(assets) == 0 {
				t.Fatalf("the home page links no static file:\n%s", home)
			}
			for _, a := range assets {
				wantAnswer(t, "GET "+a[1], get(t, srv.URL+a[1], ""), http.StatusOK)
			}
			if err := srv.Stop(); err != nil {
				t.Fatal(err)
			}
			return srv.Logs()
		}
		logs := view(t)
		if lines := logLines(logs, `"path":"/static/`); len(lines) != 0 {
			t.Errorf("at the default level, static files logged %d request lines: %q", len(lines), lines)
		}
		if lines := logLines(logs, `"path":"/"`); len(lines) != 1 {
			t.Errorf("the page itself logged %q, want one line", lines)
		}
		debug := view(t, "--log-level", "debug")
		if lines := logLines(debug, `"path":"/static/`); len(lines) == 0 || !strings.Contains(lines[0], `"level":"DEBUG"`) {
			t.Errorf("with --log-level debug, static files logged %q, want DEBUG request lines", lines)
		}
	})
	t.Run("--log-level warn leaves out requests and start-up, not errors", func(t *testing.T) {
		logs := pipe(t, "--log-level", "warn")
		if lines := logLines(logs, `"msg":`); len(lines) != 0 {
			t.Errorf("--log-level warn logged %q, want nothing at info", lines)
		}
	})

	for _, bad := range []struct {
		env, args []string
		want      string
	}{
		{nil, []string{"--log-format", "yaml"}, `flag --log-format: "yaml" is not text, json or auto`},
		{[]string{"PACTD_LOG_LEVEL=loud"}, nil, `environment PACTD_LOG_LEVEL: "loud" is not debug, info, warn or error`},
	} {
		r, _ := refusedServe(t, bad.env, bad.args...)
		if r.code != 2 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("serve %v %v: exit %d, stderr %q; want 2 and %q", bad.env, bad.args, r.code, r.stderr, bad.want)
		}
	}
}

// auditLine is the part of a JSON audit line the tests read.
type auditLine struct {
	Level   string `json:"level"`
	Msg     string `json:"msg"`
	Audit   string `json:"audit"`
	Actor   string `json:"actor"`
	Package string `json:"package"`
	Version string `json:"version"`
	TokenID int64  `json:"token_id"`
}

func auditLines(t *testing.T, logs string) []auditLine {
	t.Helper()
	var lines []auditLine
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(`"audit":`)) {
			continue
		}
		var l auditLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

// Every change a user makes is one audit line, in words, once it is made;
// refused requests and publishes that change nothing write none. The
// level is warn, so the request lines are left out and the audit lines
// are seen to be written at every level.
func TestAuditLines(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	srv, token := startWithToken(t, "alice", filepath.Join(t.TempDir(), "pact.db"),
		"--oidc-issuer", idp.Issuer, "--log-level", "warn")
	base := srv.URL
	post := func(what, path, tok string, body any, status int) map[string]any {
		t.Helper()
		a := call(t, httpClient, http.MethodPost, base+path, tok, body)
		wantAnswer(t, what, a, status)
		var out map[string]any
		json.Unmarshal(a.body, &out)
		return out
	}
	del := func(what, path, tok string, status int) {
		t.Helper()
		wantAnswer(t, what, call(t, httpClient, http.MethodDelete, base+path, tok, nil), status)
	}

	key := registerKey(t, base, token, "laptop")
	wantAnswer(t, "publish", publish(t, base, token, packDocument("widget", "1.0.0", "First.")), http.StatusOK)
	wantAnswer(t, "the same publish again", publish(t, base, token, packDocument("widget", "1.0.0", "First.")), http.StatusOK)
	wantAnswer(t, "a publish that conflicts", publish(t, base, token, packDocument("widget", "1.0.0", "Other.")), http.StatusConflict)
	post("signed publish", "/api/publish-signed", "", key.signedPublish(t, packDocument("widget", "1.1.0", "Signed."), "audit-nonce-0000000001"), http.StatusOK)
	post("yank", "/api/packages/alice/widget/versions/1.1.0/yank", token, map[string]string{"reason": "broken build"}, http.StatusOK)
	post("yank of a version that does not exist", "/api/packages/alice/widget/versions/9.9.9/yank", token, map[string]string{}, http.StatusNotFound)
	post("unyank", "/api/packages/alice/widget/versions/1.1.0/unyank", token, nil, http.StatusOK)
	post("deprecate", "/api/packages/alice/widget/deprecate", token, map[string]string{"message": "use gadget"}, http.StatusOK)
	post("undeprecate", "/api/packages/alice/widget/deprecate", token, map[string]string{"message": ""}, http.StatusOK)
	wantAnswer(t, "trusted publishing only", call(t, httpClient, http.MethodPatch, base+"/api/packages/alice/widget", token,
		map[string]bool{"trusted_publishing_only": true}), http.StatusOK)
	wantAnswer(t, "trusted publishing only off, by a token", call(t, httpClient, http.MethodPatch, base+"/api/packages/alice/widget", token,
		map[string]bool{"trusted_publishing_only": false}), http.StatusForbidden)
	// Off in the owner's browser session, as only the dashboard may.
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, form := range []struct {
		path   string
		values url.Values
	}{
		{"/login", url.Values{"login": {"alice"}, "password": {"correct horse battery staple"}}},
		{"/dashboard/packages/widget/trusted-publishing-only", url.Values{"only": {"false"}}},
	} {
		resp, err := browser.PostForm(base+form.path, form.values)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: status %d, want 303", form.path, resp.StatusCode)
		}
	}
	created := post("token create", "/api/tokens", token, map[string]string{"name": "ci"}, http.StatusCreated)
	ciToken := int64(created["id"].(float64))
	del("token revoke", fmt.Sprintf("/api/tokens/%d", ciToken), token, http.StatusOK)
	del("revoke of a token that does not exist", "/api/tokens/999", token, http.StatusNotFound)
	trust := post("trusted publisher add", "/api/trusted-publishers", token, map[string]any{"issuer": idp.Issuer,
		"packages": []string{"widget"}, "claims": map[string]string{"repository": "alice/widget"}}, http.StatusCreated)
	trustID := int64(trust["id"].(float64))
	exchanged := post("exchange", "/api/oidc/exchange", "", map[string]string{"token": idp.Mint("RS256", false,
		oidctest.GitHubClaims(idp.Issuer, base, "alice/widget", "release.yml", "refs/heads/main", time.Now()))}, http.StatusOK)
	wantAnswer(t, "publish from CI", publish(t, base, exchanged["token"].(string), packDocument("widget", "1.2.0", "From CI.")), http.StatusOK)
	del("trusted publisher remove", fmt.Sprintf("/api/trusted-publishers/%d", trustID), token, http.StatusOK)
	del("key remove", fmt.Sprintf("/api/ssh-keys/%d", key.id), token, http.StatusOK)
	hook := post("hook add", "/api/hooks", token, map[string]any{"package": "widget", "url": "https://203.0.113.10/hook",
		"secret": "audit-secret-0123456789", "events": []string{"publish", "yank"}}, http.StatusCreated)
	hookID := int64(hook["hook"].(map[string]any)["id"].(float64))
	post("hook add on loopback", "/api/hooks", token, map[string]any{"url": "http://127.0.0.1:1/",
		"secret": "audit-secret-0123456789", "events": []string{"publish"}}, http.StatusBadRequest)
	del("hook remove", fmt.Sprintf("/api/hooks/%d", hookID), token, http.StatusOK)

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	logs := srv.Logs()
	lines := auditLines(t, logs)
	fp := key.fingerprint
	trusted := fmt.Sprintf("trusted publisher %d (%s, repository alice/widget, packages widget)", trustID, idp.Issuer)
	want := []struct{ action, msg string }{
		{"key_add", fmt.Sprintf("alice added SSH key %d %s (laptop)", key.id, fp)},
		{"publish", "alice published widget 1.0.0 (token 1, test)"},
		{"publish", "alice published widget 1.1.0 (ssh " + fp + ")"},
		{"yank", "alice yanked widget 1.1.0: broken build"},
		{"unyank", "alice un-yanked widget 1.1.0"},
		{"deprecate", "alice deprecated widget: use gadget"},
		{"undeprecate", "alice withdrew the deprecation of widget"},
		{"trusted_publishing_only", "alice set widget to trusted publishing only"},
		{"trusted_publishing_only", "alice took widget off trusted publishing only"},
		{"token_create", fmt.Sprintf("alice created token %d (ci)", ciToken)},
		{"token_revoke", fmt.Sprintf("alice revoked token %d (ci)", ciToken)},
		{"trusted_publisher_add", "alice added " + trusted},
		{"token_exchange", fmt.Sprintf("a CI job (repository alice/widget, %s) exchanged an ID token for alice's token %d, for packages widget", idp.Issuer, ciToken+1)},
		{"publish", fmt.Sprintf("alice published widget 1.2.0 (token %d, trusted publishing, repository alice/widget)", ciToken+1)},
		{"trusted_publisher_remove", "alice removed " + trusted},
		{"key_remove", fmt.Sprintf("alice removed SSH key %d %s (laptop)", key.id, fp)},
		{"hook_add", fmt.Sprintf("alice added webhook %d of alice/widget (publish, yank) to https://203.0.113.10/hook", hookID)},
		{"hook_remove", fmt.Sprintf("alice removed webhook %d of alice/widget, to https://203.0.113.10/hook", hookID)},
	}
	for i := range max(len(want), len(lines)) {
		switch {
		case i >= len(lines):
			t.Errorf("audit line %d missing: want %s %q", i, want[i].action, want[i].msg)
		case i >= len(want):
			t.Errorf("audit line %d: %s %q, want none", i, lines[i].Audit, lines[i].Msg)
		case lines[i].Audit != want[i].action || lines[i].Msg != want[i].msg || lines[i].Actor != "alice" || lines[i].Level != "INFO":
			t.Errorf("audit line %d: %+v\nwant %s %q by alice at INFO", i, lines[i], want[i].action, want[i].msg)
		}
	}
	if len(lines) > 2 && (lines[2].Package != "alice/widget" || lines[2].Version != "1.1.0") {
		t.Errorf("the signed publish's fields: package %q version %q, want alice/widget 1.1.0", lines[2].Package, lines[2].Version)
	}
	if t.Failed() {
		t.Logf("pactd logged:\n%s", logs)
	}
}
