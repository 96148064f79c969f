package main

import (
	"strings"
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

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
