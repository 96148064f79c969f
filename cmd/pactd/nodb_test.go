package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/pactdtest"
)

// Host commands other than serve and migrate never create a database: run
// where there is none, each says so, exits 2 and leaves the directory as
// it was, instead of making ./pact.db and answering from an empty registry.
func TestHostCommandsNeverCreateADatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(t *testing.T, env []string, stdin string, args ...string) result {
		t.Helper()
		cmd := exec.Command(pactdBin, args...)
		cmd.Dir = dir
		cmd.Env = append(pactdtest.CleanEnv(), env...)
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{stdout.String(), stderr.String(), code}
	}
	commands := [][]string{
		{"user", "list"},
		{"user", "list", "--json"},
		{"user", "create", "--email", "a@example.com", "--username", "alice", "--password-stdin"},
		{"user", "passwd", "alice", "--password-stdin"},
		{"user", "disable", "alice"},
		{"user", "enable", "alice"},
		{"token", "create", "--user", "alice"},
		{"token", "list", "--user", "alice"},
		{"token", "revoke", "3"},
		{"log", "key"},
		{"log", "check"},
		{"dump"},
		{"dump", "-o", "backup.jsonl"},
	}
	elsewhere := filepath.Join(dir, "typo.db")
	for _, args := range commands {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			for _, c := range []struct {
				how  string
				env  []string
				args []string
				path string
			}{
				{"default", nil, args, "./pact.db"},
				{"--db", nil, append(args[:len(args):len(args)], "--db", elsewhere), elsewhere},
				{"PACTD_DB", []string{"PACTD_DB=" + elsewhere}, args, elsewhere},
			} {
				r := run(t, c.env, "long enough\n", c.args...)
				want := "pactd: no database at " + c.path + ": pass --db or set PACTD_DB, or make a new one with pactd migrate\n"
				if r.code != 2 || r.stderr != want || r.stdout != "" {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing and %q", c.how, r.code, r.stdout, r.stderr, want)
				}
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("the directory holds %v", entries)
			}
		})
	}
}

// A group of commands given an unknown subcommand is a usage error (exit 2)
// with a suggestion when one is near, as pact's are; alone it prints its
// help.
func TestUnknownSubcommandsAreRefused(t *testing.T) {
	db := migrated(t, filepath.Join(t.TempDir(), "pact.db"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"user", "delete", "bob"}, `pactd: unknown command "delete" for "pactd user" (see 'pactd user --help')` + "\n"},
		{[]string{"token", "revok", "3"}, `pactd: unknown command "revok" for "pactd token"; did you mean revoke? (see 'pactd token --help')` + "\n"},
		{[]string{"log", "chek"}, `pactd: unknown command "chek" for "pactd log"; did you mean check? (see 'pactd log --help')` + "\n"},
		{[]string{"user", "lst"}, `pactd: unknown command "lst" for "pactd user"; did you mean list? (see 'pactd user --help')` + "\n"},
	} {
		r := pactd(t, []string{"PACTD_DB=" + db}, "", c.args...)
		if r.code != 2 || r.stderr != c.want || r.stdout != "" {
			t.Errorf("pactd %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.want)
		}
	}
	for _, group := range []string{"user", "token", "log"} {
		r := pactd(t, nil, "", group)
		if r.code != 0 || !strings.Contains(r.stdout, "Available Commands:") {
			t.Errorf("pactd %s: exit %d, stdout %q", group, r.code, r.stdout)
		}
	}
}
