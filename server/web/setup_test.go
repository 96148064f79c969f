package web_test

import (
	"encoding/json"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// Shared with the other server test packages.
var (
	packDoc     = servertest.PackDoc
	eachBackend = servertest.EachBackend
	wantStatus  = servertest.WantStatus
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
