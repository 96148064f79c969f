package main

import (
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/ptytest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/client"
)

// TestMain gives the scripts "ptyrun" (the test binary, run as that name)
// beside the pact and pactd that buildPact and buildPactd build. The tests
// run through storetest, which gives them a throwaway PostgreSQL when
// PACT_TEST_POSTGRES_URL is not set. Four tests (scripts) at once: most of
// their time is spent waiting on processes.
func TestMain(m *testing.M) {
	testscript.Main(storetest.WithPostgres(storetest.WithParallel(m, 4)), map[string]func(){
		"ptyrun": func() { os.Exit(ptytest.Main()) },
	})
}

var (
	pactdOnce sync.Once
	pactdBin  string
	pactdErr  error

	pactOnce sync.Once
	pactBin  string
	pactErr  error
)

// pactBuildFlags build pact as a release does (its tags), without the
// version control stamp, so "pact version" prints the defaults of a build
// without -ldflags (version.txtar).
var pactBuildFlags = []string{"-tags", "nomsgpack,sqlite_fts5", "-buildvcs=false"}

// buildPact compiles the real pact command once for the whole go test run,
// for the scripts and the terminal tests to run as users do: a binary built
// with the release's tags, not this race-enabled test binary (under the race
// detector each command cost about a second of CPU).
func buildPact() (string, error) {
	pactOnce.Do(func() {
		pactBin, pactErr = storetest.BuildProgram("github.com/pact-registry/pact/cmd/pact", pactBuildFlags...)
	})
	return pactBin, pactErr
}

// buildPactd compiles the real daemon once for all scripts (once for the
// whole go test run: cmd/pactd's tests run the same binary).
func buildPactd(t *testing.T) string {
	t.Helper()
	pactdOnce.Do(func() {
		pactdBin, pactdErr = storetest.BuildProgram(pactdtest.Package, pactdtest.BuildFlags...)
	})
	if pactdErr != nil {
		t.Fatal(pactdErr)
	}
	return pactdBin
}

// startAlice runs a pactd of its own for t, stopped when t ends, with an
// account alice, and answers it with alice's token and a client holding it.
func startAlice(t *testing.T) (*pactdtest.Server, string, *client.Client) {
	t.Helper()
	srv, err := pactdtest.Start(buildPactd(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	token, err := srv.CreateUserWithToken("alice")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(srv.URL, client.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	return srv, token, c
}

// TestScripts runs testdata/script/*.txtar: each script gets its own pactd
// on a free port with a fresh SQLite database, an account "alice" whose
// token is $TOKEN (also in $WORK/token.txt), an empty ssh-agent at $SSH_AUTH_SOCK, and these
// variables: $SERVER_URL (the server; http://127.0.0.1:$SERVER_PORT is
// the same server at another address), $PACTD_DB (read by pactd's admin
// commands, e.g. "exec pactd user create ..."), $HOME and $XDG_CONFIG_HOME
// inside $WORK. pact has no PACT_HOST or PACT_TOKEN unless a script sets them.
func TestScripts(t *testing.T) {
	t.Parallel()
	bin := buildPactd(t)
	sshtest.Require(t, "ssh-agent", "ssh-add", "ssh-keygen", "curl")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			return setupScript(env, bin)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"json":        cmdJSON,
			"jsonenv":     cmdJSONEnv,
			"exitcode":    cmdExitCode,
			"perm":        cmdPerm,
			"filetype":    cmdFileType,
			"hangserver":  cmdHangServer,
			"busyserver":  cmdBusyServer,
			"plainserver": cmdPlainServer,
			"webserver":   cmdWebServer,
			"redirect":    cmdRedirect,
			"catchserver": cmdCatchServer,
			"downloads":   cmdDownloads,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

func setupScript(env *testscript.Env, pactd string) error {
	// Downloads are flushed often, so a script sees them (cmdDownloads).
	srv, err := pactdtest.Start(pactd, env.WorkDir, "--downloads-flush-interval", "50ms")
	if err != nil {
		return err
	}
	env.Defer(func() {
		if err := srv.Stop(); err != nil {
			env.T().Log(err)
		}
	})
	return setupScriptOn(env, srv)
}

// setupScriptOn gives a script the account, agent and variables of
// TestScripts around a running pactd.
func setupScriptOn(env *testscript.Env, srv *pactdtest.Server) error {
	pactd := srv.Bin
	token, err := srv.CreateUserWithToken("alice")
	if err != nil {
		return err
	}
	// For "stdin $WORK/token.txt": archive files cannot hold the token.
	if err := os.WriteFile(filepath.Join(env.WorkDir, "token.txt"), []byte(token+"\n"), 0o600); err != nil {
		return err
	}
	sock, err := startAgent(env)
	if err != nil {
		return err
	}
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	pact, err := buildPact()
	if err != nil {
		return err
	}
	env.Setenv("PATH", filepath.Dir(pact)+string(os.PathListSeparator)+filepath.Dir(pactd)+string(os.PathListSeparator)+env.Getenv("PATH"))
	env.Setenv("SERVER_URL", srv.URL)
	env.Setenv("SERVER_HOSTPORT", strings.TrimPrefix(srv.URL, "http://"))
	if u, err := url.Parse(srv.URL); err == nil {
		// The same server at another address: http://127.0.0.1:$SERVER_PORT.
		env.Setenv("SERVER_PORT", u.Port())
	}
	env.Setenv("PACTD_DB", srv.DB)
	env.Setenv("TOKEN", token)
	env.Setenv("HOME", home)
	env.Setenv("XDG_CONFIG_HOME", filepath.Join(env.WorkDir, "xdg"))
	env.Setenv("SSH_AUTH_SOCK", sock)
	return nil
}

// startAgent runs a private ssh-agent for one script.
func startAgent(env *testscript.Env) (string, error) {
	// $WORK can be too long for a Unix socket path.
	dir, err := os.MkdirTemp("", "pact-agent-")
	if err != nil {
		return "", err
	}
	sock := filepath.Join(dir, "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	env.Defer(func() {
		cmd.Process.Kill()
		<-exited
		os.RemoveAll(dir)
	})
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			return sock, nil
		}
		select {
		case <-exited:
			return "", errors.New("ssh-agent exited before listening")
		case <-time.After(20 * time.Millisecond):
		}
	}
	return "", errors.New("ssh-agent did not listen within 10s")
}

// cmdHangServer starts a TCP listener that accepts connections and never
// answers, and sets VAR to its http:// address:
//
//	hangserver HANG
func cmdHangServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hangserver VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn) // held open, unread, unanswered
			mu.Unlock()
		}
	}()
	ts.Defer(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	ts.Setenv(args[0], "http://"+ln.Addr().String())
}

