package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Postgres is a private, throwaway PostgreSQL cluster: initdb into a new
// temporary directory, trust authentication, a free loopback port. It runs
// as a child of the test process and dies with it (Pdeathsig), so a test
// binary that panics or is killed leaves no server running; a directory it
// leaves behind is removed by the next NewPostgres (sweepStale).
type Postgres struct {
	bin  string // where initdb and postgres are
	dir  string // the temporary directory: data/, postgres.log, the socket
	port int
	cred *syscall.Credential // the OS user to run as, when we are root

	proc   *os.Process
	exited chan struct{} // closed when proc has exited
}

// debianPostgresGlob is where Debian keeps the server binaries, out of PATH.
// A variable so that a test can hide them.
var debianPostgresGlob = "/usr/lib/postgresql/*/bin"

// postgresBinDir returns the directory of PostgreSQL's initdb and postgres:
// pg_config --bindir, else the newest of Debian's; "" when there are none.
func postgresBinDir() string {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if hasServerBinaries(dir) {
			return dir
		}
	}
	dirs, _ := filepath.Glob(debianPostgresGlob)
	// Newest major version first: 9.6 < 10 < 15 < 16.
	var best string
	bestVersion := -1.0
	for _, dir := range dirs {
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		if err == nil && v > bestVersion && hasServerBinaries(dir) {
			best, bestVersion = dir, v
		}
	}
	return best
}

func hasServerBinaries(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// errNoPostgresBinaries says why NewPostgres cannot make a cluster.
var errNoPostgresBinaries = errors.New("PostgreSQL's server binaries (initdb, postgres) are not installed: not in `pg_config --bindir` nor " + debianPostgresGlob)

// NewPostgres makes a throwaway cluster and starts it. Remove stops it and
// deletes its directory. It fails with errNoPostgresBinaries when the
// server binaries are not installed.
func NewPostgres() (*Postgres, error) {
	bin := postgresBinDir()
	if bin == "" {
		return nil, errNoPostgresBinaries
	}
	sweepStale()
	// Not t.TempDir: tests that run as root keep it under directories only
	// root may enter, and the server runs as postgres. The PID in the name
	// lets sweepStale tell an abandoned directory from one in use.
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", tempPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	p := &Postgres{bin: bin, dir: dir}
	if err := p.init(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := p.onFreePort(p.Start); err != nil {
		p.Remove()
		return nil, err
	}
	return p, nil
}

// onFreePort runs start on a free port. The port is free when freePort
// returns but may be taken before the server binds it; another one is
// tried then.
func (p *Postgres) onFreePort(start func() error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if p.port, err = freePort(); err != nil {
			return err
		}
		if err = start(); err == nil || attempt == 3 {
			return err
		}
	}
}

// newDetachedPostgres makes a cluster in dir (which exists) and starts its
// server detached from this process, with pg_ctl: it outlives the test
// process that started it, for the other test processes of the run, and
// is stopped by stopDetached.
func newDetachedPostgres(dir string) (*Postgres, error) {
	bin := postgresBinDir()
	if bin == "" {
		return nil, errNoPostgresBinaries
	}
	p := &Postgres{bin: bin, dir: dir}
	if err := p.init(); err != nil {
		return nil, err
	}
	err := p.onFreePort(func() error {
		cmd := p.command("pg_ctl", "start", "-D", p.data(), "-w", "-t", "60", "-l", filepath.Join(p.dir, "postgres.log"),
			"-o", fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off", p.port, p.dir))
		if out, err := cmd.CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(p.dir, "postgres.log"))
			return fmt.Errorf("pg_ctl start: %v\n%s%s", err, out, log)
		}
		return nil
	})
	return p, err
}

