package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/storetest"
)

var pactdBin string

func TestMain(m *testing.M) {
	// Built once for the whole go test run (cmd/pact's tests run the same
	// binary).
	var err error
	pactdBin, err = storetest.BuildProgram(pactdtest.Package, pactdtest.BuildFlags...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// storetest gives the tests a throwaway PostgreSQL when
	// PACT_TEST_POSTGRES_URL is not set. Four tests at once: most of their
	// time is spent waiting on pactd processes.
	os.Exit(storetest.WithPostgres(storetest.WithParallel(m, 4)).Run())
}

type result struct {
	stdout, stderr string
	code           int
}

// pactd runs the real binary with a clean PACTD_* environment plus env.
func pactd(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(pactdBin, args...)
	cmd.Env = append(pactdtest.CleanEnv(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// migrated makes the database db with pactd migrate, as an operator does
// before the first admin command (which never creates one).
func migrated(t *testing.T, db string) string {
	t.Helper()
	if r := pactd(t, nil, "", "migrate", "--db", db); r.code != 0 {
		t.Fatalf("pactd migrate --db %s: exit %d, stderr %q", db, r.code, r.stderr)
	}
	return db
}

func TestVersion(t *testing.T) {
	r := pactd(t, nil, "", "version")
	if r.code != 0 || !regexp.MustCompile(`^pactd \S+ \(commit \S+, built \S+\)\n$`).MatchString(r.stdout) {
		t.Errorf("pactd version: code %d, stdout %q", r.code, r.stdout)
	}
}

func TestUserAndTokenCreate(t *testing.T) {
	db := migrated(t, filepath.Join(t.TempDir(), "pact.db"))
	cases := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string // regexp
		stderr string // substring
	}{
		{"password must come on stdin", "", []string{"user", "create", "--db", db, "--email", "a@example.com", "--username", "alice"}, 2, `^$`, "--password-stdin"},
		{"unknown flag", "", []string{"user", "create", "--db", db, "--bogus"}, 2, `^$`, "unknown flag"},
		{"empty stdin", "", []string{"user", "create", "--db", db, "--email", "a@example.com", "--username", "alice", "--password-stdin"}, 1, `^$`, "empty"},
		{"short password", "short\n", []string{"user", "create", "--db", db, "--email", "a@example.com", "--username", "alice", "--password-stdin"}, 1, `^$`, "at least 8"},
		{"bad username", "long enough\n", []string{"user", "create", "--db", db, "--email", "a@example.com", "--username", "-alice", "--password-stdin"}, 1, `^$`, "not valid"},
		{"reserved username", "long enough\n", []string{"user", "create", "--db", db, "--email", "a@example.com", "--username", "api", "--password-stdin"}, 1, `^$`, "reserved"},
		{"bad email", "long enough\n", []string{"user", "create", "--db", db, "--email", "nope", "--username", "alice", "--password-stdin"}, 1, `^$`, "email"},
		{"created", "long enough\n", []string{"user", "create", "--db", db, "--email", "a@example.com", "--username", "Alice", "--password-stdin"}, 0, `^created user alice \(id \d+\)\n$`, ""},
		{"username taken, case-insensitively", "long enough\n", []string{"user", "create", "--db", db, "--email", "b@example.com", "--username", "ALICE", "--password-stdin"}, 1, `^$`, "taken"},
		{"token for unknown user", "", []string{"token", "create", "--db", db, "--user", "bob"}, 1, `^$`, "bob"},
		{"token needs --user", "", []string{"token", "create", "--db", db}, 2, `^$`, "user"},
		{"token printed alone", "", []string{"token", "create", "--db", db, "--user", "alice", "--name", "ci"}, 0, `^pact_[0-9A-Za-z]{43}\n$`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := pactd(t, nil, tc.stdin, tc.args...)
			if r.code != tc.code || !regexp.MustCompile(tc.stdout).MatchString(r.stdout) || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("code %d (want %d)\nstdout %q (want /%s/)\nstderr %q (want it to hold %q)", r.code, tc.code, r.stdout, tc.stdout, r.stderr, tc.stderr)
			}
		})
	}
}

// serveBaseURL starts pactd serve and returns the base URL it announces.
func serveBaseURL(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(pactdBin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "p.db")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	line := make([]byte, 512)
	n, _ := out.Read(line)
	m := regexp.MustCompile(`listening on \S+ \((\S+)\)`).FindSubmatch(line[:n])
	if m == nil {
		t.Fatalf("pactd serve announced %q", line[:n])
	}
	return string(m[1])
}

func TestServeConfigPrecedence(t *testing.T) {
	config := filepath.Join(t.TempDir(), "pactd.yaml")
	if err := os.WriteFile(config, []byte("base-url: https://file.example\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"default is derived from the address", nil, nil, "http://localhost:"},
		{"config file", nil, []string{"--config", config}, "https://file.example"},
		{"environment beats config file", []string{"PACTD_BASE_URL=https://env.example", "PACTD_CONFIG=" + config}, nil, "https://env.example"},
		{"flag beats environment", []string{"PACTD_BASE_URL=https://env.example"}, []string{"--base-url", "https://flag.example/"}, "https://flag.example"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := serveBaseURL(t, tc.env, tc.args...); !strings.HasPrefix(got, tc.want) {
				t.Errorf("base URL = %q, want %q", got, tc.want)
			}
		})
	}
	for _, bad := range [][]string{{"--base-url", "ftp://x"}, {"--signup", "maybe"}, {"--max-body", "0"},
		{"--body-budget", "-1"}, {"--body-budget-wait", "-1s"}} {
		r := pactd(t, nil, "", append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "p.db")}, bad...)...)
		if r.code != 2 {
			t.Errorf("serve %v: exit code %d, want 2 (usage); stderr %q", bad, r.code, r.stderr)
		}
	}
}

// A publish whose body is still arriving when SIGTERM comes is finished and
// answered before pactd exits; new connections are refused meanwhile.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	srv, token := startWithToken(t, "alice", filepath.Join(t.TempDir(), "pact.db"))
	body, _ := json.Marshal(map[string]string{"content": "# Drain\n\n```yaml pact:pack\nname: drain\nversion: 1.0.0\n```\n"})
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/publish", pr)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("in-flight publish failed: %v", err)
			answered <- nil
			return
		}
		answered <- resp
	}()
	pw.Write(body[:10])
	// The publish's connection was dialled before its body was read from
	// the pipe, and pactd accepts connections in the order they came: once
	// a later one is answered, the publish's is pactd's.
	if resp, err := http.Get(srv.URL + "/healthz"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if err := srv.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Shutdown closes the listener while the publish is still waiting
	// for its body.
	refused := eventually(10*time.Second, func() bool {
		resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get(srv.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	if !refused {
		t.Errorf("new connections were still accepted 10 s after SIGTERM")
	}
	pw.Write(body[10:])
	pw.Close()
	resp := <-answered
	if resp == nil {
		return
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Errorf("in-flight publish: status %d: %s", resp.StatusCode, b)
	}
	resp.Body.Close()
	if err := srv.Wait(10 * time.Second); err != nil {
		t.Errorf("pactd after SIGTERM: %v\n%s", err, srv.Logs())
	}
}
