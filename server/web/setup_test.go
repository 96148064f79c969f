package web_test

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

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
