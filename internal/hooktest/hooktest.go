// Package hooktest is a webhook receiver for tests: it checks each
// delivery's Pact-Signature with the hook's secret (pkg/hooksig), records
// what it received, and can answer slowly or with failures first. Tests
// use it in their own process (NewServer) or as a separate process
// (StartProcess, the program cmd/hookreceiver), which a pactd killed with
// SIGKILL mid-delivery does not take down.
package hooktest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/hooksig"
	"github.com/pact-registry/pact/pkg/wire"
)

// Delivery is one request the receiver got.
type Delivery struct {
	Event, ID, Signature string
	Body                 []byte
	// SignatureError is "" when Pact-Signature matched the body under
	// the secret, else why not.
	SignatureError string
	Payload        wire.HookPayload
}

// Behaviour is how the receiver answers.
type Behaviour struct {
	// FailFirst answers 500 to this many requests before answering 200.
	FailFirst int
	// SlowFirst makes the first request wait this long before answering.
	SlowFirst time.Duration
	// Slow makes every request wait this long before answering (after
	// SlowFirst's wait, for the first).
	Slow time.Duration
}

// Handler receives deliveries signed with Secret.
type Handler struct {
	Secret string
	Behaviour
	mu       sync.Mutex
	got      []Delivery
	requests int
	started  chan struct{} // closed when the first request arrives
	once     sync.Once
	// inFlight counts the requests being answered, maxInFlight the most
	// at once.
	inFlight, maxInFlight int
	// released ends every wait (Release).
	released    chan struct{}
	releaseOnce sync.Once
}

// NewHandler makes a Handler.
func NewHandler(secret string, b Behaviour) *Handler {
	return &Handler{Secret: secret, Behaviour: b, started: make(chan struct{}), released: make(chan struct{})}
}

// Release ends the waits of the requests being answered, and of those to
// come: they answer at once.
func (h *Handler) Release() { h.releaseOnce.Do(func() { close(h.released) }) }

// wait waits d, unless the sender goes away (false) or the handler is
// released.
func (h *Handler) wait(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
	case <-h.released:
	case <-r.Context().Done():
		return false
	}
	return true
}

// ServeHTTP records the delivery; /deliveries answers those recorded so
// far as JSON (for the process), and /started whether one has arrived.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/deliveries":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(h.Deliveries())
		return
	case "/started":
		h.mu.Lock()
		n := h.requests
		h.mu.Unlock()
		fmt.Fprintln(w, n)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	d := Delivery{Event: r.Header.Get(wire.HeaderHookEvent), ID: r.Header.Get(wire.HeaderHookDelivery),
		Signature: r.Header.Get(wire.HeaderHookSignature), Body: body}
	if _, err := hooksig.Verify(d.Signature, h.Secret, body, time.Now(), 5*time.Minute); err != nil {
		d.SignatureError = err.Error()
	}
	if err := json.Unmarshal(body, &d.Payload); err != nil && d.SignatureError == "" {
		d.SignatureError = "body: " + err.Error()
	}
	h.mu.Lock()
	h.requests++
	h.inFlight++
	h.maxInFlight = max(h.maxInFlight, h.inFlight)
	n, failFirst := h.requests, h.FailFirst
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
	}()
	h.once.Do(func() { close(h.started) })
	if n == 1 && !h.wait(r, h.SlowFirst) || !h.wait(r, h.Slow) {
		return // the sender went away: nothing was received
	}
	if d.SignatureError != "" {
		http.Error(w, d.SignatureError, http.StatusUnauthorized)
		return
	}
	if n <= failFirst {
		http.Error(w, "failing on purpose", http.StatusInternalServerError)
		return
	}
	h.mu.Lock()
	h.got = append(h.got, d)
	h.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// SetFailFirst changes Behaviour.FailFirst while the handler serves.
func (h *Handler) SetFailFirst(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.FailFirst = n
}

// Deliveries are the deliveries answered 200, in order.
func (h *Handler) Deliveries() []Delivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Delivery(nil), h.got...)
}

// InFlight answers how many requests are being answered now, and the most
// that were at once.
func (h *Handler) InFlight() (now, most int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inFlight, h.maxInFlight
}

// Requests counts every request, failed ones included.
func (h *Handler) Requests() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.requests
}

// NewServer runs a Handler on a loopback port until the test ends.
func NewServer(t testing.TB, secret string, b Behaviour) (*Handler, string) {
	h := NewHandler(secret, b)
	ts := httptest.NewServer(h)
	// Released first, so that Close does not wait for slow answers.
	t.Cleanup(func() { h.Release(); ts.Close() })
	return h, ts.URL
}

// WaitFor polls deliveries() until cond holds of them, or fails the test
// after timeout.
func WaitFor(t testing.TB, timeout time.Duration, deliveries func() []Delivery, cond func([]Delivery) bool) []Delivery {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := deliveries()
		if cond(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the receiver holds %d deliveries, not what the test waits for: %+v", timeout, len(got), got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Process is cmd/hookreceiver running as a process of its own.
type Process struct {
	URL string
	cmd *exec.Cmd
}

// StartProcess runs cmd/hookreceiver, built once per go test run
// (storetest.BuildProgram), on a loopback port until the test ends.
func StartProcess(t testing.TB, secret string, b Behaviour) *Process {
	t.Helper()
	bin, err := storetest.BuildProgram("github.com/pact-registry/pact/internal/hooktest/cmd/hookreceiver")
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: exec.Command(bin, "-secret", secret, "-fail-first", strconv.Itoa(b.FailFirst), "-slow-first", b.SlowFirst.String())}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting hookreceiver: %v", err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "LISTENING ") {
		t.Fatalf("hookreceiver printed %q, %v", line, err)
	}
	p.URL = strings.TrimSpace(strings.TrimPrefix(line, "LISTENING "))
	return p
}

// Deliveries asks the process for the deliveries it answered 200.
func (p *Process) Deliveries(t testing.TB) []Delivery {
	t.Helper()
	resp, err := http.Get(p.URL + "/deliveries")
	if err != nil {
		t.Fatalf("hookreceiver /deliveries: %v", err)
	}
	defer resp.Body.Close()
	var out []Delivery
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("hookreceiver /deliveries: %v", err)
	}
	return out
}

// Requests asks the process how many requests it got, failed ones included.
func (p *Process) Requests(t testing.TB) int {
	t.Helper()
	resp, err := http.Get(p.URL + "/started")
	if err != nil {
		t.Fatalf("hookreceiver /started: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	n, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil {
		t.Fatalf("hookreceiver /started answered %q", b)
	}
	return n
}
