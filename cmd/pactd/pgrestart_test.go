package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// failFast is how long any request may take while PostgreSQL is down or
// coming back: pactd must answer 503 by then, not hang.
const failFast = 3 * time.Second

// TestPostgresRestartUnderLoad stops PostgreSQL under a stream of
// publishes, twice (a fast and an immediate shutdown), and starts it again:
// meanwhile every request is answered 503 quickly, with Retry-After, /readyz
// says 503, pactd logs once per outage, at warn, why the database cannot be
// reached (and once that it answers again) rather than once per request,
// pactd recovers without a restart, and every publish answered 200 is
// there, byte for byte.
func TestPostgresRestartUnderLoad(t *testing.T) {
	t.Parallel()
	pg := storetest.StartPostgres(t)
	srv, token := startWithToken(t, "alice", pg.URL())
	load := startPublishLoad(srv.URL, token, 4)
	defer load.stop()
	quick := &http.Client{Timeout: failFast}

	load.waitFor(t, "publishes while PostgreSQL is up", 20, func(r loadResult) bool { return r.status == http.StatusOK })
	for i, mode := range []string{"fast", "immediate"} {
		if err := pg.Stop(mode); err != nil {
			t.Fatal(err)
		}
		down := time.Now()
		if r, err := quick.Get(srv.URL + "/readyz"); err != nil {
			t.Errorf("/readyz with PostgreSQL stopped (%s): %v", mode, err)
		} else {
			r.Body.Close()
			if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "5" {
				t.Errorf("/readyz with PostgreSQL stopped (%s): %d, Retry-After %q; want 503, 5", mode, r.StatusCode, r.Header.Get("Retry-After"))
			}
		}
		load.waitFor(t, "publishes while PostgreSQL is down", 20, func(r loadResult) bool { return r.start.After(down) })

		restarting := time.Now()
		if err := pg.Start(); err != nil {
			t.Fatal(err)
		}
		if !eventually(30*time.Second, func() bool {
			r, err := quick.Get(srv.URL + "/readyz")
			if err != nil {
				return false
			}
			r.Body.Close()
			return r.StatusCode == http.StatusOK
		}) {
			t.Fatalf("pactd is not ready 30s after PostgreSQL started again (%s shutdown)", mode)
		}
		// pactd logs that the outage ended once its probe finds the
		// database answering, within a second or so.
		if !eventually(10*time.Second, func() bool { return strings.Count(srv.Logs(), `"msg":"the database answers again"`) >= i+1 }) {
			t.Errorf("pactd did not log that PostgreSQL answers again after the %s shutdown", mode)
		}
		up := time.Now()
		load.waitFor(t, "publishes after PostgreSQL came back", 20, func(r loadResult) bool {
			return r.start.After(up) && r.status == http.StatusOK
		})

		for _, r := range load.results() {
			if r.start.After(down) && r.end.Before(restarting) && r.status != http.StatusServiceUnavailable {
				t.Errorf("publish of %s while PostgreSQL was down (%s shutdown): %s, want 503", r.version, mode, r)
			}
		}
	}
	load.stop()

	acknowledged := 0
	for _, r := range load.results() {
		switch {
		case r.err != nil:
			t.Errorf("publish of %s got no answer within %s: %v", r.version, failFast, r.err)
		case r.status == http.StatusServiceUnavailable:
			if !bytes.Contains(r.body, []byte(`"ok":false`)) {
				t.Errorf("a 503 answer is not the error object: %s", r.body)
			}
			if secs, err := strconv.Atoi(r.retryAfter); err != nil || secs < 1 {
				t.Errorf("a 503 answer (%s) has Retry-After %q, want whole seconds", r, r.retryAfter)
			}
		case r.status != http.StatusOK:
			t.Errorf("publish of %s: %s, want 200 or 503", r.version, r)
		default:
			acknowledged++
			if got := get(t, srv.URL+"/raw/alice/load@"+r.version+".pact.md", ""); got.status != http.StatusOK || string(got.body) != r.content {
				t.Errorf("publish of %s was answered 200 but is now served as %s", r.version, got)
			}
		}
	}
	t.Logf("%d requests, %d publishes acknowledged, all present", len(load.results()), acknowledged)

	// Two outages: two lines saying why, two saying it ended, none per
	// request.
	var down, up []string
	for _, line := range strings.Split(srv.Logs(), "\n") {
		var l struct {
			Level, Msg, Error, Engine string
			Status                    int
		}
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		switch {
		case strings.HasPrefix(l.Msg, "the database is unreachable"):
			if l.Level != "WARN" || l.Engine != "postgres" || !strings.Contains(l.Error, "sqlstore: ") {
				t.Errorf("the outage is logged as %s", line)
			}
			down = append(down, l.Error)
		case l.Msg == "the database answers again":
			up = append(up, line)
		case l.Status == http.StatusServiceUnavailable && l.Level == "ERROR", strings.Contains(l.Error, "the database is unavailable") && l.Level == "ERROR":
			t.Errorf("a 503 of the outage is logged at error, once per request: %s", line)
		}
	}
	if len(down) != 2 || len(up) != 2 {
		t.Errorf("pactd logged %d outages (%q) and %d recoveries, want 2 of each", len(down), down, len(up))
	}
	t.Logf("why: %q", down)
}

func eventually(limit time.Duration, ok func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return false
}

type loadResult struct {
	version, content string
	start, end       time.Time
	status           int
	retryAfter       string
	body             []byte
	err              error
}

func (r loadResult) String() string {
	if r.err != nil {
		return r.err.Error()
	}
	return fmt.Sprintf("%d %s after %s", r.status, bytes.TrimSpace(r.body), r.end.Sub(r.start).Round(time.Millisecond))
}

// publishLoad publishes new versions of alice/load from several workers
// until stopped, recording every answer.
type publishLoad struct {
	mu      sync.Mutex
	done    []loadResult
	quit    chan struct{}
	wg      sync.WaitGroup
	stopped sync.Once
}

func startPublishLoad(base, token string, workers int) *publishLoad {
	l := &publishLoad{quit: make(chan struct{})}
	client := &http.Client{Timeout: failFast}
	for w := range workers {
		l.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-l.quit:
					return
				default:
				}
				version := fmt.Sprintf("1.%d.%d", w, i)
				r := loadResult{version: version, content: packDocument("load", version, fmt.Sprintf("Worker %d, publish %d.", w, i))}
				body, _ := json.Marshal(map[string]string{"content": r.content})
				req, _ := http.NewRequest(http.MethodPost, base+"/api/publish", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				r.start = time.Now()
				resp, err := client.Do(req)
				if err == nil {
					r.status, r.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
					r.body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				r.end, r.err = time.Now(), err
				l.mu.Lock()
				l.done = append(l.done, r)
				l.mu.Unlock()
				time.Sleep(5 * time.Millisecond) // a steady stream, not a flood of instant 503s
			}
		})
	}
	return l
}

func (l *publishLoad) results() []loadResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]loadResult(nil), l.done...)
}

// waitFor waits until n finished requests match, failing after 30s.
func (l *publishLoad) waitFor(t *testing.T, what string, n int, match func(loadResult) bool) {
	t.Helper()
	count := func() int {
		c := 0
		for _, r := range l.results() {
			if match(r) {
				c++
			}
		}
		return c
	}
	if !eventually(30*time.Second, func() bool { return count() >= n }) {
		t.Fatalf("%s: %d in 30s, want %d", what, count(), n)
	}
}

func (l *publishLoad) stop() {
	l.stopped.Do(func() { close(l.quit) })
	l.wg.Wait()
}