// stopDetached stops the detached server of the cluster in dir at once,
// if it runs.
func stopDetached(dir string) error {
	p := &Postgres{bin: postgresBinDir(), dir: dir}
	if _, err := os.Stat(filepath.Join(p.data(), "postmaster.pid")); err != nil {
		return nil
	}
	if os.Geteuid() == 0 {
		if err := p.runAsPostgres(); err != nil {
			return err
		}
	}
	if out, err := p.command("pg_ctl", "stop", "-D", p.data(), "-m", "immediate", "-w", "-t", "60").CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

const tempPrefix = "pact-pg-"

// init runs initdb. initdb and postgres refuse to run as root: as root, they
// run as the postgres OS user, which Debian's packages create.
func (p *Postgres) init() error {
	if os.Geteuid() == 0 {
		if err := p.runAsPostgres(); err != nil {
			return err
		}
		if err := os.Chown(p.dir, int(p.cred.Uid), int(p.cred.Gid)); err != nil {
			return err
		}
	}
	// C.UTF-8, as CI's server: case folding, unaccent and pg_trgm treat
	// letters beyond ASCII by the locale, and search's tests rank by them.
	cmd := p.command("initdb", "-D", p.data(), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	return nil
}

// runAsPostgres makes the cluster's programs run as the postgres OS user.
func (p *Postgres) runAsPostgres() error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root, the throwaway PostgreSQL runs as the postgres OS user (initdb refuses root): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return nil
}

func (p *Postgres) command(program string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.bin, program), args...)
	cmd.Dir = p.dir // the server's user may not enter the test's directory
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	return cmd
}

func (p *Postgres) data() string { return filepath.Join(p.dir, "data") }

// Dir is the cluster's temporary directory, gone after Remove.
func (p *Postgres) Dir() string { return p.dir }

// URL is the cluster's postgres database, as its superuser postgres.
func (p *Postgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

// Start starts the server (again, after Stop) on the cluster's port and
// returns once it accepts connections.
func (p *Postgres) Start() error {
	if p.proc != nil {
		return errors.New("the throwaway PostgreSQL is running already")
	}
	logPath := filepath.Join(p.dir, "postgres.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	// fsync=off: a throwaway cluster outlives no crash of the machine, and
	// the tests share two cores and a disk with whatever else runs.
	cmd := p.command("postgres", "-D", p.data(), "-p", strconv.Itoa(p.port),
		"-c", "listen_addresses=127.0.0.1", "-k", p.dir, "-c", "fsync=off")
	cmd.Stdout, cmd.Stderr = log, log
	// SIGQUIT, an immediate shutdown, if the test process dies first. The
	// kernel sends it when the thread that started the server exits, so
	// that thread is kept, locked to a goroutine, until the server exits.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return err
	}
	p.proc, p.exited = cmd.Process, exited

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sql.Open("pgx", p.URL())
	if err != nil {
		p.kill()
		return err
	}
	defer db.Close()
	// The server says nothing when it is ready but answers; ask until it does.
	for {
		if err = db.PingContext(ctx); err == nil {
			return nil
		}
		select {
		case <-exited:
			p.proc = nil
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("the throwaway PostgreSQL on port %d exited while starting:\n%s", p.port, out)
		case <-ctx.Done():
			p.kill()
			return fmt.Errorf("the throwaway PostgreSQL on port %d does not answer after a minute: %v", p.port, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Stop shuts the server down and waits until it has exited: mode "fast"
// ends every session (SIGINT), "immediate" is as abrupt as a crash
// (SIGQUIT). Stopping a stopped server does nothing.
func (p *Postgres) Stop(mode string) error {
	if p.proc == nil {
		return nil
	}
	sig := map[string]os.Signal{"fast": syscall.SIGINT, "immediate": syscall.SIGQUIT}[mode]
	if sig == nil {
		return fmt.Errorf("stop mode %q: want fast or immediate", mode)
	}
	if err := p.proc.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		p.kill()
		return fmt.Errorf("the throwaway PostgreSQL did not stop (%s) within a minute; killed", mode)
	}
	p.proc = nil
	return nil
}

func (p *Postgres) kill() {
	p.proc.Kill()
	<-p.exited
	p.proc = nil
}

// Remove stops the server at once and deletes the cluster's directory.
func (p *Postgres) Remove() error {
	err := p.Stop("immediate")
	return errors.Join(err, os.RemoveAll(p.dir))
}

// sweepStale removes the directories of throwaway clusters whose test
// process is gone (killed before it could remove them) and whose server has
// exited with it.
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempPrefix+"*-*"))
	for _, dir := range dirs {
		owner, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(dir), tempPrefix), "-")
		pid, err := strconv.Atoi(owner)
		if !ok || err != nil || alive(pid) {
			continue
		}
		if pm, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid")); err == nil {
			server, _, _ := strings.Cut(string(pm), "\n")
			if pid, err := strconv.Atoi(server); err == nil && alive(pid) {
				continue
			}
		}
		os.RemoveAll(dir)
	}
}

// alive reports whether a process pid exists (even one we may not signal).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// freePort returns a loopback port nothing listens on right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
