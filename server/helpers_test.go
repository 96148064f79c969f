package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// Shared with the other server test packages.
var (
	packDoc     = servertest.PackDoc
	eachBackend = servertest.EachBackend
	wantStatus  = servertest.WantStatus
)

// wantError checks an {ok:false,error} answer whose message holds substr.
func wantError(t *testing.T, status int, body map[string]any, wantStatusCode int, substr string) {
	t.Helper()
	if status != wantStatusCode {
		t.Fatalf("status = %d, want %d; body: %v", status, wantStatusCode, body)
	}
	if body["ok"] != false {
		t.Errorf("ok = %v, want false", body["ok"])
	}
	msg, _ := body["error"].(string)
	if !strings.Contains(msg, substr) {
		t.Errorf("error = %q, want it to mention %q", msg, substr)
	}
}

func quoteJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
