package client

import "github.com/pact-registry/pact/internal/pactdtest"

// Shared with the external tests of package client_test.
func SharedPactd() *pactdtest.Server { return sharedPactd }
