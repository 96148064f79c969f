package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"testing"

	versioncmd "github.com/pact-registry/pact/cmd/pact/internal/cmd/version"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
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
	var got cmdutil.BuildInfo
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := cmdutil.BuildInfo{Version: "1.2.3", Commit: "abc1234", Date: "2025-01-02T03:04:05Z"}
	if got != want {
		t.Errorf("version --json = %+v, want %+v", got, want)
	}
}

// A build without -ldflags (go install, go build in a checkout) reads what
// it can from the build information Go records in the binary; what
// -ldflags set stays. The build infos are shaped as Go 1.26 records them.
func TestVersionFromBuildInfo(t *testing.T) {
	unset := cmdutil.BuildInfo{Version: "dev", Commit: "none", Date: "unknown"}
	checkout := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "f2821c314c786ad10f861401163f10c901e47d8c"},
		{Key: "vcs.time", Value: "2026-11-29T06:07:07Z"},
		{Key: "vcs.modified", Value: "false"},
	}
	modified := append(slices.Clone(checkout[:3]), debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	for _, tc := range []struct {
		name  string
		build cmdutil.BuildInfo
		info  *debug.BuildInfo
		want  cmdutil.BuildInfo
	}{
		{"go install of a release", unset,
			&debug.BuildInfo{Main: debug.Module{Path: "github.com/pact-registry/pact", Version: "v1.4.0"}},
			cmdutil.BuildInfo{Version: "v1.4.0", Commit: "none", Date: "unknown"}},
		{"go install of a commit", unset,
			&debug.BuildInfo{Main: debug.Module{Version: "v1.4.1-0.20261129060707-f2821c314c78"}},
			cmdutil.BuildInfo{Version: "v1.4.1-0.20261129060707-f2821c314c78", Commit: "f2821c314c78", Date: "unknown"}},
		{"go build in a checkout", unset,
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129060707-f2821c314c78"}, Settings: checkout},
			cmdutil.BuildInfo{Version: "v0.0.0-20261129060707-f2821c314c78", Commit: "f2821c314c78", Date: "2026-11-29T06:07:07Z"}},
		{"go build in a checkout with changes", unset,
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129060707-f2821c314c78+dirty"}, Settings: modified},
			cmdutil.BuildInfo{Version: "v0.0.0-20261129060707-f2821c314c78+dirty", Commit: "f2821c314c78+dirty", Date: "2026-11-29T06:07:07Z"}},
		{"go build without VCS information", unset,
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			unset},
		{"a release build keeps what -ldflags set", cmdutil.BuildInfo{Version: "1.2.3", Commit: "abc1234", Date: "2025-01-02T03:04:05Z"},
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129060707-f2821c314c78"}, Settings: checkout},
			cmdutil.BuildInfo{Version: "1.2.3", Commit: "abc1234", Date: "2025-01-02T03:04:05Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versioncmd.CompleteBuild(tc.build, tc.info, true); got != tc.want {
				t.Errorf("completeBuild = %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := versioncmd.CompleteBuild(unset, nil, false); got != unset {
		t.Errorf("without build information: %+v, want %+v", got, unset)
	}
}
