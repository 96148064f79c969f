package storetest

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// helperEnv makes this test binary, run again by a test below, do what a
// package's tests do in one of the situations the tests set up.
const helperEnv = "PACT_STORETEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "nobinaries":
		// PATH (for pg_config) is emptied by the test; this hides Debian's.
		debianPostgresGlob = "/nonexistent/postgresql/*/bin"
	case "gocommand", "gocommand-throwaway", "gocommand-missing":
		// Stand in for the go command running two packages' tests, one
		// after the other: the output of tests that skip is thrown away, as
		// go test does when a package's tests pass; that of tests that use
		// the run's cluster is printed.
		run, mode := "^TestHelperSkips$", "nobinaries"
		switch os.Getenv(helperEnv) {
		case "gocommand-throwaway":
			run, mode = "^TestHelperUsesPostgres$", "throwaway"
		case "gocommand-missing":
			run, mode = "^TestHelperMissesPrograms$", "missing"
		}
		for range 2 {
			tests := exec.Command(os.Args[0], "-test.run="+run, "-test.count=1", "-test.v")
			tests.Env = helperEnviron(mode)
			out, err := tests.CombinedOutput()
			if mode == "throwaway" {
				os.Stdout.Write(out)
			}
			if err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(WithPostgres(m).Run())
}

// helperEnviron is the environment of the helper: no server URL, not CI.
func helperEnviron(mode string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, PostgresEnv+"=") && !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, helperEnv+"=") {
			env = append(env, kv)
		}
	}
	return append(append(env, helperEnv+"="+mode), extra...)
}

// TestHelperUsesPostgres is a package's PostgreSQL tests, run by
// TestWithoutURLTestsRunOnAThrowawayCluster.
func TestHelperUsesPostgres(t *testing.T) {
	if os.Getenv(helperEnv) != "throwaway" {
		return
	}
	var mu sync.Mutex
	hosts := map[string]bool{}
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dsn := PostgresURL(t)
			db, err := sql.Open("pgx", dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var one int
			if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
				t.Fatalf("query on %s: %v", dsn, err)
			}
			u, _ := url.Parse(dsn)
			mu.Lock()
			hosts[u.Host] = true
			mu.Unlock()
		})
	}
	t.Cleanup(func() {
		if len(hosts) != 1 {
			t.Errorf("the tests used the servers %v, want one throwaway cluster for the process", hosts)
		}
		if dir := throwaway.dir; dir != "" {
			t.Logf("throwaway cluster in %s", dir)
		}
	})
}

