package main_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/translog"
)

// startNginxOn serves root as static files with a private nginx on a free
// loopback port, stopped when the test ends, and answers its URL.
func startNginxOn(t *testing.T, root string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			storetest.SkipMissing(t, "nginx", "apt-get install nginx-light", "a file server in front of the blob directory")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	// Started as root, nginx's workers would switch to a user that cannot
	// read the blob directory (mode 750, files 600): keep them root.
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	// One process (master_process off), so that killing it at the end
	// leaves no worker behind holding the port: a killed master's workers
	// outlived it.
	conf := fmt.Sprintf(`%s
daemon off;
master_process off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    server { listen %[3]s; root %[4]s; }
}
`, user, dir, addr, root)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatal("nginx did not listen within 10s")
		}
	}
}

// curlStatus answers curl's status and redirect address for url, not
// following it.
func curlStatus(t *testing.T, url string) (status, location string) {
	t.Helper()
	out, err := exec.Command("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", url).Output()
	if err != nil {
		t.Fatalf("curl %s: %v", url, err)
	}
	status, location, _ = strings.Cut(string(out), " ")
	return status, location
}

// curlFollow answers the bytes curl gets for url, following redirects.
func curlFollow(t *testing.T, url string) string {
	t.Helper()
	out, err := exec.Command("curl", "-sSfL", url).Output()
	if err != nil {
		t.Fatalf("curl -L %s: %v", url, err)
	}
	return string(out)
}

// With --blobs-public-url, a pinned version's document and every full log
// tile on the blob store answer 307 to the public URL and the blob's key;
// curl following it to a real file server (nginx over the blob directory)
// gets the same bytes, which tlog's proofs verify for the tiles. The
// latest path, a version whose document is still in its row and partial
// tiles are served as before.
func TestBlobsPublicURLRedirects(t *testing.T) {
	t.Parallel()
	onBothBackends(t, func(t *testing.T, dsn string) {
		const n = translog.TileWidth + 10
		seedAlicePacks(t, dsn, n) // documents in their rows
		blobDir := filepath.Join(t.TempDir(), "blobs")
		if err := os.MkdirAll(blobDir, 0o750); err != nil {
			t.Fatal(err)
		}
		public := startNginxOn(t, blobDir) + "/"
		srv, token := startWithToken(t, "bob", dsn, "--blobs", "file://"+blobDir, "--blobs-public-url", public)
		logtest.WaitFor(t, srv.URL, n)
		doc := packDocument("tool", "1.0.0", "On the blob store.")
		wantAnswer(t, "publish", publish(t, srv.URL, token, doc), 200)
		name := docSHA(doc)

		status, loc := curlStatus(t, srv.URL+"/raw/bob/tool@1.0.0.pact.md")
		if status != "307" || loc != public+name[:2]+"/"+name[2:4]+"/"+name {
			t.Errorf("GET a pinned version on the blob store: %s to %q", status, loc)
		}
		if got := curlFollow(t, srv.URL+"/raw/bob/tool@1.0.0.pact.md"); got != doc {
			t.Errorf("curl -L of the pinned version got %q", got)
		}
		for _, path := range []string{"/raw/bob/tool.pact.md", "/raw/bob/tool@latest.pact.md", "/raw/alice/pack-0@1.0.0.pact.md"} {
			if status, loc := curlStatus(t, srv.URL+path); status != "200" || loc != "" {
				t.Errorf("GET %s: %s %q; want 200, no redirect", path, status, loc)
			}
		}
		if got := curlFollow(t, srv.URL+"/raw/bob/tool.pact.md"); got != doc {
			t.Errorf("the latest path got %q", got)
		}

		for _, tile := range []string{"/log/tile/0/000", "/log/tile/entries/000"} {
			status, loc := curlStatus(t, srv.URL+tile)
			if status != "307" || !strings.HasPrefix(loc, public) {
				t.Errorf("GET %s: %s to %q", tile, status, loc)
			}
			key := strings.TrimPrefix(loc, public)
			if got := curlFollow(t, srv.URL+tile); docSHA(got) != filepath.Base(key) {
				t.Errorf("curl -L %s: %d bytes that do not hash to the blob's name %s", tile, len(got), key)
			}
		}
		if status, _ := curlStatus(t, srv.URL+"/log/tile/entries/001.p/10"); status != "200" {
			t.Errorf("a partial bundle: %s, want 200", status)
		}
		// A client of the log (Go's, which follows redirects) verifies
		// every entry and tile it reads against the checkpoint.
		if l := logtest.WaitFor(t, srv.URL, n+2); l.Tree.N < n+2 {
			t.Errorf("the log verified %d entries", l.Tree.N)
		}
	})
}

// --blobs-public-url is an absolute http(s) URL, and needs a blob store.
func TestBlobsPublicURLIsChecked(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "pact.db")
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--blobs-public-url", "cdn.example.com"}, "blobs-public-url"},
		{[]string{"--blobs-public-url", "https://cdn.example.com/", "--blobs", "none"}, "needs a blob store"},
	} {
		r := pactd(t, nil, "", append([]string{"serve", "--db", db}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("serve %v: exit %d, %s", tc.args, r.code, r.stderr)
		}
	}
}
