// Command pact publishes, finds and fetches pack documents on a pact
// registry. Run "pact --help" for the commands.
package main

import "os"

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
func mainRun(args []string, ios *iostreams) int {
	return runPact(args, ios, buildInfo{Version: version, Commit: commit, Date: date})
}

// systemIO is the process's standard streams.
func systemIO() *iostreams { return newSystemIO() }
