package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

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
		{"usage", UsageErrorf("bad flag"), 2, "bad flag"},
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
		{"already reported", &SilentError{Code: 1}, 1, ""},
		{"local", errors.New("reading x: no such file"), 1, "reading x: no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := ExitStatus(tc.err)
			if code != tc.wantCode || !strings.Contains(msg, tc.wantMsg) || (tc.wantMsg == "" && msg != "") {
				t.Errorf("exitStatus = %d %q, want %d and a message holding %q", code, msg, tc.wantCode, tc.wantMsg)
			}
		})
	}
}
