package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
)

// freePort asks the kernel for a free loopback port. Another program may
// take it before it is used; the caller then fails and says so.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// pactd is a running `pactd serve`.
type pactd struct {
	URL       string
	PprofURL  string
	cmd       *exec.Cmd
	log       *os.File
	done      chan error
	StartedIn time.Duration // from exec to the first answer of GET /api/packages

	stopOnce sync.Once
	stopErr  error
}

// startPactd runs pactd serve on db and waits for its first answer that
// needs the database.
func startPactd(ctx context.Context, bin, db, logPath string, pprof bool, extra ...string) (*pactd, error) {
	return startPactdEnv(ctx, bin, db, logPath, pprof, nil, extra...)
}

// startPactdEnv is startPactd with env added to pactd's environment.
func startPactdEnv(ctx context.Context, bin, db, logPath string, pprof bool, env []string, extra ...string) (*pactd, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr, "--db", db, "--base-url", "http://" + addr}
	// All the load comes from one address, token and key: the abuse limits
	// stay on (their bookkeeping is part of every request) but so high that
	// they never refuse.
	for _, limit := range []string{"ip", "token", "key", "log-ip"} {
		args = append(args, "--rate-"+limit, "1e9", "--rate-"+limit+"-burst", "1000000000")
	}
	args = append(args, extra...)
	p := &pactd{URL: "http://" + addr, log: log, done: make(chan error, 1)}
	if pprof {
		pport, err := freePort()
		if err != nil {
			log.Close()
			return nil, err
		}
		pprofAddr := fmt.Sprintf("127.0.0.1:%d", pport)
		args = append(args, "--pprof-addr", pprofAddr)
		p.PprofURL = "http://" + pprofAddr
	}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(pactdtest.CleanEnv(), env...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.Dir = filepath.Dir(logPath)
	start := time.Now()
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	go func() { p.done <- p.cmd.Wait() }()

	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(p.URL + "/api/packages?limit=1")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				p.StartedIn = time.Since(start)
				return p, nil
			}
		}
		select {
		case err := <-p.done:
			log.Close()
			return nil, fmt.Errorf("pactd exited before answering (%v); its log: %s", err, logPath)
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, fmt.Errorf("pactd did not answer within 30s; its log: %s", logPath)
		}
	}
}

// stop sends SIGTERM and waits for pactd to drain and exit; stopping it
// again answers the same.
func (p *pactd) stop() error {
	p.stopOnce.Do(func() {
		defer p.log.Close()
		if p.cmd.Process == nil {
			return
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case p.stopErr = <-p.done:
		case <-time.After(30 * time.Second):
			_ = p.cmd.Process.Kill()
			p.stopErr = errors.New("pactd did not stop within 30s of SIGTERM")
		}
	})
	return p.stopErr
}

// resetPeakRSS starts a new peak-RSS window.
func (p *pactd) resetPeakRSS() bool { return pactdtest.ResetPeakRSS(p.cmd.Process.Pid) }

// peakRSS is VmHWM, the resident set's high-water mark, in KiB.
func (p *pactd) peakRSS() int64 { return pactdtest.PeakRSSKiB(p.cmd.Process.Pid) }

// profile records a CPU profile of pactd for d into path, in the
// background; wait for the returned channel.
func (p *pactd) profile(d time.Duration, path string) <-chan error {
	done := make(chan error, 1)
	go func() {
		seconds := max(1, int(d.Round(time.Second)/time.Second))
		client := &http.Client{Timeout: d + 30*time.Second}
		resp, err := client.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", p.PprofURL, seconds))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			done <- fmt.Errorf("pprof answered %s", resp.Status)
			return
		}
		f, err := os.Create(path)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return done
}
