package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

func TestExitStatus(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode int
		wantMsg  string
	}{
		{"success", nil, 0, ""},
		{"usage", cmdutil.UsageErrorf("bad flag"), 2, "bad flag"},
		{"401", &client.APIError{StatusCode: 401, Message: "missing or invalid API token", BaseURL: "https://Pact.Example.com:443"}, 3,
			"https://pact.example.com refused the token (401): missing or invalid API token; log in again with 'pact login --host https://pact.example.com'"},
		{"401 wrapped", fmt.Errorf("x.pact.md: %w", &client.APIError{StatusCode: 401, Message: "missing or invalid API token", BaseURL: "http://localhost:8080"}), 3,
			"x.pact.md: http://localhost:8080 refused the token (401): missing or invalid API token; log in again with 'pact login --host http://localhost:8080'"},
		{"401 without a token", fmt.Errorf("x.pact.md: %w", &client.APIError{StatusCode: 401, Message: "missing API token: send Authorization: Bearer <token> or X-Pact-Token: <token>"}),
			3, "x.pact.md: not logged in: no API token is configured; run 'pact login' or set PACT_TOKEN"},
		{"401 expired", &client.APIError{StatusCode: 401, Message: "this API token expired at 2026-11-22T22:00:00Z; make a new one", BaseURL: "https://pact.example.com"},
			3, "https://pact.example.com refused the token (401): this API token expired at 2026-11-22T22:00:00Z; make a new one; log in again with 'pact login --host https://pact.example.com'"},
		{"404 wrapped", fmt.Errorf("x: %w", &client.APIError{StatusCode: 404, Message: "package a/b not found"}), 4, "package a/b not found"},
		{"409", &client.APIError{StatusCode: 409, Message: "exists"}, 5, "exists"},
		{"400", &client.APIError{StatusCode: 400, Message: "bad signature"}, 5, "bad signature"},
		{"413", &client.APIError{StatusCode: 413, Message: "too large"}, 5, "too large"},
		{"429 after retries", &client.APIError{StatusCode: 429, Message: "slow down"}, 5, "slow down"},
		{"500", &client.APIError{StatusCode: 500, Message: "internal error"}, 1, "internal error"},
		{"503", &client.APIError{StatusCode: 503, Message: "unavailable"}, 1, "unavailable"},
		{"unreachable", &url.Error{Op: "Get", URL: "http://localhost:8080/api/me", Err: errors.New("connection refused")}, 1, "cannot reach the registry at localhost:8080: connection refused"},
		{"interrupted", context.Canceled, 1, "interrupted"},
		{"verification", fmt.Errorf("alice/widget 1.0.0: %w; nothing written", &client.VerificationError{Check: "entry", Msg: "the document's sha256 differs from the logged one"}), 6, "alice/widget 1.0.0: the document's sha256 differs from the logged one; nothing written"},
		{"already reported", &cmdutil.SilentError{Code: 1}, 1, ""},
		{"local", errors.New("reading x: no such file"), 1, "reading x: no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := cmdutil.ExitStatus(tc.err)
			if code != tc.wantCode || !strings.Contains(msg, tc.wantMsg) || (tc.wantMsg == "" && msg != "") {
				t.Errorf("exitStatus = %d %q, want %d and a message holding %q", code, msg, tc.wantCode, tc.wantMsg)
			}
		})
	}
}

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

func TestColorWanted(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{"terminal", true, nil, true},
		{"not a terminal", false, nil, false},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, false},
		{"dumb terminal", true, map[string]string{"TERM": "dumb"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := iostreams.ColorWanted(tc.terminal, func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("colorWanted = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMessagesAreUncolouredOffTerminals(t *testing.T) {
	ios, _, stderr := iostreams.Test("")
	ios.Success("done %d", 1)
	if stderr.String() != "✓ done 1\n" || strings.Contains(ios.ErrorPrefix(), "\x1b") {
		t.Errorf("stderr %q, error prefix %q", stderr.String(), ios.ErrorPrefix())
	}
	ios.Color = true
	if !strings.Contains(ios.ErrorPrefix(), "\x1b[31m") {
		t.Error("no colour on a colour terminal")
	}
}
