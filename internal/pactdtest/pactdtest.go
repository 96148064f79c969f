// Package pactdtest names the real pactd daemon and runs it on a temporary
// SQLite database for the tests of pkg/client and cmd/pact, which talk to
// it over HTTP as users do. It depends on no testing package so testscript
// set-up code can use it too.
package pactdtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pact-registry/pact/internal/syncbuf"
)

// Package and BuildFlags are the daemon the tests run: cmd/pactd with the
// tags of releases, so tests run the same binary. storetest.BuildProgram
// builds it once per go test run; it must run inside the pact module (a
// test's working directory is).
const Package = "github.com/pact-registry/pact/cmd/pactd"

var BuildFlags = []string{"-tags", "nomsgpack,sqlite_fts5"}

// Server is a running pactd.
type Server struct {
	URL string // base URL, no trailing slash
	DB  string // the SQLite file
	Bin string

	cmd  *exec.Cmd
	logs *syncbuf.Buffer
	done chan struct{}
}

// Start runs "pactd serve" on a free loopback port with a new SQLite
// database in dir, and waits until it listens. extraArgs go to serve, e.g.
// "--rate-token", "1".
func Start(bin, dir string, extraArgs ...string) (*Server, error) {
	return StartAt(bin, dir, "127.0.0.1:0", extraArgs...)
}

// StartAt is Start on a given address.
func StartAt(bin, dir, addr string, extraArgs ...string) (*Server, error) {
	return start(bin, filepath.Join(dir, "pact.db"), addr, extraArgs)
}

// StartDB runs "pactd serve" on a free loopback port with the database db
// (a SQLite path, a file: URI with parameters, or a postgres:// URL) and
// extra flags such as "--read-timeout", "2s", and waits until it listens.
// Starting it again on the same db is a restart of the same registry.
func StartDB(bin, db string, flags ...string) (*Server, error) {
	return start(bin, db, "127.0.0.1:0", flags)
}

// StartDBAt is StartDB on a given address ("127.0.0.1:43210"), so a restart
// keeps the URL clients know.
func StartDBAt(bin, db, addr string, flags ...string) (*Server, error) {
	return start(bin, db, addr, flags)
}

// Addr is the host:port the server listens on.
func (s *Server) Addr() string {
	return strings.TrimPrefix(strings.TrimPrefix(s.URL, "http://"), "https://")
}

func start(bin, db, addr string, flags []string) (*Server, error) {
	s := &Server{DB: db, Bin: bin, logs: &syncbuf.Buffer{}, done: make(chan struct{})}
	args := append([]string{"serve", "--addr", addr, "--db", db}, flags...)
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = CleanEnv()
	s.cmd.Stderr = s.logs
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.cmd.Wait()
		close(s.done)
	}()
	found := make(chan string, 1)
	go announcedURL(stdout, s.logs, found)
	select {
	case u := <-found:
		s.URL = strings.TrimRight(u, "/")
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("pactd serve exited before listening:\n%s", s.logs.String())
	case <-time.After(30 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("pactd serve did not listen within 30s:\n%s", s.logs.String())
	}
}

// announcedURL copies pactd's stdout into logs and sends the base URL of
// its "pactd VERSION listening on ADDR (BASE_URL)" line to found.
func announcedURL(stdout io.Reader, logs io.Writer, found chan<- string) {
	sc := bufio.NewScanner(stdout)
	announced := false
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(logs, line)
		if !announced && strings.Contains(line, " listening on ") {
			announced = true
			open, close := strings.LastIndex(line, "("), strings.LastIndex(line, ")")
			if open >= 0 && close > open {
				found <- line[open+1 : close]
			}
		}
	}
	io.Copy(io.Discard, stdout)
}

// Stop asks pactd to drain and stop (SIGTERM), killing it after 10s.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return errors.New("pactd did not stop within 10s of SIGTERM")
	}
}

// Logs returns what pactd printed so far, for failure messages.
func (s *Server) Logs() string { return s.logs.String() }

// CreateUser makes an account with "pactd user create".
func (s *Server) CreateUser(username, email, password string) error {
	_, err := s.admin(password+"\n", "user", "create", "--db", s.DB, "--email", email, "--username", username, "--password-stdin")
	return err
}

// CreateToken makes an API token for username with "pactd token create".
func (s *Server) CreateToken(username string) (string, error) {
	out, err := s.admin("", "token", "create", "--db", s.DB, "--user", username, "--name", "test")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// CreateUserWithToken makes an account named username (email
// username@example.com) and returns a new token of it.
func (s *Server) CreateUserWithToken(username string) (string, error) {
	if err := s.CreateUser(username, username+"@example.com", "correct horse battery staple"); err != nil {
		return "", err
	}
	return s.CreateToken(username)
}

func (s *Server) admin(stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Env = CleanEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("pactd %s: %v: %s", strings.Join(args[:2], " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// CleanEnv is the environment without PACTD_* variables, so settings in
// the caller's shell cannot change the daemon under test or measurement.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PACTD_") {
			env = append(env, kv)
		}
	}
	return env
}
