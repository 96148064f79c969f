package web_test

import (
	"os"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
)

// TestMain runs the tests through storetest, which gives them a throwaway
// PostgreSQL when PACT_TEST_POSTGRES_URL is not set and removes it after.
// The browser tests' shared Chromium, if one started, stops after them.
func TestMain(m *testing.M) {
	code := storetest.WithPostgres(m).Run()
	sharedChromium.close()
	os.Exit(code)
}
