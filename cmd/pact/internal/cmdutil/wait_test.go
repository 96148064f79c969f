package cmdutil

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

func TestHostAddressAssumesAScheme(t *testing.T) {
	for in, want := range map[string]string{
		"pact.example.com":           "https://pact.example.com",
		"pact.example.com:8443":      "https://pact.example.com:8443",
		"localhost:8080":             "http://localhost:8080",
		"localhost":                  "http://localhost",
		"127.0.0.1:9000":             "http://127.0.0.1:9000",
		"127.8.9.10":                 "http://127.8.9.10",
		"[::1]:8080":                 "http://[::1]:8080",
		"10.0.0.1:8080":              "https://10.0.0.1:8080",
		"http://pact.example.com":    "http://pact.example.com",
		"https://localhost:8080":     "https://localhost:8080",
		"pact.example.com/registry":  "https://pact.example.com/registry",
		"localhost.example.com:8080": "https://localhost.example.com:8080",
		"dev.localhost:8080":         "http://dev.localhost:8080",
	} {
		if got := HostAddress(in); got != want {
			t.Errorf("hostAddress(%q) = %q, want %q", in, got, want)
		}
	}
}

// "cannot reach" says so when the host is pact's default, which the user
// may never have chosen.
func TestCannotReachNamesTheDefaultHost(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: DefaultHost + "/api/me", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}

	f := &Factory{cfg: &Config{Host: DefaultHost, HostIsDefault: true}}
	code, msg := ExitStatus(f.Explain(refused))
	want := "cannot reach the registry at localhost:8080, the default host since no --host, PACT_HOST or 'pact login' names another: connection refused"
	if code != ExitError || msg != want {
		t.Errorf("default host: exit %d %q, want %q", code, msg, want)
	}

	f = &Factory{cfg: &Config{Host: DefaultHost, HostIsDefault: false}}
	code, msg = ExitStatus(f.Explain(refused))
	if code != ExitError || msg != "cannot reach the registry at localhost:8080: connection refused" || strings.Contains(msg, "default") {
		t.Errorf("chosen host: exit %d %q", code, msg)
	}
}

// Each retry says why pact waits: the reasons come from real failures.
func TestRetryNoticeSaysWhy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held unanswered until the listener closes
		}
	}()
	host := "http://" + ln.Addr().String()
	_, silent := (&http.Client{Timeout: 100 * time.Millisecond}).Get(host + "/api/me")
	if silent == nil {
		t.Fatal("a server that never answers answered")
	}

	for _, tc := range []struct {
		retry client.Retry
		want  string
	}{
		{client.Retry{Attempt: 2, MaxAttempts: 4, Wait: 5 * time.Second, Status: 429, Err: &client.APIError{StatusCode: 429, Message: "slow down"}},
			"rate limited, retrying in 5 s (2/4)\n"},
		{client.Retry{Attempt: 3, MaxAttempts: 4, Wait: 400 * time.Millisecond, Err: silent},
			"no answer from " + ln.Addr().String() + ", retrying in 0.4 s (3/4)\n"},
		{client.Retry{Attempt: 2, MaxAttempts: 4, Wait: time.Second, Status: 503, Err: &client.APIError{StatusCode: 503, Message: "the database is unavailable"}},
			"the registry failed (the database is unavailable), retrying in 1 s (2/4)\n"},
	} {
		ios, _, stderr := iostreams.Test("")
		f := &Factory{IO: ios}
		f.RetryNotice(host, tc.retry)
		if stderr.String() != tc.want {
			t.Errorf("notice %q, want %q", stderr.String(), tc.want)
		}
	}
}
