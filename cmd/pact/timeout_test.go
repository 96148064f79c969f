//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

// shortDefaultTimeout makes the default bound d for one test, so that a
// test sees it end a command without waiting its real minute.
func shortDefaultTimeout(t *testing.T, d time.Duration) {
	t.Helper()
	old := cmdutil.DefaultTimeout
	cmdutil.DefaultTimeout = d
	t.Cleanup(func() { cmdutil.DefaultTimeout = old })
}

// silentServer accepts connections and never answers; it returns its
// host:port.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 64)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			held <- conn // never read, never answered
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for len(held) > 0 {
			(<-held).Close()
		}
	})
	return ln.Addr().String()
}

// With neither --timeout nor PACT_TIMEOUT, a registry that never answers
// no longer holds pact for its four attempts of 30 s: the default bound
// ends the command and says which bound it was and how to lift it.
func TestDefaultTimeoutEndsACommandAtASilentServer(t *testing.T) {
	shortDefaultTimeout(t, time.Second)
	addr := silentServer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PACT_TOKEN", "pact_x")
	t.Setenv("PACT_TIMEOUT", "")

	ios, stdout, stderr := iostreams.Test("")
	code := mainRun([]string{"--host", "http://" + addr, "whoami"}, ios)
	want := "error: gave up after 1s (the default --timeout; --timeout 0 for none): no answer from " + addr + "\n"
	if code != cmdutil.ExitError || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("exit %d, stderr %q, want exit 1 and %q", code, stderr.String(), want)
	}
}

// --timeout 0 (or PACT_TIMEOUT=0) lifts the default bound: a registry
// slower than it still answers.
func TestTimeoutZeroLiftsTheDefault(t *testing.T) {
	shortDefaultTimeout(t, time.Second)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Second)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true,"user":{"id":1,"username":"alice","email":"a@example.com","created_at":"2026-01-01T00:00:00Z"}}`)
	}))
	t.Cleanup(slow.Close)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PACT_TOKEN", "pact_x")

	for _, tc := range []struct {
		name, env string
		args      []string
		code      int
		stderr    string
	}{
		{"default", "", nil, cmdutil.ExitError, "gave up after 1s (the default --timeout; --timeout 0 for none)"},
		{"--timeout 0", "", []string{"--timeout", "0"}, cmdutil.ExitOK, ""},
		{"PACT_TIMEOUT=0", "0", nil, cmdutil.ExitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PACT_TIMEOUT", tc.env)
			ios, stdout, stderr := iostreams.Test("")
			code := mainRun(append(append([]string{"--host", slow.URL}, tc.args...), "whoami"), ios)
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), tc.code, tc.stderr)
			}
			if code == cmdutil.ExitOK && !strings.Contains(stdout.String(), "alice") {
				t.Errorf("stdout %q, want alice", stdout.String())
			}
		})
	}
}

// pact log watch has no default bound: --follow runs past it, until
// interrupted, and prints an event made after it.
func TestLogWatchFollowOutlivesTheDefaultTimeout(t *testing.T) {
	shortDefaultTimeout(t, time.Second)
	srv, _, c := startAlice(t)
	publish := func(version string) { publishWidget(t, c, version) }
	publish("1.0.0")
	watchFrom(t, srv.URL)
	t.Setenv("PACT_TIMEOUT", "")
	ios, _, stderr := iostreams.Test("")
	out := &lineWatcher{onLine: func(line string) {
		switch {
		case strings.HasSuffix(line, "alice published widget 1.0.0 (token)"):
			// Twice the default bound later.
			time.AfterFunc(2*time.Second, func() { publish("2.0.0") })
		case strings.HasSuffix(line, "alice published widget 2.0.0 (token)"):
			syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		}
	}}
	ios.Out = out
	code := mainRun([]string{"log", "watch", "--owner", "alice", "--follow", "--interval", "1s"}, ios)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if got := out.buf.String(); !strings.Contains(got, "published widget 2.0.0") {
		t.Errorf("stdout:\n%s\nwant the publish made after the default bound", got)
	}
}

// The time the user takes at a question is not the registry's: with a
// bound of 2 s, a yank confirmed on the terminal after 3 s goes ahead.
func TestTimeoutDoesNotCountTheUsersAnswer(t *testing.T) {
	srv, token, c := startAlice(t)
	doc := "```yaml pact:pack\nname: widget\nversion: 1.0.0\n```\n"
	if _, err := c.Publish(context.Background(), client.PublishRequest{Content: []byte(doc)}); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + t.TempDir(), "HOME=" + t.TempDir(),
		"PACT_HOST=" + srv.URL, "PACT_TOKEN=" + token, "PACT_TIMEOUT=2s"}
	pact := startOnTerminal(t, env, "yank", "widget@1.0.0")
	pact.waitFor(regexp.MustCompile(`\[y/N\] `))
	time.Sleep(3 * time.Second)
	if _, err := pact.ctrl.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	pact.waitFor(regexp.MustCompile(`Yanked alice/widget 1\.0\.0`))
	if code := pact.exitCode(); code != 0 {
		t.Fatalf("exit %d; the terminal showed:\n%s", code, pact.shown())
	}
}

// slowProxy serves target, each answer delay late: a registry on a slow
// network.
func slowProxy(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A publish of several documents has no default bound, since its work
// grows with them: on a registry slower to answer than the bound, one
// document is cut off, three all go up.
func TestPublishOfSeveralDocumentsOutlivesTheDefaultTimeout(t *testing.T) {
	shortDefaultTimeout(t, time.Second)
	srv, token, _ := startAlice(t)
	slow := slowProxy(t, srv.URL, 1200*time.Millisecond)
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("PACT_HOST", slow)
	t.Setenv("PACT_TOKEN", token)
	t.Setenv("PACT_TIMEOUT", "")
	var files []string
	for _, name := range []string{"solo", "one", "two", "three"} {
		file := filepath.Join(dir, name+".pact.md")
		doc := "```yaml pact:pack\nname: " + name + "\nversion: 1.0.0\n```\n"
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}

	// One document: the default bound applies. (The registry may still
	// publish it: the request was on its way.)
	ios, _, stderr := iostreams.Test("")
	if code := mainRun([]string{"publish", files[0]}, ios); code != cmdutil.ExitError || !strings.Contains(stderr.String(), "gave up after 1s (the default --timeout") {
		t.Fatalf("one document: exit %d, stderr %q; want the default bound to end it", code, stderr.String())
	}

	ios, stdout, stderr := iostreams.Test("")
	if code := mainRun(append([]string{"publish"}, files[1:]...), ios); code != cmdutil.ExitOK {
		t.Fatalf("three documents: exit %d, stderr:\n%s", code, stderr.String())
	}
	for _, name := range []string{"one", "two", "three"} {
		if !strings.Contains(stdout.String(), "published alice/"+name+" 1.0.0") {
			t.Errorf("stdout:\n%s\nwant alice/%s published", stdout.String(), name)
		}
	}
}
