package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// packDoc is a pack document with the given name and version around some
// prose, as users write them.
func packDoc(name, version string, extra ...string) string {
	return fmt.Sprintf("# %s\n\nSome prose about the pack.\n\n```yaml pact:pack\nname: %s\nversion: %s\n%s```\n\nMore prose.\n",
		name, name, version, strings.Join(extra, ""))
}

// eachBackend runs a test against a fresh server on every store backend.
func eachBackend(t *testing.T, fn func(t *testing.T, env *servertest.Env)) {
	servertest.Backends(t, func(t *testing.T, dsn string) {
		fn(t, servertest.Start(t, dsn, servertest.Options{}))
	})
}

func wantStatus(t *testing.T, got, want int, body []byte) {
	t.Helper()
	if got != want {
		t.Fatalf("status = %d, want %d; body: %s", got, want, body)
	}
}

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
