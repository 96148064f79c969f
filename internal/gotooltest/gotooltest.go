// Package gotooltest finds the programs the tests run that are installed
// with `go install` (litewitness, tessera's fsck) rather than from the
// system's packages.
package gotooltest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
)

// Require answers the path of the program name in $(go env GOPATH)/bin,
// where install (a `go install` command line) puts it and .ci/run installs
// it, or else on PATH. GOPATH comes first because some names are also
// system programs' (tessera's fsck is not /usr/sbin/fsck). Without it the
// test is skipped, and the run ends with a line saying how to install it
// (storetest.SkipMissing), except in CI (CI=true), where it fails.
func Require(t testing.TB, name, install string) string {
	t.Helper()
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			path := filepath.Join(dir, "bin", name)
			if _, err := os.Stat(path); err == nil {
				return path
			}
		}
	}
	if path, err := exec.LookPath(name); err == nil && !strings.HasSuffix(filepath.Dir(path), "sbin") {
		return path
	}
	storetest.SkipMissing(t, name, install, name+" is not installed (on PATH or in $(go env GOPATH)/bin)")
	return ""
}
