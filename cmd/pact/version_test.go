package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// The release build sets main.version, main.commit and main.date with
// -ldflags -X (.goreleaser.yaml); this checks those names are the real ones.
func TestVersionIsSetAtLinkTime(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds pact")
	}
	bin := filepath.Join(t.TempDir(), "pact")
	build := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X main.version=1.2.3 -X main.commit=abc1234 -X main.date=2025-01-02T03:04:05Z", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var got buildInfo
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := buildInfo{Version: "1.2.3", Commit: "abc1234", Date: "2025-01-02T03:04:05Z"}
	if got != want {
		t.Errorf("version --json = %+v, want %+v", got, want)
	}
}
