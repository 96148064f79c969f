//go:build linux

package main

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/ptytest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/client"
)

// terminalSession is pact running on a pseudo-terminal, as a person at a
// terminal runs it: what the terminal shows is read as it comes.
type terminalSession struct {
	t    *testing.T
	ctrl *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	seen strings.Builder
	more chan struct{} // a value after each read
	done chan struct{} // closed when the terminal is closed
}

// startOnTerminal runs pact with args on a new terminal, with the
// environment of the test minus PACT_* and plus env, without colours.
func startOnTerminal(t *testing.T, env []string, args ...string) *terminalSession {
	t.Helper()
	bin, err := buildPact()
	if err != nil {
		t.Fatal(err)
	}
	ctrl, tty, err := ptytest.Open(100)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	cmd := exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PACT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append(env, "NO_COLOR=1")...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // pact holds the terminal now
	s := &terminalSession{t: t, ctrl: ctrl, cmd: cmd, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		r := bufio.NewReader(ctrl)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			s.mu.Lock()
			s.seen.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
			if err != nil { // EIO once pact has closed the terminal
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		ctrl.Close()
	})
	return s
}

// shown is what the terminal showed so far, with "\n" line ends.
func (s *terminalSession) shown() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.ReplaceAll(s.seen.String(), "\r\n", "\n")
}

// waitFor waits until the terminal shows a match of re, and answers it.
func (s *terminalSession) waitFor(re *regexp.Regexp) []string {
	s.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		if m := re.FindStringSubmatch(s.shown()); m != nil {
			return m
		}
		select {
		case <-s.more:
		case <-s.done:
			if m := re.FindStringSubmatch(s.shown()); m != nil {
				return m
			}
			s.t.Fatalf("pact ended without showing %s; the terminal showed:\n%s", re, s.shown())
		case <-timeout:
			s.t.Fatalf("pact did not show %s within 60 s; the terminal showed:\n%s", re, s.shown())
		}
	}
}

