package client

import (
	"fmt"
	"os"
	"testing"

	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/storetest"
)

// The tests talk to a real pactd on a temporary SQLite database: one
// shared server for the endpoint tests (each test makes its own account),
// plus private ones where a test needs to control the server's life.
var (
	pactdBin    string
	sharedPactd *pactdtest.Server
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "pact-client-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Built once for the whole go test run (storetest.BuildProgram).
	pactdBin, err = storetest.BuildProgram(pactdtest.Package, pactdtest.BuildFlags...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sharedPactd, err = pactdtest.Start(pactdBin, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := storetest.WithPostgres(m).Run() // which removes what BuildProgram built
	if err := sharedPactd.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "pactd logs:\n%s\n", sharedPactd.Logs())
	}
	return code
}
