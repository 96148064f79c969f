package main

import (
	"strings"
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/token"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

func TestParseExpiresIn(t *testing.T) {
	tests := []struct {
		in   string
		days int
		ok   bool
	}{
		{"30d", 30, true},
		{"30", 30, true},
		{"1", 1, true},
		{"3650d", 3650, true},
		{"90D", 90, true},
		{"never", 0, true},
		{"0", 0, false},
		{"3651", 0, false},
		{"30h", 0, false},
		{"720h", 0, false},
		{"-1d", 0, false},
		{"+5", 0, false},
		{"d", 0, false},
		{"", 0, false},
		{"1.5d", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			days, err := token.ParseExpiresIn(tc.in)
			if (err == nil) != tc.ok || days != tc.days {
				t.Errorf("parseExpiresIn(%q) = %d, %v", tc.in, days, err)
			}
			if err != nil {
				if code, _ := cmdutil.ExitStatus(err); code != cmdutil.ExitUsage {
					t.Errorf("exit code %d, want %d", code, cmdutil.ExitUsage)
				}
			}
		})
	}
}

// On a terminal, token create says how to log in with the new token.
func TestTokenCreateHintsAtLoginOnATerminal(t *testing.T) {
	srv, token, _ := startAlice(t)
	for _, tty := range []bool{false, true} {
		ios, stdout, stderr := iostreams.Test("")
		ios.StdoutTTY = tty
		code := mainRun([]string{"--host", srv.URL, "--token", token, "token", "create", "--name", "hint"}, ios)
		if code != 0 || !strings.HasPrefix(stdout.String(), "pact_") || strings.Count(stdout.String(), "\n") != 1 {
			t.Fatalf("tty %v: exit %d, stdout %q, stderr %q", tty, code, stdout, stderr)
		}
		if hint := strings.Contains(stderr.String(), "run 'pact login --token-stdin' and paste it"); hint != tty {
			t.Errorf("tty %v: stderr %q; want the login hint only on a terminal", tty, stderr)
		}
	}
}
