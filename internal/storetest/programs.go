package storetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// BuildProgram builds the command pkg (an import path of this module, such
// as github.com/pact-registry/pact/cmd/pactd) with the go build flags
// flags, once per go test run, and answers the binary's path. Under the go
// command the binary lives in the run's directory (see runDir), so every
// test process of the run shares it and it is removed when the run ends,
// with the run's throwaway PostgreSQL; a test binary run by anything else
// builds it once into a directory of its own, removed when its tests end
// (WithPostgres). A build under -race takes seconds to a minute on a busy
// machine, which every test that needs a daemon would otherwise pay.
func BuildProgram(pkg string, flags ...string) (string, error) {
	key := pkg + "\x00" + strings.Join(flags, "\x00")
	programs.mu.Lock()
	defer programs.mu.Unlock()
	if p, ok := programs.built[key]; ok {
		return p.path, p.err
	}
	// Named as go build names it (scripts run "pactd"), in a directory of
	// its package and flags.
	sum := sha256.Sum256([]byte(key))
	name := filepath.Join(hex.EncodeToString(sum[:6]), filepath.Base(pkg))
	var p builtProgram
	if gopid := goCommandPID(); gopid != 0 {
		p.path, p.err = buildInRun(gopid, name, pkg, flags)
	} else {
		if programs.dir == "" {
			programs.dir, p.err = os.MkdirTemp("", "pact-test-programs-")
		}
		if p.err == nil {
			p.path = filepath.Join(programs.dir, name)
			if p.err = os.MkdirAll(filepath.Dir(p.path), 0o755); p.err == nil {
				p.err = goBuild(p.path, pkg, flags)
			}
		}
	}
	if programs.built == nil {
		programs.built = map[string]builtProgram{}
	}
	programs.built[key] = p
	return p.path, p.err
}

type builtProgram struct {
	path string
	err  error
}

// programs are the programs this process built or found built.
var programs struct {
	mu    sync.Mutex
	built map[string]builtProgram // by package and flags
	dir   string                  // this process's own, when not run by go
}

// removePrograms removes this process's own directory of programs.
func removePrograms() error {
	programs.mu.Lock()
	defer programs.mu.Unlock()
	if programs.dir == "" {
		return nil
	}
	err := os.RemoveAll(programs.dir)
	programs.dir, programs.built = "", nil
	return err
}

// buildInRun builds the program into the run's directory unless another
// test process of the run has; a lock of the program's own makes the
// others wait for the one building it.
func buildInRun(gopid int, name, pkg string, flags []string) (string, error) {
	dir, unlock, err := lockRun(gopid) // makes the directory and the watchdog that removes it
	if err != nil {
		return "", err
	}
	unlock()
	bin := filepath.Join(dir, "bin", name)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(bin+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := bin + ".tmp"
	if err := goBuild(tmp, pkg, flags); err != nil {
		return "", err
	}
	return bin, os.Rename(tmp, bin)
}

func goBuild(out, pkg string, flags []string) error {
	args := append(append([]string{"build"}, flags...), "-o", out, pkg)
	cmd := exec.Command("go", args...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, output.String())
	}
	return nil
}
