package storetest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// One go test run, one throwaway cluster. go test runs each package's tests
// as a process of its own, several at once, so the cluster belongs to the
// run: the first test process that needs it makes it in a directory named
// after the go command's PID, starts its server detached, and starts a
// watchdog (this test binary again, see runWatchdog) that outlives every
// test process; the others find it there. When the go command exits, the
// watchdog stops the server, removes the directory (and the programs built
// there, see BuildProgram) and, if PostgreSQL tests were skipped for want of
// the server binaries, ends the run's output with one line saying how many,
// where, and how to run them; and one line per other program tests skipped
// for want of (SkipMissing), naming how to install it.

// watchdogEnv, set to a run's directory, makes the test binary the run's
// watchdog instead of running tests.
const watchdogEnv = "PACT_STORETEST_WATCHDOG"

// init turns a test binary started as the run's watchdog into it before
// anything of the package's own runs: a TestMain may build programs or
// read its package's files, and the watchdog runs elsewhere.
func init() {
	if dir := os.Getenv(watchdogEnv); dir != "" {
		os.Exit(runWatchdog(dir))
	}
}

// goCommandPID is the PID of the go command that runs this test binary, or
// 0 when something else runs it.
func goCommandPID() int {
	pid := os.Getppid()
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && filepath.Base(exe) == "go" {
		return pid
	}
	return 0
}

// runDir is the directory of the run of the go command gopid.
func runDir(gopid int) string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("%srun-%d", tempPrefix, gopid))
}

// lockRun opens the run's directory, making it and the run's watchdog if
// need be, and locks it until unlock is called.
func lockRun(gopid int) (dir string, unlock func(), err error) {
	dir = runDir(gopid)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return "", nil, err
	}
	unlock = func() { lock.Close() }
	if _, err := os.Stat(filepath.Join(dir, "watchdog")); errors.Is(err, os.ErrNotExist) {
		if err := startWatchdog(dir, gopid); err != nil {
			unlock()
			return "", nil, err
		}
	}
	return dir, unlock, nil
}

// runCluster answers the URL and directory of the run's cluster, making
// and starting it if this is the first test process to ask.
func runCluster(gopid int) (url, clusterDir string, err error) {
	if postgresBinDir() == "" {
		return "", "", errNoPostgresBinaries
	}
	dir, unlock, err := lockRun(gopid)
	if err != nil {
		return "", "", err
	}
	defer unlock()
	clusterDir = filepath.Join(dir, "cluster")
	if b, err := os.ReadFile(filepath.Join(dir, "url")); err == nil {
		return string(b), clusterDir, nil
	}
	if b, err := os.ReadFile(filepath.Join(dir, "failed")); err == nil {
		return "", "", errors.New(string(b)) // one failed start is not retried by every package
	}
	if err := os.RemoveAll(clusterDir); err != nil {
		return "", "", err
	}
	if err := os.Mkdir(clusterDir, 0o700); err != nil {
		return "", "", err
	}
	pg, err := newDetachedPostgres(clusterDir)
	if err != nil {
		os.WriteFile(filepath.Join(dir, "failed"), []byte(err.Error()), 0o644)
		return "", "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "url"), []byte(pg.URL()), 0o644); err != nil {
		return "", "", err
	}
	return pg.URL(), clusterDir, nil
}

