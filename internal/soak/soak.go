// Package soak says how large the tests' floods are.
//
// A few tests flood the registry to show that a bound holds: 10,000
// device logins filling the registry's cap on them, 10,100 anonymous
// passkey log-ins (the review's flood). At full size, every request under
// the race detector, they cost about a minute of CPU, a tenth of the
// suite's. A contributor's run floods a tenth as much through the same
// code, against a cap lowered for the test where the flood must fill one;
// CI sets PACT_TEST_SOAK=1 (.ci/run) and runs them at full size.
package soak

import "os"

// Env is the variable that turns full-size floods on.
const Env = "PACT_TEST_SOAK"

// On reports whether floods run at full size.
func On() bool { return os.Getenv(Env) == "1" }

// Size is full when floods run at full size, else short.
func Size(full, short int) int {
	if On() {
		return full
	}
	return short
}
