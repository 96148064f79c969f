package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The bare Go server: net/http serving the raw documents from memory, with
// nothing else (no router, log, metrics, request ids, deadlines). It is
// the ceiling for a Go server on this machine, run as a process of its own
// (the bench binary started again with bareEnv set) like nginx and pactd.

const bareEnv = "PACT_BENCH_BARE_GO"

// serveBare is the child process: it loads every file under dir into
// memory, listens on a free loopback port, prints it and serves until
// SIGTERM.
func serveBare(dir string) error {
	docs := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		docs["/"+filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		return err
	}
	lengths := map[string][]string{}
	for p, b := range docs {
		lengths[p] = []string{strconv.Itoa(len(b))}
	}
	contentType := []string{"text/markdown; charset=utf-8"}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("LISTEN %s\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h["Content-Type"] = contentType
		h["Content-Length"] = lengths[r.URL.Path]
		w.Write(b)
	})}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		<-sig
		srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// bareServer is the running child.
type bareServer struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// startBare starts the bare Go server over the files under dir.
func startBare(ctx context.Context, dir string) (*bareServer, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), bareEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &bareServer{cmd: cmd, done: make(chan error, 1)}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		for sc.Scan() {
		}
		s.done <- cmd.Wait()
	}()
	select {
	case line, ok := <-lines:
		addr, found := strings.CutPrefix(line, "LISTEN ")
		if !ok || !found {
			s.stop()
			return nil, fmt.Errorf("the bare Go server did not start: %q", line)
		}
		s.URL = "http://" + addr
		return s, nil
	case <-time.After(30 * time.Second):
		s.stop()
		return nil, errors.New("the bare Go server did not start within 30s")
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

func (s *bareServer) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// writeDocs writes docs (path → content) as files under dir, for nginx and
// the bare Go server.
func writeDocs(dir string, docs map[string][]byte) error {
	for p, content := range docs {
		file := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
