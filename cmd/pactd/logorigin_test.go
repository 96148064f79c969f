package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/pactdtest"
)

// TestLogOriginWarnings: the log's name (its origin) is fixed at its first
// start; pactd warns when a start does not fit it: listening where others
// reach it without --base-url (the log would be localhost's), a base URL
// on another host, a --log-origin that is not the log's name.
func TestLogOriginWarnings(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pact.db")
	start := func(addr string, args ...string) string {
		t.Helper()
		srv, err := pactdtest.StartDBAt(pactdBin, db, addr, args...)
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Stop(); err != nil {
			t.Fatal(err)
		}
		return srv.Logs()
	}
	const unnamed = "without --base-url"
	const another = "not after --base-url's host (pact.example.com/log)"

	logs := start("0.0.0.0:0")
	if !strings.Contains(logs, unnamed) || !strings.Contains(logs, "the transparency log is named localhost:") {
		t.Errorf("a start on every address without --base-url does not warn that the log is localhost's:\n%s", logs)
	}
	logs = start("127.0.0.1:0", "--base-url", "https://pact.example.com")
	if !strings.Contains(logs, another) {
		t.Errorf("a start whose base URL is on another host than the log's name does not warn:\n%s", logs)
	}
	logs = start("127.0.0.1:0", "--log-origin", "pact.example.com/log")
	if !strings.Contains(logs, "--log-origin pact.example.com/log is not the log's name") {
		t.Errorf("a --log-origin that is not the log's name is not warned of:\n%s", logs)
	}

	// Named right at the first start: no warning, on loopback or with a base URL.
	fresh := filepath.Join(t.TempDir(), "pact.db")
	srv, err := pactdtest.StartDBAt(pactdBin, fresh, "0.0.0.0:0", "--base-url", "https://pact.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	key, err := exec.Command(pactdBin, "log", "key", "--db", fresh).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(key), "pact.example.com/log+") {
		t.Errorf("the log of a first start with --base-url is not named after its host: %s, %v", key, err)
	}
	if logs := srv.Logs(); strings.Contains(logs, unnamed) || strings.Contains(logs, "not after --base-url") {
		t.Errorf("a start that names its log right warns:\n%s", logs)
	}
	if logs := start("127.0.0.1:0"); strings.Contains(logs, unnamed) || strings.Contains(logs, "not the log's name") {
		t.Errorf("a start on loopback warns:\n%s", logs)
	}
}
