package sqlstore_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// A PostgreSQL host that accepts connections but never answers (overloaded,
// half dead) is reported Unavailable after the connect timeout, not after
// the statement timeout: requests fail fast instead of queueing.
func TestPostgresSilentServerIsUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, never answered
		}
	}()

	opened := make(chan error, 1)
	go func() {
		s, err := sqlstore.Open(context.Background(), "postgres://postgres@"+l.Addr().String()+"/postgres?sslmode=disable",
			sqlstore.Options{StatementTimeout: time.Hour})
		if err == nil {
			s.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if code := registry.ErrorCode(err); code != registry.Unavailable {
			t.Fatalf("Open on a silent server: code %q (%v), want %q", code, err, registry.Unavailable)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open on a silent server still waiting after 30s: no connect timeout")
	}
}
