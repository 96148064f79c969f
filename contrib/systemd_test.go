package contrib_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pactd.service passes systemd-analyze verify (which needs no
// running systemd), run on a copy whose ExecStart is the pactd under test:
// verify checks that the program exists.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("systemd-analyze is missing: .ci/run installs Debian's systemd package for it")
		}
		t.Skip("systemd-analyze is not installed (Debian's systemd package)")
	}
	unit, err := os.ReadFile("pactd.service")
	if err != nil {
		t.Fatal(err)
	}
	const installed = "ExecStart=/usr/local/bin/pactd serve\n"
	if !strings.Contains(string(unit), installed) {
		t.Fatalf("the unit does not start %q", installed)
	}
	for _, want := range []string{"DynamicUser=yes", "StateDirectory=pactd", "ProtectSystem=strict", "NoNewPrivileges=yes",
		"PrivateTmp=yes", "ProtectHome=yes", "RestrictAddressFamilies=", "SystemCallFilter=@system-service"} {
		if !strings.Contains(string(unit), "\n"+want) {
			t.Errorf("the unit lacks %s", want)
		}
	}
	copied := filepath.Join(t.TempDir(), "pactd.service")
	local := strings.Replace(string(unit), installed, "ExecStart="+pactdBin+" serve\n", 1)
	if err := os.WriteFile(copied, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", copied).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify contrib/pactd.service: %v\n%s", err, out)
	}
}
