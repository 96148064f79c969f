// Package seedtest fills a test's database with many packages at once,
// straight through the store (sqlstore.Store.Seed), from a program built
// once per go test run without the race detector: under it, seeding 20,000
// packages took the test process about six times as long (117 s against
// 19 s, measured side by side), and the race detector has nothing to find
// in a loop of inserts that the store's own tests already cover.
package seedtest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// Package is one package to seed: its only version, unsigned, published by
// a token at Now. SHA256 is stored as given (Seed checks nothing).
type Package struct {
	Owner       string    `json:"owner"`
	Pack        string    `json:"pack"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Scheme      string    `json:"scheme"`
	Version     string    `json:"version"`
	Content     []byte    `json:"content"`
	SHA256      string    `json:"sha256"`
	Now         time.Time `json:"now"`
}

// Request is what the program reads on its standard input: the accounts
// to make first (username, email USERNAME@example.com), in order, then the
// packages, Batch to a transaction (0: 5,000).
type Request struct {
	Owners   []string  `json:"owners"`
	Packages []Package `json:"packages"`
	Batch    int       `json:"batch"`
}

// Seed runs the seeding program on dsn (a SQLite file or a postgres://
// URL; migrated first if it is not), failing t if it fails.
func Seed(t testing.TB, dsn string, req Request) {
	t.Helper()
	bin, err := storetest.BuildProgram("github.com/pact-registry/pact/internal/seedtest/cmd/seeddb", "-tags", "nomsgpack,sqlite_fts5")
	if err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-db", dsn)
	cmd.Stdin = bytes.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seeding %d packages: %v\n%s", len(req.Packages), err, out)
	}
}