// exitCode waits for pact to end and answers its exit code.
func (s *terminalSession) exitCode() int {
	s.t.Helper()
	<-s.done
	err := s.cmd.Wait()
	if exitErr, ok := err.(*exec.ExitError); ok {
		return exitErr.ExitCode()
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return 0
}

var codeShown = regexp.MustCompile(`the code ([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})`)

// pact login on a terminal, with no token, logs in through the browser:
// it shows the code and the page, the user approves there with the
// scopes they choose, and pact stores the token it receives for that
// registry. Ctrl-C gives up and stores nothing.
func TestLoginOnATerminalThroughTheBrowser(t *testing.T) {
	t.Parallel()
	srv, err := pactdtest.Start(buildPactd(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	const password = "correct horse battery staple"
	if err := srv.CreateUser("alice", "alice@example.com", password); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + xdg, "HOME=" + t.TempDir()}

	t.Run("approved", func(t *testing.T) {
		// A bound shorter than the poll's interval (5 s): the wait for the
		// approval is the user's time, which --timeout does not count.
		pact := startOnTerminal(t, append(env, "PACT_TIMEOUT=2s"), "--host", srv.URL, "login")
		code := pact.waitFor(codeShown)[1]
		if page := srv.URL + "/login/device?code=" + code; !strings.Contains(pact.shown(), page) {
			t.Errorf("the terminal does not show the page %s:\n%s", page, pact.shown())
		}

		browser := servertest.NewWebClient(t, srv.URL)
		servertest.WantRedirect(t, browser.Post("/login", url.Values{"login": {"alice"}, "password": {password}}), "/dashboard")
		browser.ApproveDevice(code, url.Values{"name": {"laptop"}, "scope": {"publish"}, "expires_in_days": {"7"}})

		pact.waitFor(regexp.MustCompile(`✓ Logged in to ` + regexp.QuoteMeta(srv.URL) + ` as alice\n`))
		if code := pact.exitCode(); code != 0 {
			t.Fatalf("exit %d; the terminal showed:\n%s", code, pact.shown())
		}
		file, err := cmdutil.ReadConfigFile(filepath.Join(xdg, "pact", "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		token := file.Tokens()[srv.URL]
		if file.Host != srv.URL || !strings.HasPrefix(token, "pact_") {
			t.Fatalf("config file: host %q, tokens %v; want the token stored for %s", file.Host, file.Tokens(), srv.URL)
		}
		if strings.Contains(pact.shown(), token) {
			t.Error("the terminal shows the token")
		}
		c, err := client.New(srv.URL, client.WithToken(token))
		if err != nil {
			t.Fatal(err)
		}
		user, tok, err := c.MeAndToken(context.Background())
		if err != nil || user.Username != "alice" || tok == nil || tok.Name != "laptop" ||
			tok.Scopes == nil || strings.Join(*tok.Scopes, " ") != "publish" || tok.ExpiresAt == nil {
			t.Fatalf("the stored token: %v, %+v, %v; want alice's laptop token with the publish scope, expiring", user, tok, err)
		}
	})

	// --scope asks for scopes: the approval page ticks them, and only
	// them; approved as offered, the token holds them.
	t.Run("asks for scopes", func(t *testing.T) {
		xdg := t.TempDir()
		pact := startOnTerminal(t, []string{"XDG_CONFIG_HOME=" + xdg, "HOME=" + t.TempDir()},
			"--host", srv.URL, "login", "--scope", "yank", "--scope", "publish")
		code := pact.waitFor(codeShown)[1]
		browser := servertest.NewWebClient(t, srv.URL)
		servertest.WantRedirect(t, browser.Post("/login", url.Values{"login": {"alice"}, "password": {password}}), "/dashboard")
		page := browser.Post("/login/device", url.Values{"code": {code}})
		var ticked []string
		for _, m := range regexp.MustCompile(`name="scope" value="([a-z]+)" checked`).FindAllStringSubmatch(page.Body, -1) {
			ticked = append(ticked, m[1])
		}
		if strings.Join(ticked, " ") != "publish yank" {
			t.Errorf("pact login --scope yank --scope publish: the page ticks %v", ticked)
		}
		browser.ApproveDevice(code, url.Values{"scope": ticked})
		pact.waitFor(regexp.MustCompile(`✓ Logged in to ` + regexp.QuoteMeta(srv.URL) + ` as alice\n`))
		if code := pact.exitCode(); code != 0 {
			t.Fatalf("exit %d; the terminal showed:\n%s", code, pact.shown())
		}
		file, err := cmdutil.ReadConfigFile(filepath.Join(xdg, "pact", "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.New(srv.URL, client.WithToken(file.Tokens()[srv.URL]))
		if err != nil {
			t.Fatal(err)
		}
		if _, tok, err := c.MeAndToken(context.Background()); err != nil || tok == nil || tok.Scopes == nil ||
			strings.Join(*tok.Scopes, " ") != "publish yank" {
			t.Fatalf("the stored token: %+v, %v; want the scopes publish and yank", tok, err)
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		xdg := t.TempDir()
		pact := startOnTerminal(t, []string{"XDG_CONFIG_HOME=" + xdg, "HOME=" + t.TempDir()}, "--host", srv.URL, "login")
		pact.waitFor(regexp.MustCompile(`Waiting for the approval`))
		if _, err := pact.ctrl.Write([]byte{3}); err != nil { // Ctrl-C: the terminal sends SIGINT
			t.Fatal(err)
		}
		if code := pact.exitCode(); code != 1 || !strings.Contains(pact.shown(), "error: interrupted") {
			t.Fatalf("exit %d; the terminal showed:\n%s\nwant exit 1, interrupted", code, pact.shown())
		}
		if _, err := os.Stat(filepath.Join(xdg, "pact", "config.yaml")); !os.IsNotExist(err) {
			t.Errorf("an interrupted login wrote the config file: %v", err)
		}
	})
}
