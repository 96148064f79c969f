package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A SQLite --db inside a directory that does not exist is refused by every
// command, naming the directory, and nothing is made.
func TestDBInMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir")
	db := filepath.Join(missing, "pact.db")
	notDir := filepath.Join(dir, "a-file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"serve", []string{"serve", "--addr", "127.0.0.1:0", "--db", db}, 1, "the directory " + missing + " does not exist"},
		{"serve, a file: URI", []string{"serve", "--addr", "127.0.0.1:0", "--db", "file:" + db + "?_busy_timeout=10"}, 1, "the directory " + missing + " does not exist"},
		{"migrate", []string{"migrate", "--db", db}, 1, "the directory " + missing + " does not exist"},
		// The other commands never make a database, nor its directory.
		{"user list", []string{"user", "list", "--db", db}, 2, "no database at " + db + ": pass --db or set PACTD_DB, or make a new one with pactd migrate"},
		{"a file where the directory should be", []string{"user", "list", "--db", filepath.Join(notDir, "pact.db")}, 1, notDir + " is not a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := pactd(t, nil, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "unavailable") {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("%s was made (%v)", missing, err)
	}
	// Once the directory exists, the same --db works.
	if err := os.Mkdir(missing, 0o700); err != nil {
		t.Fatal(err)
	}
	if r := pactd(t, nil, "", "migrate", "--db", db); r.code != 0 {
		t.Errorf("migrate once the directory exists: exit %d, stderr %q", r.code, r.stderr)
	}
}
