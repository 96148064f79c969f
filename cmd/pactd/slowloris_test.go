package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
)

// slowConn is a raw client connection that sends its request a byte at a
// time, the way a slowloris attacker holds server connections open.
type slowConn struct {
	conn   net.Conn
	closed chan struct{} // closed once the server has ended the connection
	reply  []byte        // whatever the server sent before closing
}

// dialSlow connects to srv and writes head at once, then trickles one
// byte of trickle every interval until the server cuts the connection or
// stop is closed.
func dialSlow(t *testing.T, srv *pactdtest.Server, head, trickle string, interval time.Duration, stop <-chan struct{}) *slowConn {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	// pactd listens on 127.0.0.1; its base URL says localhost.
	conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", u.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	c := &slowConn{conn: conn, closed: make(chan struct{})}
	go func() {
		defer close(c.closed)
		c.reply, _ = io.ReadAll(conn) // returns at EOF or a reset
	}()
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-c.closed:
				return
			case <-tick.C:
			}
			if _, err := conn.Write([]byte{trickle[i%len(trickle)]}); err != nil {
				return
			}
		}
	}()
	return c
}

// cutOff waits up to within for the server to close every connection and
// returns how many it left open.
func cutOff(conns []*slowConn, within time.Duration) (open int) {
	deadline := time.After(within)
	for _, c := range conns {
		select {
		case <-c.closed:
		case <-deadline:
			return len(conns) - countClosed(conns)
		}
	}
	return 0
}

func countClosed(conns []*slowConn) int {
	n := 0
	for _, c := range conns {
		select {
		case <-c.closed:
			n++
		default:
		}
	}
	return n
}

// Fifty clients that trickle their headers are disconnected once
// --read-header-timeout passes, and a normal client is served meanwhile.
func TestSlowHeadersAreCutOff(t *testing.T) {
	srv, err := pactdtest.StartDB(pactdBin, filepath.Join(t.TempDir(), "pact.db"), "--read-header-timeout", "1s")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	stop := make(chan struct{})
	defer close(stop)

	const attackers = 50
	var conns []*slowConn
	for range attackers {
		conns = append(conns, dialSlow(t, srv, "GET /api/packages HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", "abcdefgh", 100*time.Millisecond, stop))
	}
	user := newAPIUser(srv.URL, "", 1)
	status, _, body, err := user.get("/api/packages")
	if err != nil || status != http.StatusOK {
		t.Fatalf("a normal client while %d connections trickle headers: status %d, error %v: %s", attackers, status, err, body)
	}
	// The trickle would go on for as long as the test runs; pactd's default
	// header timeout is 10s, so closing within 8s shows the flag at work.
	if open := cutOff(conns, 8*time.Second); open > 0 {
		t.Fatalf("%d of %d slow-header connections still open 8s after a 1s --read-header-timeout", open, attackers)
	}
	for i, c := range conns {
		if strings.HasPrefix(string(c.reply), "HTTP/1.1 2") {
			t.Errorf("slow connection %d was answered as if its request were complete: %.80q", i, c.reply)
		}
	}
	if status, _, body, err := user.get("/healthz"); err != nil || status != http.StatusOK {
		t.Errorf("after the slow connections were cut: status %d, error %v: %s", status, err, body)
	}
}

// A publish whose body trickles in is cut off by --read-timeout: the
// connection ends, nothing is stored, and publishing still works.
func TestSlowPublishBodyIsCutOff(t *testing.T) {
	srv, token := startWithToken(t, "alice", filepath.Join(t.TempDir(), "pact.db"), "--read-timeout", "2s")
	stop := make(chan struct{})
	defer close(stop)

	body := fmt.Sprintf(`{"content": %q}`, packDoc("slow", "1.0.0", 2000))
	head := "POST /api/publish HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + token +
		"\r\nContent-Type: application/json\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n"
	// At 10 bytes a second the body would take minutes to arrive.
	slow := dialSlow(t, srv, head, body, 100*time.Millisecond, stop)
	if open := cutOff([]*slowConn{slow}, 30*time.Second); open > 0 {
		t.Fatalf("a publish trickling its body is still open 30s after a 2s --read-timeout (default 60s)")
	}
	if reply, _ := http.ReadResponse(bufio.NewReader(strings.NewReader(string(slow.reply))), nil); reply != nil && reply.StatusCode == http.StatusOK {
		t.Errorf("the cut-off publish was answered 200")
	}

	user := newAPIUser(srv.URL, token, 1)
	if v := user.versions(t, "alice", "slow"); v != nil {
		t.Errorf("the cut-off publish was stored: %+v", v)
	}
	content := packDoc("slow", "1.0.0", 2000)
	if status, body, err := user.publish(content); err != nil || status != http.StatusOK {
		t.Fatalf("the same publish sent at once: status %d, error %v: %s", status, err, body)
	}
	user.checkDocument(t, "alice", "slow", "1.0.0", content, "")
}

// Timeouts of zero or less would let one client hold a connection forever.
func TestServeRefusesTimeoutsThatAreNotPositive(t *testing.T) {
	for _, flag := range []string{"--read-header-timeout", "--read-timeout", "--write-timeout", "--idle-timeout"} {
		for _, value := range []string{"0s", "-1s"} {
			r := pactd(t, nil, "", "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "p.db"), flag, value)
			if r.code != 2 || !strings.Contains(r.stderr, flag) {
				t.Errorf("serve %s %s: exit code %d (want 2), stderr %q", flag, value, r.code, r.stderr)
			}
		}
	}
}
