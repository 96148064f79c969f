package storetest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// TestingM is what a TestMain runs: *testing.M, or testscript's.
type TestingM interface{ Run() int }

// WithPostgres wraps the tests of a package that uses PostgreSQL:
//
//	func TestMain(m *testing.M) { os.Exit(storetest.WithPostgres(m).Run()) }
//
// After the tests it removes the process's throwaway cluster, if one was
// started, and when PostgreSQL tests were skipped it prints one line saying
// how many and how to run them.
func WithPostgres(m TestingM) TestingM { return withPostgres{m} }

type withPostgres struct{ m TestingM }

func (w withPostgres) Run() int {
	wrapped.Store(true)
	code := w.m.Run()
	if err := throwaway.remove(); err != nil {
		fmt.Fprintf(os.Stderr, "removing the throwaway PostgreSQL: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if n := skipped.Load(); n > 0 {
		reportSkipped(n)
	}
	return code
}

var (
	wrapped atomic.Bool  // the tests run through WithPostgres
	skipped atomic.Int64 // PostgreSQL tests skipped for want of a server
)

// throwaway is the cluster of this test process, used by all its tests
// when PACT_TEST_POSTGRES_URL is not set. One per test process rather than
// one per `go test` run: go test runs each package's tests as a process of
// its own, several at once, so a shared cluster would need an owner that
// outlives them all to remove it; one per process lives and dies with the
// process (see Postgres). It costs an initdb and a start, a second or two,
// in each of the few packages that use PostgreSQL, and only when one of
// their tests asks for it.
var throwaway cluster

type cluster struct {
	mu  sync.Mutex
	pg  *Postgres
	err error // why it could not start: not retried by every test
}

func (c *cluster) get() (*Postgres, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pg == nil && c.err == nil {
		c.pg, c.err = NewPostgres()
	}
	return c.pg, c.err
}

func (c *cluster) remove() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pg == nil {
		return nil
	}
	err := c.pg.Remove()
	c.pg = nil
	return err
}

func reportSkipped(n int64) {
	pkg := "this package"
	if info, ok := debug.ReadBuildInfo(); ok {
		pkg = strings.TrimSuffix(info.Path, ".test")
	}
	out := noteOutput()
	defer out.Close()
	fmt.Fprintf(out, "%s: %d PostgreSQL tests skipped: set %s, or install PostgreSQL's server binaries (initdb, postgres) for a throwaway cluster\n",
		pkg, n, PostgresEnv)
}

// noteOutput is where the skip line goes: the go command's own stderr when
// the go command runs this test binary. go test shows a passing package's
// output only with -v (in package list mode it discards it), so a line
// printed by the test binary itself would never be seen, which is how
// PostgreSQL tests used to skip unnoticed. A regular file is written only
// when the go command appends to it too: otherwise its next line would
// overwrite ours.
func noteOutput() io.WriteCloser {
	goCommand := os.Getppid()
	stderr := fmt.Sprintf("/proc/%d/fd/2", goCommand)
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", goCommand)); err == nil && filepath.Base(exe) == "go" {
		if fi, err := os.Stat(stderr); err == nil && (fi.Mode()&(os.ModeCharDevice|os.ModeNamedPipe) != 0 ||
			fi.Mode().IsRegular() && appends(fmt.Sprintf("/proc/%d/fdinfo/2", goCommand))) {
			if f, err := os.OpenFile(stderr, os.O_WRONLY|os.O_APPEND, 0); err == nil {
				return f
			}
		}
	}
	return nopCloser{os.Stderr}
}

// appends reports whether the descriptor of fdinfo (/proc/PID/fdinfo/FD)
// was opened with O_APPEND.
func appends(fdinfo string) bool {
	b, err := os.ReadFile(fdinfo)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if octal, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(octal), 8, 64)
			return err == nil && flags&syscall.O_APPEND != 0
		}
	}
	return false
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