// cmdBusyServer starts an HTTP server that answers every request 429 with
// Retry-After: SECONDS, and sets VAR to its address:
//
//	busyserver BUSY 1
func cmdBusyServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: busyserver VAR SECONDS")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", args[1])
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"ok":false,"error":"too many requests; slow down"}`)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// cmdPlainServer starts a plain HTTP listener that is no registry: it
// answers every request 401 as a registry does without a token, and
// appends a line per request to LOGFILE saying whether it carried
// credentials, so a script can show which requests sent a token where:
//
//	plainserver PLAIN $WORK/plain.log
//	grep '^GET /api/me credentials=none$' $WORK/plain.log
func cmdPlainServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: plainserver VAR LOGFILE")
	}
	recordingServer(ts, args[0], args[1], false, func(w http.ResponseWriter) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="pact"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"ok":false,"error":"missing API token: send Authorization: Bearer <token> or X-Pact-Token: <token>"}`)
	})
}

// recordingServer starts a plain HTTP server, sets VAR to its address, and
// appends a line per request to logFile: the method, the path, whether it
// carried credentials and, withBody, its body's length; then answer answers.
func recordingServer(ts *testscript.TestScript, name, logFile string, withBody bool, answer func(http.ResponseWriter)) {
	logFile = ts.MkAbs(logFile)
	ts.Check(os.WriteFile(logFile, nil, 0o600))
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		line := r.Method + " " + r.URL.Path + " credentials=none"
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Pact-Token") != "" {
			line = r.Method + " " + r.URL.Path + " credentials=sent"
		}
		if withBody {
			body, _ := io.ReadAll(r.Body)
			line += fmt.Sprintf(" body=%d", len(body))
		}
		mu.Lock()
		f, err := os.OpenFile(logFile, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
		mu.Unlock()
		answer(w)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(name, srv.URL)
}

// cmdWebServer starts a plain HTTP server that is no registry, a web site
// answering every request with an HTML page and STATUS, and sets VAR to its
// address:
//
//	webserver WEB 404
func cmdWebServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: webserver VAR STATUS")
	}
	status, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("webserver: %q is not a status", args[1])
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, "<!doctype html>\n<title>Example</title>\n<p>Nothing for "+html.EscapeString(r.URL.Path)+" here.</p>\n")
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// cmdRedirect starts an HTTP server that answers every request with
// STATUS and a Location of TARGET plus the request's path, and sets VAR to
// its address; with -tls it serves HTTPS and writes the certificate that
// signs it to CERTFILE, for SSL_CERT_FILE:
//
//	redirect MOVED 307 $CATCH
//	redirect -tls SECURE 308 $CATCH $WORK/ca.pem
func cmdRedirect(ts *testscript.TestScript, neg bool, args []string) {
	tls := len(args) > 0 && args[0] == "-tls"
	if tls {
		args = args[1:]
	}
	if neg || len(args) != 3+map[bool]int{true: 1}[tls] {
		ts.Fatalf("usage: redirect [-tls] VAR STATUS TARGET [CERTFILE]")
	}
	status, err := strconv.Atoi(args[1])
	if err != nil || status < 300 || status > 399 {
		ts.Fatalf("redirect: %q is not a redirect status", args[1])
	}
	target := args[2]
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.Path, status)
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(handler)
		cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		ts.Check(os.WriteFile(ts.MkAbs(args[3]), cert, 0o644))
	} else {
		srv = httptest.NewServer(handler)
	}
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// cmdCatchServer starts a plain HTTP server on its own port that answers
// every request as a registry would (200 and a JSON body) and appends a
// line per request to LOGFILE, saying whether it carried credentials and
// how long its body was, so a script can show that nothing reached it:
//
//	catchserver CATCH $WORK/catch.log
//	! grep . $WORK/catch.log
func cmdCatchServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: catchserver VAR LOGFILE")
	}
	recordingServer(ts, args[0], args[1], true, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
}

