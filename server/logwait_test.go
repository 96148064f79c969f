package server_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server"
)

// fromAddress is an HTTP client whose connections come from the loopback
// address ip (any of 127.0.0.0/8), as a client at another address.
func fromAddress(t *testing.T, ip string) *http.Client {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	transport := &http.Transport{DialContext: dialer.DialContext, MaxConnsPerHost: 0}
	t.Cleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport}
}

// processCPU is the CPU time this process (server and clients) has used.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		t.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// Many clients holding GET /log/checkpoint?wait=1 cost the server nothing
// while they wait: they sleep until a checkpoint is signed, then all
// answer; /healthz and a publish answer meanwhile. One address holds only
// a few waits (429 with Retry-After past them), and /log/* has a
// per-address rate limit. On PostgreSQL the waits are held by a replica
// that does not sign: it learns of the checkpoint the other one signs.
func TestHeldCheckpointWaitsCostNothing(t *testing.T) {
	const (
		addresses  = 200
		perAddress = 4
		held       = addresses * perAddress
		measured   = 1500 * time.Millisecond
		// What the held waits may cost in CPU over measured: polling
		// every 20 ms costs several times this.
		cpuBudget = 80 * time.Millisecond
	)
	servertest.Backends(t, func(t *testing.T, dsn string) {
		// The waits are held for a minute rather than the default 5s, and
		// statements may take as long: on a loaded machine, writing the
		// 800 requests, letting their handlers settle and measuring took
		// past 5s, and the first waits answered 503 (the answers are
		// checked, not the machine's load). Every wait still ends when the
		// test signs a checkpoint.
		opts := servertest.Options{NoSequencer: true, StatementTimeout: time.Minute, CheckpointWait: time.Minute,
			Limits: server.Limits{PerIPLog: server.Limit{Rate: 1, Burst: 10}, LogWaitsPerIP: perAddress}}
		signer := servertest.Start(t, dsn, opts)
		waiter := signer
		if strings.HasPrefix(dsn, "postgres") {
			waiter = servertest.Start(t, dsn, opts) // a second replica on the same database
		}
		alice := signer.CreateUser(t, "alice")
		resp := signer.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		logged := int64(resp.JSON(t)["log_index"].(float64))

		type answer struct {
			status int
			body   string
		}
		var (
			written  atomic.Int64
			answered atomic.Int64
			wg       sync.WaitGroup
			answers  = make(chan answer, held)
		)
		for a := range addresses {
			client := fromAddress(t, fmt.Sprintf("127.1.%d.%d", a/250, a%250+1))
			for range perAddress {
				wg.Add(1)
				go func() {
					defer wg.Done()
					trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { written.Add(1) }}
					req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
						http.MethodGet, waiter.URL+"/log/checkpoint?wait=1", nil)
					resp, err := client.Do(req)
					answered.Add(1)
					if err != nil {
						answers <- answer{body: err.Error()}
						return
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					answers <- answer{resp.StatusCode, string(body)}
				}()
			}
		}
		deadline := time.Now().Add(30 * time.Second)
		for written.Load() < held && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		// The last requests reach their handler, which reads the log's
		// state before it waits: on a busy machine that takes a while, so
		// the measure starts once a tenth of a second passes at the rate
		// the budget allows (or after 20 s, when waiting itself costs).
		settle := time.Now().Add(20 * time.Second)
		for time.Now().Before(settle) {
			start := processCPU(t)
			time.Sleep(measured / 15)
			if processCPU(t)-start <= cpuBudget/15 {
				break
			}
		}
		if n := answered.Load(); n > 0 {
			first := <-answers
			t.Fatalf("%d of %d waits answered before any checkpoint covered entry %d, the first %d: %.300s", n, held, logged, first.status, first.body)
		}

		before := processCPU(t)
		time.Sleep(measured)
		used := processCPU(t) - before
		t.Logf("%d held waits used %s of CPU in %s", held, used, measured)
		if used > cpuBudget {
			t.Errorf("%d held waits used %s of CPU in %s; waiting must cost nothing (at most %s)", held, used, measured, cpuBudget)
		}

		// Served meanwhile: /healthz, a publish, a fifth wait refused.
		health := waiter.API.Get("/healthz")
		wantStatus(t, health.Status, http.StatusOK, health.Body)
		resp = waiter.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.1")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		fifth, err := fromAddress(t, "127.1.0.1").Get(waiter.URL + "/log/checkpoint?wait=1")
		if err != nil {
			t.Fatal(err)
		}
		fifth.Body.Close()
		if fifth.StatusCode != http.StatusTooManyRequests || fifth.Header.Get("Retry-After") == "" {
			t.Errorf("a wait past %d from one address: %d, Retry-After %q; want 429 with Retry-After", perAddress, fifth.StatusCode, fifth.Header.Get("Retry-After"))
		}
		if n := answered.Load(); n > 0 {
			first := <-answers
			t.Fatalf("%d of %d waits answered before any checkpoint covered entry %d, the first %d: %.300s", n, held, logged, first.status, first.body)
		}

		// One checkpoint wakes them all.
		if _, err := signer.Service.SequenceLog(context.Background()); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		close(answers)
		for a := range answers {
			if a.status != http.StatusOK || !strings.HasPrefix(a.body, "servertest/log\n") {
				t.Fatalf("a held wait answered %d %q after the checkpoint", a.status, a.body)
			}
		}

		// The per-address rate limit of /log/*.
		client := fromAddress(t, "127.2.0.1")
		limited := 0
		for range 15 {
			resp, err := client.Get(waiter.URL + "/log/key")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				limited++
			}
		}
		if limited == 0 {
			t.Errorf("15 GET /log/key from one address at once, burst 10: none refused")
		}
	})
}
