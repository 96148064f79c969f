package version

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/mod/module"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

// Defaults of the link-time variables (main.go), which a build without
// -ldflags -X keeps.
const (
	unsetVersion = "dev"
	unsetCommit  = "none"
	unsetDate    = "unknown"
)

// CompleteBuild fills what -ldflags left unset from the binary's own build
// information (runtime/debug.ReadBuildInfo): 'go install
// module/cmd/pact@v1.2.3' records the module's version, whose
// pseudo-version names the commit; a 'go build' in a git checkout records
// the revision, its time and whether the tree was modified ("+dirty").
func CompleteBuild(b cmdutil.BuildInfo, info *debug.BuildInfo, ok bool) cmdutil.BuildInfo {
	if !ok || info == nil {
		return b
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	v := info.Main.Version
	if b.Version == unsetVersion && v != "" && v != "(devel)" {
		b.Version = v
	}
	if b.Commit == unsetCommit {
		if rev := settings["vcs.revision"]; rev != "" {
			b.Commit = shortRevision(rev)
			if settings["vcs.modified"] == "true" {
				b.Commit += "+dirty"
			}
		} else if module.IsPseudoVersion(strings.TrimSuffix(v, "+dirty")) {
			if rev, err := module.PseudoVersionRev(strings.TrimSuffix(v, "+dirty")); err == nil {
				b.Commit = rev
			}
		}
	}
	if b.Date == unsetDate && settings["vcs.time"] != "" {
		b.Date = settings["vcs.time"]
	}
	return b
}

// shortRevision is a commit hash as git abbreviates it by default.
func shortRevision(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

type versionOptions struct {
	IO    *iostreams.IOStreams
	Build cmdutil.BuildInfo
	JSON  bool
}

func NewVersionCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &versionOptions{IO: f.IO, Build: f.Build}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print pact's version, commit and build date",
		Long: `Print pact's version, the commit it was built from and when. A release
build carries all three. A build without them (go install, go build)
reads them from the binary's build information instead: the module's
version (go install ...@v1.2.3), the commit a pseudo-version or the git
checkout names ("+dirty" when the checkout had changes), and the commit's
time for the date; what no source gives stays dev, none or unknown.`,
		Example: `  $ pact version
  $ pact version --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runVersion(_ context.Context, opts *versionOptions) error {
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, opts.Build)
	}
	_, err := fmt.Fprintf(opts.IO.Out, "pact %s (commit %s, built %s)\n", opts.Build.Version, opts.Build.Commit, opts.Build.Date)
	return err
}
