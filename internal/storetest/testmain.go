package storetest

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
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
// After the tests it waits for the test databases to be dropped (see
// drops), removes the process's template databases
// (MigratedPostgresURL, MigratedSQLite), its throwaway cluster, if one was
// started, and the programs it built (BuildProgram), and when PostgreSQL tests were skipped it prints one line saying
// how many and how to run them.
func WithPostgres(m TestingM) TestingM { return withPostgres{m} }

type withPostgres struct{ m TestingM }

func (w withPostgres) Run() int {
	wrapped.Store(true)
	code := w.m.Run()
	if err := dropsDone(); err != nil {
		fmt.Fprintf(os.Stderr, "dropping the databases of the tests: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if err := removeTemplates(); err != nil {
		fmt.Fprintf(os.Stderr, "removing the template databases of the tests: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if err := admins.close(); err != nil {
		fmt.Fprintf(os.Stderr, "closing the connections that made the tests' databases: %v\n", err)
	}
	if err := throwaway.remove(); err != nil {
		fmt.Fprintf(os.Stderr, "removing the throwaway PostgreSQL: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if err := removePrograms(); err != nil {
		fmt.Fprintf(os.Stderr, "removing the programs the tests built: %v\n", err)
	}
	if n := skipped.Load(); n > 0 {
		if gopid := goCommandPID(); gopid == 0 || runSkipped(gopid, n) != nil {
			reportSkipped(n)
		}
	}
	if counts := missing.counts(); len(counts) > 0 {
		if gopid := goCommandPID(); gopid == 0 || runMissing(gopid, counts) != nil {
			reportMissing(counts)
		}
	}
	return code
}

// missing counts the tests skipped for want of each program (SkipMissing).
var missing programSkips

// A programSkip is a program some tests need and how to install it.
type programSkip struct{ program, install string }

type programSkips struct {
	mu sync.Mutex
	n  map[programSkip]int64
}

func (p *programSkips) add(program, install string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == nil {
		p.n = map[programSkip]int64{}
	}
	p.n[programSkip{program, install}]++
}

func (p *programSkips) counts() map[programSkip]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.n)
}

func reportMissing(counts map[programSkip]int64) {
	pkg := packagePath()
	out := noteOutput()
	defer out.Close()
	for _, k := range slices.SortedFunc(maps.Keys(counts), compareSkips) {
		fmt.Fprintf(out, "%d tests skipped for want of %s, in %s (%d): %s\n", counts[k], k.program, pkg, counts[k], k.install)
	}
}

func compareSkips(a, b programSkip) int {
	return cmp.Or(cmp.Compare(a.program, b.program), cmp.Compare(a.install, b.install))
}

var (
	wrapped atomic.Bool  // the tests run through WithPostgres
	skipped atomic.Int64 // PostgreSQL tests skipped for want of a server
)

// throwaway is the cluster the tests of this process use when
// PACT_TEST_POSTGRES_URL is not set. Under the go command it is the run's
// one cluster, shared by every test process of the run (see runCluster);
// a test binary run by anything else starts one of its own, which lives and
// dies with the process (see Postgres).
var throwaway cluster

type cluster struct {
	mu  sync.Mutex
	url string
	dir string    // the cluster's directory, for tests to check
	pg  *Postgres // this process's own cluster, when not run by go
	err error     // why it could not start: not retried by every test
}

func (c *cluster) get() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.url == "" && c.err == nil {
		if gopid := goCommandPID(); gopid != 0 {
			c.url, c.dir, c.err = runCluster(gopid)
		} else if c.pg, c.err = NewPostgres(); c.err == nil {
			c.url, c.dir = c.pg.URL(), c.pg.Dir()
		}
	}
	return c.url, c.err
}

// remove removes this process's own cluster; the run's is the watchdog's.
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
	pkg := packagePath()
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
	if goCommand := goCommandPID(); goCommand != 0 {
		stderr := fmt.Sprintf("/proc/%d/fd/2", goCommand)
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

// WithParallel runs m with go test's -parallel at n unless the command
// line sets it: for packages whose tests mostly wait (on pactd, on
// PostgreSQL, on a lease to end) rather than compute, where -parallel's
// default, the number of CPUs, leaves a two-core machine idle. Wrap it
// inside WithPostgres's wrapping or around it; both run m once.
func WithParallel(m TestingM, n int) TestingM { return withParallel{m, n} }

type withParallel struct {
	m TestingM
	n int
}

func (w withParallel) Run() int {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if f := flag.Lookup("test.parallel"); f != nil && !set {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n < w.n {
			f.Value.Set(strconv.Itoa(w.n))
		}
	}
	return w.m.Run()
}