// runSkipped records that n PostgreSQL tests of this package skipped, for
// the watchdog's line at the end of the run.
func runSkipped(gopid int, n int64) error {
	dir, unlock, err := lockRun(gopid)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := os.OpenFile(filepath.Join(dir, "skipped"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s %d\n", packagePath(), n)
	return errors.Join(err, f.Close())
}

// runMissing records how many tests of this package skipped for want of
// each program (SkipMissing), for the watchdog's lines at the end of the
// run: "PROGRAM\tINSTALL\tPACKAGE\tN" in the run's file missing.
func runMissing(gopid int, counts map[programSkip]int64) error {
	dir, unlock, err := lockRun(gopid)
	if err != nil {
		return err
	}
	defer unlock()
	f, err := os.OpenFile(filepath.Join(dir, "missing"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	var b strings.Builder
	for k, n := range counts {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%d\n", k.program, k.install, packagePath(), n)
	}
	_, err = f.WriteString(b.String())
	return errors.Join(err, f.Close())
}

// missingLines are the run's lines about tests skipped for want of a
// program, one per program, from the packages' records in file.
func missingLines(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	type where struct {
		total int64
		in    []string
	}
	programs := map[programSkip]*where{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			continue
		}
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			continue
		}
		k := programSkip{f[0], f[1]}
		if programs[k] == nil {
			programs[k] = &where{}
		}
		programs[k].total += n
		programs[k].in = append(programs[k].in, fmt.Sprintf("%s (%d)", f[2], n))
	}
	var out strings.Builder
	for _, k := range slices.SortedFunc(maps.Keys(programs), compareSkips) {
		w := programs[k]
		sort.Strings(w.in)
		fmt.Fprintf(&out, "%d tests skipped for want of %s, in %s: %s\n", w.total, k.program, strings.Join(w.in, ", "), k.install)
	}
	return out.String()
}

// startWatchdog starts this test binary as the run's watchdog, in a
// session of its own and with no output of ours: the go command waits for
// the output of the test processes, not for it.
func startWatchdog(dir string, gopid int) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// ready is closed by the watchdog once it holds the go command's
	// stderr: a go command that ends first (a run of a package or two)
	// would leave it nowhere to print.
	ready, readyW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer ready.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), watchdogEnv+"="+dir, "PACT_STORETEST_GOPID="+strconv.Itoa(gopid))
	cmd.Dir = dir
	cmd.ExtraFiles = []*os.File{readyW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "watchdog"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		cmd.Process.Kill()
		return err
	}
	ready.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.Copy(io.Discard, ready) // EOF: the watchdog is ready, or gone
	return cmd.Process.Release()
}

// runWatchdog waits for the go command to exit, then stops the run's
// cluster, removes the run's directory and prints the skip line, if any,
// on the go command's stderr: its output has ended, so the line is the
// run's last. The go command's stderr is opened at once, while it can be.
func runWatchdog(dir string) int {
	gopid, err := strconv.Atoi(os.Getenv("PACT_STORETEST_GOPID"))
	if err != nil {
		return 2
	}
	var out *os.File
	if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/2", gopid), os.O_WRONLY|os.O_APPEND, 0); err == nil {
		out = f
		defer out.Close()
	}
	os.NewFile(3, "ready").Close() // startWatchdog may return
	for alive(gopid) {
		time.Sleep(50 * time.Millisecond)
	}
	// Test processes may still be finishing when the go command was killed;
	// the lock waits for one that holds it.
	_, unlock, err := lockRun(gopid)
	if err == nil {
		defer unlock()
	}
	stopErr := stopDetached(filepath.Join(dir, "cluster"))
	line := skipLine(filepath.Join(dir, "skipped")) + missingLines(filepath.Join(dir, "missing"))
	if stopErr == nil {
		os.RemoveAll(dir)
	}
	if out != nil {
		if stopErr != nil {
			fmt.Fprintf(out, "the run's throwaway PostgreSQL in %s could not be stopped: %v\n", dir, stopErr)
		}
		fmt.Fprint(out, line)
	}
	return 0
}

// skipLine is the run's one line about skipped PostgreSQL tests, from the
// packages' records in file; "" when none skipped.
func skipLine(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	var total int64
	var where []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pkg, count, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(count, 10, 64)
		if !ok || err != nil {
			continue
		}
		total += n
		where = append(where, fmt.Sprintf("%s (%d)", pkg, n))
	}
	if total == 0 {
		return ""
	}
	sort.Strings(where)
	return fmt.Sprintf("%d PostgreSQL tests skipped, in %s: set %s, or install PostgreSQL's server binaries (initdb, postgres) for a throwaway cluster (Debian: apt-get install postgresql)\n",
		total, strings.Join(where, ", "), PostgresEnv)
}

// packagePath is the import path of the package under test.
func packagePath() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		return strings.TrimSuffix(info.Path, ".test")
	}
	return "this package"
}
