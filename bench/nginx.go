package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// nginxConfig serves dir/www as plain static files, as one would put pack
// documents behind nginx: sendfile, an access log line per request (pactd
// logs one too), keep-alive without a request limit (Go's server has none
// either).
const nginxConfig = `worker_processes auto;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log %[1]s/access.log;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    types { text/markdown md; }
    default_type application/octet-stream;
    client_body_temp_path %[1]s/tmp/body;
    proxy_temp_path %[1]s/tmp/proxy;
    fastcgi_temp_path %[1]s/tmp/fastcgi;
    uwsgi_temp_path %[1]s/tmp/uwsgi;
    scgi_temp_path %[1]s/tmp/scgi;
    server {
        listen 127.0.0.1:%[2]d;
        root %[3]s;
        location /raw/ { add_header Cache-Control "public, max-age=60"; }
    }
}
`

// nginx is a private nginx on a free loopback port.
type nginx struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// startNginx serves the files under www (written by writeDocs; probe is
// one of their paths) with its own files under dir.
func startNginx(ctx context.Context, bin, dir, www, probe string) (*nginx, error) {
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return nil, err
	}
	// Run as root, nginx's workers switch to an unprivileged user, which
	// must be able to walk down to the files: open the work directory (made
	// 0700 by os.MkdirTemp) and these for reading.
	for _, d := range []string{filepath.Dir(dir), dir, www} {
		if err := os.Chmod(d, 0o755); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, nginxConfig, dir, port, www), 0o644); err != nil {
		return nil, err
	}
	n := &nginx{URL: fmt.Sprintf("http://127.0.0.1:%d", port), done: make(chan error, 1)}
	n.cmd = exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "nginx-error.log"))
	log, err := os.Create(filepath.Join(dir, "nginx.out"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	n.cmd.Stdout, n.cmd.Stderr = log, log
	if err := n.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { n.done <- n.cmd.Wait() }()

	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := client.Get(n.URL + probe)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return n, nil
			}
			n.stop()
			return nil, fmt.Errorf("nginx answered %s for %s; see %s", resp.Status, probe, filepath.Join(dir, "nginx-error.log"))
		}
		select {
		case err := <-n.done:
			out, _ := os.ReadFile(filepath.Join(dir, "nginx.out"))
			return nil, fmt.Errorf("nginx exited (%v): %s", err, out)
		case <-ctx.Done():
			n.stop()
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			n.stop()
			return nil, errors.New("nginx did not answer within 10s")
		}
	}
}

// stop asks nginx to quit (SIGQUIT: graceful) and waits.
func (n *nginx) stop() {
	_ = n.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-n.done:
	case <-time.After(10 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.done
	}
}
