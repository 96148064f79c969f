package main

import (
	"net"
	"testing"
	"time"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

// A server that accepts and never answers would keep a command silent for
// four attempts of 30 s; --timeout ends it, with a message saying why.
func TestTimeoutEndsACommandAtASilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	held := make(chan net.Conn, 16)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			held <- conn // never read, never answered
		}
	}()
	defer func() {
		for len(held) > 0 {
			(<-held).Close()
		}
	}()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PACT_TOKEN", "pact_x")
	t.Setenv("PACT_TIMEOUT", "")

	ios, stdout, stderr := iostreams.Test("")
	start := time.Now()
	code := mainRun([]string{"--host", "http://" + ln.Addr().String(), "--timeout", "1s", "whoami"}, ios)
	took := time.Since(start)
	want := "error: gave up after 1s (--timeout): no answer from " + ln.Addr().String() + "\n"
	if code != cmdutil.ExitError || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("exit %d, stderr %q, want exit 1 and %q", code, stderr.String(), want)
	}
	// Far from the two minutes of retries without --timeout; a loose bound
	// for a loaded machine.
	if took > 15*time.Second {
		t.Errorf("pact whoami took %s with --timeout 1s", took)
	}
}
