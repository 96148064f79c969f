package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

// hostile is text a registry outside our control could send: an OSC that
// sets the terminal's title, a bell, a screen clear, a carriage return that
// overwrites the line, an 8-bit CSI, a right-to-left override and DEL.
const hostile = "\x1b]0;pwned\x07\x1b[2J\rfake\u009b31m\u202Eexe.txt\x7f"

// hostileRegistry serves answers of the right shape whose every text field
// is hostile. pactd refuses to store such labels, so this registry is not
// pactd: it plays one that is not well-behaved.
func hostileRegistry(t *testing.T) *httptest.Server {
	t.Helper()
	doc := "# Doc " + hostile + "\n\n```yaml pact:pack\nname: hello\nversion: 1.0.0\n```\n\tindented\n"
	sum := sha256.Sum256([]byte(doc))
	pkg := map[string]any{
		"id": 1, "owner_slug": "alice", "pack_slug": "hello", "name": "hello " + hostile, "description": "desc " + hostile,
		"scheme": "scheme" + hostile, "version": "1.0.0", "sha256": hex.EncodeToString(sum[:]), "url": "http://x/alice/hello" + hostile,
		"raw_url": "http://x/raw", "install_command": "curl " + hostile, "versions_url": "http://x/v",
		"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
	}
	write := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/packages", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]any{"ok": true, "packages": []any{pkg}, "next_cursor": "cursor" + hostile})
	})
	mux.HandleFunc("GET /api/packages/alice/hello", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]any{"ok": true, "package": pkg, "versions": []any{map[string]any{
			"version": "1.0.0", "name": "hello" + hostile, "description": hostile, "scheme": "", "sha256": pkg["sha256"],
			"size": len(doc), "created_at": "2026-01-01T00:00:00Z", "raw_url": "http://x/raw", "signature": nil,
		}}})
	})
	mux.HandleFunc("GET /api/packages/alice/traversal", func(w http.ResponseWriter, r *http.Request) {
		evil := map[string]any{}
		for k, v := range pkg {
			evil[k] = v
		}
		evil["pack_slug"] = "../../escaped"
		write(w, 200, map[string]any{"ok": true, "package": evil, "versions": []any{}})
	})
	mux.HandleFunc("GET /raw/alice/{file}", func(w http.ResponseWriter, r *http.Request) {
		if f := strings.TrimPrefix(r.PathValue("file"), "traversal"); f != "hello.pact.md" && f != "hello@1.0.0.pact.md" && f != "@1.0.0.pact.md" {
			write(w, 404, map[string]any{"ok": false, "error": "not found " + hostile})
			return
		}
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprint(w, doc)
	})
	mux.HandleFunc("GET /api/me", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]any{"ok": true, "user": map[string]any{"id": 1, "username": "alice" + hostile, "email": hostile + "@example.com", "created_at": "2026-01-01T00:00:00Z"}})
	})
	mux.HandleFunc("GET /api/ssh-keys", func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, map[string]any{"ok": true, "keys": []any{map[string]any{
			"id": 7, "name": "laptop" + hostile, "type": "ssh-ed25519" + hostile, "fingerprint": "SHA256:" + hostile,
			"public_key": "ssh-ed25519 AAAA", "created_at": "2026-01-01T00:00:00Z", "last_used_at": nil,
		}}})
	})
	// A publish of the pack named "warned" succeeds with a hostile warning.
	mux.HandleFunc("POST /api/publish", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Content string `json:"content"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || !strings.Contains(req.Content, "name: warned") {
			write(w, 400, map[string]any{"ok": false, "error": "refused " + hostile})
			return
		}
		write(w, 200, map[string]any{"ok": true, "package": pkg, "created": true, "warnings": []string{"slug " + hostile},
			"published": map[string]any{"version": "0.9" + hostile, "sha256": pkg["sha256"], "size": 1, "created_at": "2026-01-01T00:00:00Z", "log_index": 0}})
	})
	// Every other request, publishing included, is refused with a hostile message.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		write(w, 400, map[string]any{"ok": false, "error": "refused " + hostile})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// terminalUnsafe returns the first character of out that a terminal would
// act on rather than show, and whether there is one. Line feeds and tabs
// only move the cursor forward.
func terminalUnsafe(out string) (rune, bool) {
	for _, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if r == utf8.RuneError || text.UnsafeRune(r) {
			return r, true
		}
	}
	return 0, false
}

func TestCLIShowsAHostileRegistrysTextWithoutObeyingIt(t *testing.T) {
	srv := hostileRegistry(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("PACT_HOST", srv.URL)
	t.Setenv("PACT_TOKEN", "pact_0123456789")
	if err := os.WriteFile("doc.pact.md", []byte("```yaml pact:pack\nname: mine\nversion: 1.0.0\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("warned.pact.md", []byte("```yaml pact:pack\nname: warned\nversion: 1.0.0\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name     string
		args     []string
		tty      bool   // standard output is a terminal
		code     int    // exit code
		visible  string // an escape that must be shown, in stdout or stderr
		wantFile string // a file the command must write
	}{
		{"list", []string{"list"}, false, 0, `desc \x1b]0;pwned\x07\x1b[2J\rfake\u009b31m\u202eexe.txt\x7f`, ""},
		{"list --json", []string{"list", "--json"}, false, 0, `\u009b31m\u202eexe.txt\u007f`, ""},
		// This registry keeps no transparency log: pact get refuses what it
		// cannot verify, unless told not to verify.
		{"get verified", []string{"get", "alice/hello", "-o", "verified.md"}, false, 6, `alice/hello 1.0.0: the registry refuses GET /log/key: refused \x1b]0;pwned`, ""},
		{"get", []string{"get", "--no-verify", "alice/hello"}, false, 0, "Downloaded alice/hello 1.0.0 to hello.pact.md", "hello.pact.md"},
		{"get -o - on a terminal", []string{"get", "--no-verify", "alice/hello", "-o", "-"}, true, 0, "# Doc \\x1b]0;pwned", ""},
		{"get with an unknown version", []string{"get", "alice/hello@9"}, false, 4, `not found \x1b]0;pwned`, ""},
		{"get with a slug that leaves the directory", []string{"get", "--no-verify", "alice/traversal"}, false, 1, `"../../escaped", which is not a slug`, ""},
		{"whoami", []string{"whoami"}, false, 0, `alice\x1b]0;pwned`, ""},
		{"whoami --json", []string{"whoami", "--json"}, false, 0, `alice\u001b]0;pwned\u0007`, ""},
		{"keys list", []string{"keys", "list"}, false, 0, `laptop\x1b]0;pwned`, ""},
		{"publish warned", []string{"publish", "warned.pact.md"}, false, 0, `warned.pact.md: warning: slug \x1b]0;pwned\x07\x1b[2J\rfake\u009b31m\u202eexe.txt\x7f`, ""},
		{"publish names the version published", []string{"publish", "warned.pact.md"}, false, 0, `published alice/hello 0.9\x1b]0;pwned\x07\x1b[2J\rfake\u009b31m\u202eexe.txt\x7f (latest stays 1.0.0)`, ""},
		{"publish refused", []string{"publish", "doc.pact.md"}, false, 5, `error: doc.pact.md: refused \x1b]0;pwned\x07\x1b[2J\rfake\u009b31m\u202eexe.txt\x7f`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ios, stdout, stderr := iostreams.Test("")
			ios.StdoutTTY = tc.tty
			code := mainRun(tc.args, ios)
			out := stdout.String() + stderr.String()
			if code != tc.code {
				t.Errorf("exit code %d, want %d; output:\n%s", code, tc.code, out)
			}
			if r, bad := terminalUnsafe(out); bad {
				t.Errorf("the output holds %U raw:\n%q", r, out)
			}
			if !strings.Contains(out, tc.visible) {
				t.Errorf("the output does not show %q:\n%s", tc.visible, out)
			}
			if tc.wantFile != "" {
				if _, err := os.Stat(tc.wantFile); err != nil {
					t.Error(err)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "verified.md")); err == nil {
		t.Errorf("pact get wrote a document it could not verify")
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "..", "escaped.pact.md")); err == nil {
		t.Errorf("a registry's pack slug made pact write outside the directory")
	}
}
