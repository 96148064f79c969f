//go:build race

package server_test

// raceEnabled: the race detector slows each request tenfold, so the
// longest request floods send a sample.
const raceEnabled = true
