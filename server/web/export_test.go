package web

import "testing"

// SetThrottleTableSize bounds the log-in and sign-up tables of the servers
// made until the test ends to n keys each, so that a test can fill them.
// Tests that call it must not run in parallel with others of this package.
func SetThrottleTableSize(t testing.TB, n int) {
	old := maxThrottleKeys
	maxThrottleKeys = n
	t.Cleanup(func() { maxThrottleKeys = old })
}
