package main_test

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/packfmt"
)

// maxBodyPeakMiB is what pactd may reach while it is flooded with the
// largest request bodies it accepts.
const maxBodyPeakMiB = 300

// requestLimit is the largest request body pactd reads for a default
// --max-body: JSON escaping may make a document four times longer.
const requestLimit = 4*packfmt.DefaultMaxBytes + 64<<10

// escapedPublish is a publish body just under the request limit whose
// document is exactly the default --max-body: most of the document is
// written as six-byte \u00XX escapes of filler, so reading and decoding
// each request costs as much as the limits allow.
func escapedPublish(name string, filler byte) []byte {
	head := fmt.Sprintf("# %s\n\n```yaml pact:pack\nname: %s\nversion: 1.0.0\nscheme: pact/v1\n"+
		"description: A document as large as the limit.\n```\n\n", name, name)
	size := packfmt.DefaultMaxBytes
	var b bytes.Buffer
	b.Grow(requestLimit)
	b.WriteString(`{"content":"`)
	b.WriteString(strings.ReplaceAll(head, "\n", `\n`))
	// A line's bytes are written at once when all of them are escaped,
	// byte by byte only near the end, where the escapes give way to plain
	// filler: four million writes a body take a minute under -race.
	escapes := strings.Repeat(fmt.Sprintf(`\u%04x`, filler), 80)
	fits := func(i, escapedBefore int) bool {
		return b.Len()+6*escapedBefore+6+plainCost(size-1-i) <= requestLimit-256
	}
	for i := len(head); i < size-1; i++ {
		// Bytes i to last are the rest of i's line. Escaping them all
		// fits if escaping the last does after the others: the left
		// side of fits grows with each escaped byte.
		if last := min(i+78-i%80, size-2); i%80 != 79 && fits(last, last-i) {
			b.WriteString(escapes[:6*(last-i+1)])
			i = last
			continue
		}
		switch {
		case i%80 == 79:
			b.WriteString(`\n`)
		case fits(i, 0):
			b.WriteString(escapes[:6])
		default:
			b.WriteByte(filler)
		}
	}
	b.WriteString(`\n"}`)
	return b.Bytes()
}

// plainCost is what the last rest bytes of escapedPublish's document take
// when only their line breaks are escaped, with the closing of the body.
func plainCost(rest int) int { return rest + rest/80 + 8 }

// poller fetches paths over and over until stopped and keeps every
// status it got; a connection error is kept as status 0.
type poller struct {
	mu       sync.Mutex
	statuses map[string]map[int]int // path -> status -> count
	errs     []string
	stop     chan struct{}
	done     sync.WaitGroup
}

func startPolling(base string, paths ...string) *poller {
	p := &poller{statuses: map[string]map[int]int{}, stop: make(chan struct{})}
	client := &http.Client{Timeout: 20 * time.Second}
	for _, path := range paths {
		p.statuses[path] = map[int]int{}
		p.done.Add(1)
		go func() {
			defer p.done.Done()
			for {
				select {
				case <-p.stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				status := 0
				resp, err := client.Get(base + path)
				if err == nil {
					status = resp.StatusCode
					var sink bytes.Buffer
					_, err = sink.ReadFrom(resp.Body)
					resp.Body.Close()
				}
				p.mu.Lock()
				p.statuses[path][status]++
				if err != nil {
					p.errs = append(p.errs, fmt.Sprintf("GET %s: %v", path, err))
				}
				p.mu.Unlock()
			}
		}()
	}
	return p
}

// finish stops polling once every path has been answered a few times,
// and fails t unless every answer was 200.
func (p *poller) finish(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		p.mu.Lock()
		enough := true
		for _, statuses := range p.statuses {
			total := 0
			for _, n := range statuses {
				total += n
			}
			enough = enough && total >= 3
		}
		p.mu.Unlock()
		if enough {
			break
		}
	}
	close(p.stop)
	p.done.Wait()
	for _, e := range p.errs {
		t.Error(e)
	}
	for path, statuses := range p.statuses {
		if statuses[http.StatusOK] < 3 || len(statuses) != 1 {
			t.Errorf("GET %s during the attack answered %v (status: count), want only 200s", path, statuses)
		}
	}
}

