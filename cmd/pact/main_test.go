package main

import (
	"strings"
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

func TestMainRunRedactsTheToken(t *testing.T) {
	// A host whose path is the token would put it in an error message; the
	// last guard in mainRun must hide it.
	const token = "pact_SecretSecretSecretSecretSecretSecret0000"
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PACT_HOST", "http://127.0.0.1:1/"+token)
	t.Setenv("PACT_TOKEN", token)
	ios, stdout, stderr := iostreams.Test("")
	// --debug prints the failed request's address, where the token is.
	code := mainRun([]string{"--debug", "--timeout", "10s", "whoami"}, ios)
	if code != cmdutil.ExitError || strings.Contains(stderr.String(), token) || stdout.Len() != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "[token]") {
		t.Errorf("stderr %q does not show where the token was hidden", stderr.String())
	}
}
