package pactdtest

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// StartWith runs "pactd serve --addr 127.0.0.1:0 --db DB ARGS..." and waits
// until it listens. db is a SQLite path or a postgres:// URL, so several
// Servers can run as replicas of one PostgreSQL database; the admin helpers
// (CreateUser, CreateToken) use the same db. URL is the address pactd
// listens on, even when args set another --base-url for the links it
// writes.
func StartWith(bin, db string, args ...string) (*Server, error) {
	s := &Server{DB: db, Bin: bin, logs: &syncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, args...)...)
	s.cmd.Env = cleanEnv()
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

	// pactd announces "pactd VERSION listening on ADDR (BASE_URL)" on stdout.
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		announced := false
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(s.logs, line)
			if _, rest, ok := strings.Cut(line, " listening on "); ok && !announced {
				announced = true
				addr, _, _ := strings.Cut(rest, " ")
				found <- "http://" + addr
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case u := <-found:
		s.URL = u
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("pactd serve exited before listening:\n%s", s.logs.String())
	case <-time.After(30 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("pactd serve did not listen within 30s:\n%s", s.logs.String())
	}
}