// Without PACT_TEST_POSTGRES_URL and with the server binaries installed, a
// package's PostgreSQL tests run, on a cluster of their own that is gone,
// directory and processes, when they end.
func TestWithoutURLTestsRunOnAThrowawayCluster(t *testing.T) {
	if postgresBinDir() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(errNoPostgresBinaries)
		}
		t.Skip(errNoPostgresBinaries)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperUsesPostgres$", "-test.v", "-test.count=1")
	cmd.Env = helperEnviron("throwaway")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the PostgreSQL tests failed: %v\n%s", err, out)
	}
	for _, name := range []string{"a", "b"} {
		if !strings.Contains(string(out), "--- PASS: TestHelperUsesPostgres/"+name) {
			t.Errorf("TestHelperUsesPostgres/%s did not pass:\n%s", name, out)
		}
	}
	m := regexp.MustCompile(`throwaway cluster in (\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no throwaway cluster reported:\n%s", out)
	}
	dir := string(m[1])
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cluster's directory %s is still there after the tests (%v)", dir, err)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-*", tempPrefix, cmd.Process.Pid))); len(left) > 0 {
		t.Errorf("cluster directories left by the test process: %v", left)
	}
	if procs := processesMentioning(t, dir); len(procs) > 0 {
		t.Errorf("processes of the cluster still running after the tests: %v", procs)
	}
}

// processesMentioning lists the command lines that name dir.
func processesMentioning(t *testing.T, dir string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, path := range cmdlines {
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(dir)) {
			found = append(found, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// TestHelperSkips is a package's PostgreSQL tests, run by
// TestWithoutBinariesTheSkipsAreReported.
func TestHelperSkips(t *testing.T) {
	if os.Getenv(helperEnv) != "nobinaries" {
		return
	}
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) { PostgresURL(t) })
	}
}

// Without PACT_TEST_POSTGRES_URL and without the server binaries the tests
// skip, and the person running go test is told, in one line at the end of
// the run, how many, where, and how to run them. go test discards the
// output of a package whose tests pass, so the line must reach the go
// command's own stderr: here a copy of this test binary named go stands in
// for it, running two packages' tests.
func TestWithoutBinariesTheSkipsAreReported(t *testing.T) {
	dir := t.TempDir()
	goCommand := filepath.Join(dir, "go")
	if err := os.Link(os.Args[0], goCommand); err != nil {
		copyFile(t, os.Args[0], goCommand)
	}
	emptyPath := filepath.Join(dir, "bin")
	if err := os.Mkdir(emptyPath, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goCommand)
	cmd.Env = helperEnviron("gocommand", "PATH="+emptyPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the tests did not pass: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	want := "4 PostgreSQL tests skipped, in github.com/pact-registry/pact/internal/storetest (2), " +
		"github.com/pact-registry/pact/internal/storetest (2): set PACT_TEST_POSTGRES_URL, " +
		"or install PostgreSQL's server binaries (initdb, postgres) for a throwaway cluster (Debian: apt-get install postgresql)\n"
	if got := stderr.String(); got != want {
		t.Errorf("the go command's stderr:\n%q\nwant\n%q", got, want)
	}
	if stdout.Len() > 0 {
		t.Errorf("the go command's stdout: %q, want nothing", stdout.String())
	}
}

// TestHelperMissesPrograms is a package's tests of programs that are not
// installed, run by TestMissingProgramsAreReported.
func TestHelperMissesPrograms(t *testing.T) {
	if os.Getenv(helperEnv) != "missing" {
		return
	}
	for _, program := range []string{"litewitness", "litewitness", "fsck"} {
		t.Run(program, func(t *testing.T) {
			SkipMissing(t, program, "go install example.com/"+program+"@v1", program+" is not installed")
		})
	}
}

// A test skipped for want of a program (litewitness, tessera's fsck,
// Chromium: storetest.SkipMissing) is reported as PostgreSQL's are, in one
// line per program at the end of the run, on the go command's stderr,
// naming what to install: here a copy of this test binary named go stands
// in for the go command, running two packages' tests.
func TestMissingProgramsAreReported(t *testing.T) {
	dir := t.TempDir()
	goCommand := filepath.Join(dir, "go")
	if err := os.Link(os.Args[0], goCommand); err != nil {
		copyFile(t, os.Args[0], goCommand)
	}
	cmd := exec.Command(goCommand)
	cmd.Env = helperEnviron("gocommand-missing")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the tests did not pass: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	in := "github.com/pact-registry/pact/internal/storetest"
	want := "2 tests skipped for want of fsck, in " + in + " (1), " + in + " (1): go install example.com/fsck@v1\n" +
		"4 tests skipped for want of litewitness, in " + in + " (2), " + in + " (2): go install example.com/litewitness@v1\n"
	if got := stderr.String(); got != want {
		t.Errorf("the go command's stderr:\n%q\nwant\n%q", got, want)
	}
	if stdout.Len() > 0 {
		t.Errorf("the go command's stdout: %q, want nothing", stdout.String())
	}
}

// Under the go command, every test process of the run uses one throwaway
// cluster, which is gone, directory and processes, when the run ends: here
// a copy of this test binary named go runs two packages' tests.
func TestOneThrowawayClusterPerGoTestRun(t *testing.T) {
	if postgresBinDir() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(errNoPostgresBinaries)
		}
		t.Skip(errNoPostgresBinaries)
	}
	dir := t.TempDir()
	goCommand := filepath.Join(dir, "go")
	if err := os.Link(os.Args[0], goCommand); err != nil {
		copyFile(t, os.Args[0], goCommand)
	}
	cmd := exec.Command(goCommand)
	cmd.Env = helperEnviron("gocommand-throwaway")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Run returns when the go command has exited and the watchdog, which
	// holds its stderr, has done its work.
	if err := cmd.Run(); err != nil {
		t.Fatalf("the tests did not pass: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	clusters := regexp.MustCompile(`throwaway cluster in (\S+)`).FindAllStringSubmatch(stdout.String(), -1)
	if len(clusters) != 2 || clusters[0][1] != clusters[1][1] {
		t.Fatalf("want both test processes on one cluster, got %v:\n%s", clusters, stdout.String())
	}
	cluster := clusters[0][1]
	if !strings.HasPrefix(cluster, runDir(cmd.Process.Pid)) {
		t.Errorf("the cluster %s is not the run's (%s)", cluster, runDir(cmd.Process.Pid))
	}
	if _, err := os.Stat(runDir(cmd.Process.Pid)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run's directory is still there after the run (%v)", err)
	}
	if procs := processesMentioning(t, cluster); len(procs) > 0 {
		t.Errorf("processes of the cluster still running after the run: %v", procs)
	}
	if stderr.Len() > 0 {
		t.Errorf("the go command's stderr: %q, want nothing", stderr.String())
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestHelperPanics is a package's tests that panic (as go test's -timeout
// makes them do) with the throwaway cluster running, run by
// TestAPanickingTestProcessLeavesNoServer.
func TestHelperPanics(t *testing.T) {
	if os.Getenv(helperEnv) != "throwaway" {
		return
	}
	PostgresURL(t)
	t.Logf("throwaway cluster in %s", throwaway.dir)
	panic("the tests die with the cluster running")
}

// A test process that dies without removing its cluster takes the server
// with it; the directory it leaves is removed by the next cluster's start.
func TestAPanickingTestProcessLeavesNoServer(t *testing.T) {
	if postgresBinDir() == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(errNoPostgresBinaries)
		}
		t.Skip(errNoPostgresBinaries)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperPanics$", "-test.v", "-test.count=1")
	cmd.Env = helperEnviron("throwaway")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the tests did not panic:\n%s", out)
	}
	m := regexp.MustCompile(`throwaway cluster in (\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no throwaway cluster reported:\n%s", out)
	}
	dir := string(m[1])
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The server's immediate shutdown takes a moment; a minute is plenty.
	for deadline := time.Now().Add(time.Minute); len(processesMentioning(t, dir)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the cluster's server outlived its test process by a minute: %v", processesMentioning(t, dir))
		}
	}
	sweepStale()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the abandoned cluster's directory %s is still there after a sweep (%v)", dir, err)
	}
}

// A test process killed before it could remove its cluster leaves the
// directory behind (its server dies with it); the next one removes it, and
// leaves the clusters of live processes alone.
func TestNewPostgresSweepsAbandonedClusters(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true(1) to make a finished process:", err)
	}
	abandoned := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-sweeptest", tempPrefix, gone.Process.Pid))
	live := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-sweeptest", tempPrefix, os.Getpid()))
	for _, dir := range []string{abandoned, live} {
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	sweepStale()
	if _, err := os.Stat(abandoned); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory of the finished process %d is still there (%v)", gone.Process.Pid, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the directory of this live process was removed: %v", err)
	}
}
