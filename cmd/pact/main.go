// Command pact publishes, finds and fetches pack documents on a pact
// registry. Run "pact --help" for the commands.
package main

import (
	"os"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/root"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

// Set at link time by -ldflags "-X main.version=... -X main.commit=... -X main.date=...";
// a build without them reads what it can from its build information
// (completeBuild).
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func main() {
	os.Exit(mainRun(os.Args[1:], systemIO()))
}

// mainRun runs pact with args and returns the exit code.
func mainRun(args []string, ios *iostreams.IOStreams) int {
	return root.Run(args, ios, cmdutil.BuildInfo{Version: version, Commit: commit, Date: date})
}

// systemIO is the process's standard streams.
func systemIO() *iostreams.IOStreams { return iostreams.System() }