// attack sends the same kind of request n times at once and returns the
// statuses (0: connection error) and how long the slowest took.
func attack(t *testing.T, n int, send func(i int) (*http.Response, error)) (map[int]int, time.Duration) {
	t.Helper()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status := 0
			resp, err := send(i)
			if err == nil {
				status = resp.StatusCode
				var body bytes.Buffer
				body.ReadFrom(resp.Body)
				resp.Body.Close()
				if status == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
					t.Errorf("503 without Retry-After: %s", body.String())
				}
				if status >= 400 && !strings.Contains(body.String(), `"ok":false`) {
					t.Errorf("status %d without the JSON error body: %.200s", status, body.String())
				}
			} else {
				t.Errorf("request %d: %v", i, err)
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return statuses, time.Since(start)
}

// A flood of the largest bodies pactd accepts — deeply nested JSON from
// anyone, and maximal escaped publishes from an account — stays within a
// bounded amount of memory, and pactd keeps serving reads throughout. The
// per-address and per-token limits are off: an attacker with many
// addresses or tokens gets past them, the body budget must hold alone.
func TestRequestBodyFloodKeepsMemoryBoundedAndReadsAnswered(t *testing.T) {
	t.Parallel()
	srv, token := startWithToken(t, "flood", filepath.Join(t.TempDir(), "pact.db"))
	user := newAPIUser(srv.URL, token, 4)
	if status, body, err := user.publish(packDoc("steady", "1.0.0", 100)); err != nil || status != http.StatusOK {
		t.Fatalf("publish: %d %v %s", status, err, body)
	}
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 0}}
	post := func(path string, body []byte, bearer string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		return client.Do(req)
	}
	idle := srv.PeakRSSMiB()

	t.Run("nested", func(t *testing.T) {
		nested := bytes.Repeat([]byte("["), 4<<20)
		srv.ResetPeakRSS()
		polls := startPolling(srv.URL, "/api/packages", "/raw/flood/steady.pact.md")
		statuses, took := attack(t, 12, func(int) (*http.Response, error) { return post("/api/publish-signed", nested, "") })
		polls.finish(t)
		peak := srv.PeakRSSMiB()
		t.Logf("12 parallel 4 MiB bodies of '[': %v in %s, peak RSS %.0f MiB (idle %.0f MiB)", statuses, took, peak, idle)
		for status := range statuses {
			if status != http.StatusBadRequest && status != http.StatusServiceUnavailable {
				t.Errorf("nested bodies answered %v, want only 400 or 503", statuses)
			}
		}
		if peak > maxBodyPeakMiB {
			t.Errorf("peak RSS %.0f MiB during 12 nested bodies, want under %d MiB", peak, maxBodyPeakMiB)
		}
	})

	t.Run("escaped publishes", func(t *testing.T) {
		bodies := make([][]byte, 60)
		for i := range bodies {
			filler := byte('A' + i%26)
			if i%2 == 1 {
				filler = '<'
			}
			bodies[i] = escapedPublish(fmt.Sprintf("big-%02d", i), filler)
			if len(bodies[i]) > requestLimit || len(bodies[i]) < requestLimit-4096 {
				t.Fatalf("body %d is %d bytes, want just under %d", i, len(bodies[i]), requestLimit)
			}
		}
		srv.ResetPeakRSS()
		polls := startPolling(srv.URL, "/api/packages", "/raw/flood/steady.pact.md")
		statuses, took := attack(t, len(bodies), func(i int) (*http.Response, error) { return post("/api/publish", bodies[i], token) })
		polls.finish(t)
		peak := srv.PeakRSSMiB()
		t.Logf("60 parallel escaped publishes of %d-byte bodies: %v in %s, peak RSS %.0f MiB", len(bodies[0]), statuses, took, peak)
		for status := range statuses {
			if status != http.StatusOK && status != http.StatusServiceUnavailable {
				t.Errorf("escaped publishes answered %v, want only 200 or 503", statuses)
			}
		}
		if statuses[http.StatusOK] == 0 {
			t.Errorf("no escaped publish succeeded: %v", statuses)
		}
		if peak > maxBodyPeakMiB {
			t.Errorf("peak RSS %.0f MiB during 60 escaped publishes, want under %d MiB", peak, maxBodyPeakMiB)
		}
	})
}