// cmdExitCode runs a program and checks its exit status:
//
//	exitcode 4 pact get alice/missing
//
// Its stdout and stderr are kept for the stdout and stderr commands.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode CODE program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		got = exitErr.ExitCode()
	case err != nil:
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// cmdJSON checks a value in a JSON document:
//
//	json stdout package.version 1.0.0   # the value, compared as text
//	json stdout user.id                 # present and not null
//	! json stdout next_cursor           # absent or null
//	json -len stdout packages 3         # the length of an array or object
//	json -len stdout . 2                # "." is the whole document
//
// FILE is stdout, stderr or a file; PATH is dot-separated keys and indices.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	length := len(args) > 0 && args[0] == "-len"
	if length {
		args = args[1:]
	}
	if len(args) != 3 && (length || len(args) != 2) {
		ts.Fatalf("usage: json [-len] FILE PATH [VALUE]")
	}
	value, found := jsonLookup(ts, args[0], args[1])
	if len(args) == 2 {
		present := found && value != nil
		if present == neg {
			ts.Fatalf("json %s: present = %v, want %v", args[1], present, !neg)
		}
		return
	}
	got := jsonText(value)
	switch {
	case !found:
		got = "<absent>"
	case length:
		switch v := value.(type) {
		case []any:
			got = strconv.Itoa(len(v))
		case map[string]any:
			got = strconv.Itoa(len(v))
		default:
			ts.Fatalf("json -len %s: not an array or object: %s", args[1], got)
		}
	}
	if (got == args[2]) == neg {
		if neg {
			ts.Fatalf("json %s = %q, want anything else", args[1], got)
		}
		ts.Fatalf("json %s = %q, want %q", args[1], got, args[2])
	}
}

// cmdJSONEnv sets an environment variable to a value of a JSON document:
//
//	jsonenv stdout 0.package.install_command INSTALL
func cmdJSONEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: jsonenv FILE PATH VAR")
	}
	value, found := jsonLookup(ts, args[0], args[1])
	if !found {
		ts.Fatalf("jsonenv: %s is absent", args[1])
	}
	ts.Setenv(args[2], jsonText(value))
}

func jsonLookup(ts *testscript.TestScript, file, path string) (any, bool) {
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(file)), &doc); err != nil {
		ts.Fatalf("%s is not JSON: %v", file, err)
	}
	if path == "." {
		return doc, true
	}
	cur := doc
	for _, key := range strings.Split(path, ".") {
		switch node := cur.(type) {
		case map[string]any:
			v, ok := node[key]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// jsonText prints strings bare and everything else as JSON.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// cmdPerm checks a file's permission bits: perm FILE 0600.
// cmdFileType checks what kind of file a path names, without following a
// symbolic link:
//
//	filetype /dev/null chardev
//
// Kinds: regular, dir, symlink, fifo, chardev, device, socket.
func cmdFileType(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: filetype FILE KIND")
	}
	info, err := os.Lstat(ts.MkAbs(args[0]))
	ts.Check(err)
	mode := info.Mode()
	got := "regular"
	switch {
	case mode&fs.ModeSymlink != 0:
		got = "symlink"
	case mode.IsDir():
		got = "dir"
	case mode&fs.ModeNamedPipe != 0:
		got = "fifo"
	case mode&fs.ModeCharDevice != 0:
		got = "chardev"
	case mode&fs.ModeDevice != 0:
		got = "device"
	case mode&fs.ModeSocket != 0:
		got = "socket"
	case !mode.IsRegular():
		got = mode.Type().String()
	}
	if (got == args[1]) == neg {
		ts.Fatalf("%s is a %s file, want %s%s", args[0], got, map[bool]string{true: "anything but ", false: ""}[neg], args[1])
	}
}

func cmdPerm(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: perm FILE MODE")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	if err != nil {
		ts.Fatalf("perm: %q is not an octal mode", args[1])
	}
	info, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	got := info.Mode().Perm()
	if (got == fs.FileMode(want)) == neg {
		ts.Fatalf("%s has mode %#o, want %s%#o", args[0], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// cmdDownloads waits until $SERVER_URL's count of OWNER/PACK's downloads
// reaches N: the server adds its counts every 50 ms in scripts.
//
//	downloads alice/widget 3
func cmdDownloads(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: downloads OWNER/PACK N")
	}
	url := ts.Getenv("SERVER_URL") + "/api/packages/" + args[0] + "/downloads"
	var last string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(url)
		ts.Check(err)
		var d struct {
			Total json.Number `json:"total"`
		}
		err = json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		ts.Check(err)
		if last = d.Total.String(); last == args[1] {
			return
		}
	}
	ts.Fatalf("%s has %s downloads after 10s, want %s", args[0], last, args[1])
}
