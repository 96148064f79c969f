package pactdtest

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// StartDB runs "pactd serve" on a free loopback port with the database db
// (a SQLite path, a file: URI with parameters, or a postgres:// URL) and
// extra flags such as "--read-timeout", "2s", and waits until it listens.
// Starting it again on the same db is a restart of the same registry.
func StartDB(bin, db string, flags ...string) (*Server, error) {
	s := &Server{DB: db, Bin: bin, logs: &syncBuffer{}, done: make(chan struct{})}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, flags...)
	s.cmd = exec.Command(bin, args...)
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
