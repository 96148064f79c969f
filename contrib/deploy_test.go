// Package contrib holds no code: its tests check the deployment files,
// the Dockerfile beside go.mod and the systemd unit here
// (docs/operations.md, Containers and systemd).
package contrib_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/internal/syncbuf"
)

var pactdBin string

func TestMain(m *testing.M) {
	// Built once for the whole go test run (storetest.BuildProgram).
	var err error
	pactdBin, err = storetest.BuildProgram(pactdtest.Package, pactdtest.BuildFlags...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(storetest.WithPostgres(m).Run()) // which removes what BuildProgram built
}

// The static build of the container image (Dockerfile): these flags must
// stay the Dockerfile's, which the test checks.
const (
	staticTags    = "nomsgpack sqlite_fts5 netgo osusergo sqlite_omit_load_extension"
	staticLDFlags = "-s -w -linkmode external -extldflags -static"
)

// imageFiles are what the image's final stage holds, besides nothing.
var imageFiles = []string{"/etc/ssl/certs/ca-certificates.crt", "/pactd", "/tmp", "/data"}

// imageUser is the image's USER.
const imageUser = 65532

// needRoot skips a test that needs root (chroot, chown) where it cannot
// run, but never in CI, which runs as root and must run it.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("this test needs root (chroot), and CI runs as root: it must run there")
	}
	t.Skip("needs root (chroot); CI runs it")
}

// The Dockerfile's final stage ships exactly imageFiles, built with the
// flags this test builds with.
func TestDockerfileShipsWhatTheTestServesFrom(t *testing.T) {
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	dockerfile := string(b)
	_, final, ok := strings.Cut(dockerfile, "\nFROM scratch\n")
	if !ok {
		t.Fatal("the Dockerfile has no FROM scratch stage")
	}
	var copied []string
	for _, line := range strings.Split(final, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "COPY" {
			copied = append(copied, f[len(f)-1])
		}
	}
	if !slices.Equal(copied, imageFiles) {
		t.Errorf("the image's final stage copies %q, the test serves from %q: keep them the same", copied, imageFiles)
	}
	for _, want := range []string{"-tags '" + staticTags + "'", `-ldflags "` + staticLDFlags + " ", "CGO_ENABLED=1",
		"USER 65532:65532", `HEALTHCHECK `, `CMD ["/pactd", "healthcheck"]`} {
		if !strings.Contains(dockerfile, want) {
			t.Errorf("the Dockerfile does not hold %s", want)
		}
	}
}

// The static pactd of the image serves /healthz, and its healthcheck
// passes, from a root file system holding only what the image ships, as
// the image's user: no libc, no /etc/passwd, no shell.
func TestStaticBinaryInEmptyRoot(t *testing.T) {
	needRoot(t)
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "pactd")
	start := time.Now()
	build := exec.Command("go", "build", "-trimpath", "-tags", staticTags, "-ldflags", staticLDFlags, "-o", bin, "../cmd/pactd")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("static build: %v\n%s", err, out)
	}
	t.Logf("static build took %s", time.Since(start).Round(time.Second))
	checkStatic(t, bin)

	certs := filepath.Join(root, "etc/ssl/certs/ca-certificates.crt")
	if err := os.MkdirAll(filepath.Dir(certs), 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt"); err != nil {
		t.Fatalf("the build machine's CA certificates (Debian's ca-certificates), which the image copies: %v", err)
	} else if err := os.WriteFile(certs, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "tmp"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(root, "data"), imageUser, imageUser); err != nil {
		t.Fatal(err)
	}
	var found []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(root, path); rel != "." && (!d.IsDir() || rel == "tmp" || rel == "data") {
			found = append(found, "/"+rel)
		}
		return nil
	})
	slices.Sort(found)
	if want := slices.Sorted(slices.Values(imageFiles)); !slices.Equal(found, want) {
		t.Fatalf("the root holds %q, want %q", found, want)
	}

	// As the image runs it: its user, /data the working directory, its
	// environment; only the address is a free loopback port.
	inRoot := func(args ...string) *exec.Cmd {
		cmd := exec.Command("/pactd", args...)
		cmd.Path = "/pactd"
		cmd.Dir = "/data"
		cmd.Env = []string{"PACTD_ADDR=127.0.0.1:0", "PACTD_DB=/data/pact.db"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root,
			Credential: &syscall.Credential{Uid: imageUser, Gid: imageUser, NoSetGroups: true}}
		return cmd
	}
	start = time.Now()
	serve := inRoot("serve")
	var logs syncbuf.Buffer
	serve.Stderr = &logs
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatalf("starting /pactd serve in the root: %v", err)
	}
	t.Cleanup(func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
		if t.Failed() {
			t.Logf("pactd in the root logged:\n%s", logs.String())
		}
	})
	announced := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := regexp.MustCompile(`listening on (\S+) `).FindStringSubmatch(sc.Text()); m != nil {
				announced <- m[1]
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	var addr string
	select {
	case addr = <-announced:
	case <-time.After(60 * time.Second):
		t.Fatal("pactd in the root did not listen within 60s")
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(bytes.TrimSpace(body)) != `{"ok":true}` {
		t.Errorf("GET /healthz of pactd in the root: %d %s", resp.StatusCode, body)
	}
	// The image's HEALTHCHECK, with the address the server took.
	check := inRoot("healthcheck")
	check.Env = []string{"PACTD_ADDR=" + addr, "PACTD_DB=/data/pact.db"}
	if out, err := check.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "healthy: ") {
		t.Errorf("/pactd healthcheck in the root: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "data", "pact.db")); err != nil {
		t.Errorf("the database is not in /data: %v", err)
	}
	t.Logf("started and answered /healthz in the root in %s", time.Since(start).Round(time.Millisecond))
}

// checkStatic fails unless bin is a static executable: no program
// interpreter (dynamic loader) and no shared libraries.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader: it is not static", bin)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s needs shared libraries %q (%v): it is not static", bin, libs, err)
	}
}
