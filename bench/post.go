package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pact-registry/pact/pkg/sshsign"
)

// postRequest makes the n-th request of one worker: a JSON body and the
// headers that go with it.
type postRequest func(worker, n int) (body []byte, header http.Header, err error)

// runPosts sends POSTs to url from conns workers, each with its own
// keep-alive connection, until d has passed or maxRequests were sent. Only
// a 200 counts as a success.
//
// The load generator shares the machine's cores with pactd, so it does as
// little as it can while the clock runs (BENCHMARKS.md, "What one run
// does", step 7):
//   - the requests are made before the clock starts: signing a document and
//     encoding it as JSON is the generator's work, not the server's. A worker
//     that uses up its share makes the rest as it goes; the result counts
//     how many;
//   - each worker writes its requests' bytes to its own connection and reads
//     the answers with http.ReadResponse, much as wrk does for the GET rows,
//     instead of going through net/http's client, whose connection pool
//     and per-connection goroutines cost more CPU per request.
func runPosts(ctx context.Context, url string, conns int, d time.Duration, maxRequests int, next postRequest) result {
	target, err := neturl.Parse(url)
	if err != nil {
		return result{Errors: 1, FirstErrors: []string{err.Error()}}
	}
	perWorker := prebuiltPerWorker(conns, d, maxRequests)
	ready := make([][][]byte, conns)
	for w := range conns {
		ready[w] = make([][]byte, perWorker)
		for n := range perWorker {
			if ready[w][n], err = rawPost(target, w, n, next); err != nil {
				return result{Errors: 1, FirstErrors: []string{err.Error()}}
			}
		}
	}
	var late atomic.Int64
	r := measureWorkers(ctx, conns, d, maxRequests, func(ctx context.Context, w int, c *collector) {
		var (
			conn    net.Conn
			answers *bufio.Reader
			err     error
		)
		defer func() {
			if conn != nil {
				conn.Close()
			}
		}()
		for n := 0; c.more(ctx); n++ {
			var request []byte
			if n < len(ready[w]) {
				request, ready[w][n] = ready[w][n], nil // sent once: the garbage collector may have it
			} else {
				late.Add(1)
				if request, err = rawPost(target, w, n, next); err != nil {
					c.fail(err.Error())
					return
				}
			}
			if conn == nil {
				if conn, err = net.Dial("tcp", target.Host); err != nil {
					c.fail(err.Error())
					return
				}
				answers = bufio.NewReaderSize(conn, 16<<10)
			}
			// Requests run to completion after the deadline: cutting them
			// off would count the server's work as errors.
			t0 := time.Now()
			status, answer, keepAlive, err := exchange(conn, answers, request)
			if err != nil || !keepAlive {
				conn.Close()
				conn = nil
			}
			if err != nil {
				c.fail(err.Error())
				continue
			}
			// Only a 200 counts, in the rate and in the percentiles.
			if status != http.StatusOK {
				c.fail(fmt.Sprintf("POST %s: %d: %.200s", target.Path, status, answer))
				continue
			}
			c.ok(time.Since(t0))
		}
	})
	r.MadeWhileMeasuring = late.Load()
	return r
}

// rawPost is the n-th request of worker w as the bytes sent on the wire.
func rawPost(target *neturl.URL, w, n int, next postRequest) ([]byte, error) {
	body, header, err := next(w, n)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", target.RequestURI(), target.Host, len(body))
	if err := header.Write(&b); err != nil {
		return nil, err
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes(), nil
}

// exchange sends one request on conn and reads its answer whole: the
// status, the body, and whether the connection may be used again.
func exchange(conn net.Conn, answers *bufio.Reader, request []byte) (int, []byte, bool, error) {
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return 0, nil, false, err
	}
	if _, err := conn.Write(request); err != nil {
		return 0, nil, false, err
	}
	resp, err := http.ReadResponse(answers, nil)
	if err != nil {
		return 0, nil, false, err
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, answer, !resp.Close, err
}

// prebuildRate is how many publishes per second of measuring time
// runPosts makes before the clock starts: four times the highest publish
// target, and twice what the fastest machine yet published (about 5,000
// tokens per second). maxPrebuilt bounds them, so a long -duration does not
// hold gigabytes of requests (100,000 of 3,000-byte documents are about
// 350 MB).
const (
	prebuildRate = 10000
	maxPrebuilt  = 100000
)

// prebuiltPerWorker is each worker's share of the requests made before the
// clock starts.
func prebuiltPerWorker(conns int, d time.Duration, maxRequests int) int {
	total := min(int(d.Seconds()*prebuildRate), maxRequests, maxPrebuilt)
	return (total + conns - 1) / conns
}

// runGets sends GETs of base+paths from conns workers, each with its own
// keep-alive connection, for d: the workers take the paths in turn, one
// after the other, as wrk's script does. Unlike wrk, the percentiles are of
// the answers' own latencies (see docs in BENCHMARKS.md, "Latency as wrk
// counts it").
func runGets(ctx context.Context, base string, paths []string, conns int, d time.Duration) result {
	return runGetsN(ctx, base, paths, conns, d, math.MaxInt)
}

// runGetsN is runGets that stops after maxRequests.
func runGetsN(ctx context.Context, base string, paths []string, conns int, d time.Duration, maxRequests int) result {
	var turn atomic.Int64
	return runClients(ctx, conns, d, maxRequests, func(int, int) (*http.Request, error) {
		return http.NewRequest(http.MethodGet, base+paths[(turn.Add(1)-1)%int64(len(paths))], nil)
	})
}

// maxWarmUp bounds warmUp's pass.
const maxWarmUp = 2 * time.Minute

// warmUp requests every path once, conns at a time, before a row is
// measured: the row's working set is then in the OS's page cache, as on a
// server that has been answering it, whatever the machine did meanwhile
// with file pages nobody read. (The machines this bench ran on page out
// file pages idle for about a minute: without this pass, the 1,000,000-
// package row over 100,000 documents read most of them from the disk, at
// 4,200/s instead of 14,000-15,000/s; BENCHMARKS.md.)
func warmUp(ctx context.Context, base string, paths []string, conns int) error {
	r := runGetsN(ctx, base, paths, conns, maxWarmUp, len(paths))
	if r.Errors > 0 {
		return fmt.Errorf("warming up %s: %d requests failed: %s", base, r.Errors, strings.Join(r.FirstErrors, "; "))
	}
	return nil
}

// runClients runs requests made by next from conns workers, each with its
// own keep-alive connection, until d has passed or maxRequests were sent,
// and records the latency of every 200.
func runClients(ctx context.Context, conns int, d time.Duration, maxRequests int, next func(worker, n int) (*http.Request, error)) result {
	transport := &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
		DisableCompression: true, IdleConnTimeout: time.Minute,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 30 * time.Second}
	return measureWorkers(ctx, conns, d, maxRequests, func(ctx context.Context, w int, c *collector) {
		for n := 0; c.more(ctx); n++ {
			req, err := next(w, n)
			if err != nil {
				c.fail(err.Error())
				return
			}
			// Requests run to completion after the deadline: cutting
			// them off would count the server's work as errors.
			t0 := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				c.fail(err.Error())
				continue
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			// Only a 200 counts, in the rate and in the percentiles.
			if resp.StatusCode != http.StatusOK {
				c.fail(fmt.Sprintf("%s %s: %s: %.200s", req.Method, req.URL.Path, resp.Status, answer))
				continue
			}
			c.ok(time.Since(t0))
		}
	})
}

// collector gathers one run's latencies and errors from its workers.
type collector struct {
	max       int64
	sent      atomic.Int64
	mu        sync.Mutex
	latencies []time.Duration
	errCount  int64
	firstErrs []string
}

// more says whether a worker may send another request, and counts it.
func (c *collector) more(ctx context.Context) bool {
	return ctx.Err() == nil && c.sent.Add(1) <= c.max
}

func (c *collector) ok(latency time.Duration) {
	c.mu.Lock()
	c.latencies = append(c.latencies, latency)
	c.mu.Unlock()
}

func (c *collector) fail(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errCount++
	if len(c.firstErrs) < 3 {
		c.firstErrs = append(c.firstErrs, msg)
	}
}

// measureWorkers runs worker(0..conns-1) until d has passed or maxRequests
// were sent, and sums up what they recorded, with the load generator's own
// CPU time over the same span.
func measureWorkers(ctx context.Context, conns int, d time.Duration, maxRequests int, worker func(ctx context.Context, w int, c *collector)) result {
	c := &collector{max: int64(maxRequests), latencies: make([]time.Duration, 0, min(maxRequests, 1<<20))}
	// The clock starts before the deadline is set, so a run the deadline
	// ends counts at least d.
	self := ownCPU(os.Getpid())
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() { worker(ctx, w, c) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	self = ownCPU(os.Getpid()) - self
	slices.Sort(c.latencies)
	return result{
		GeneratorCPU: self,
		Requests:     int64(len(c.latencies)),
		Elapsed:      elapsed,
		P50:          percentile(c.latencies, 50),
		P99:          percentile(c.latencies, 99),
		Errors:       c.errCount,
		FirstErrors:  c.firstErrs,
	}
}

// percentile of sorted durations, nearest rank.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// tokenPublish publishes a new version of the worker's own package with the
// API token: worker w publishes tag-wNN at 1.0.n.
func tokenPublish(token, tag string, docBytes int) postRequest {
	return func(worker, n int) ([]byte, http.Header, error) {
		doc := document(fmt.Sprintf("%s-w%02d", tag, worker), fmt.Sprintf("1.0.%d", n), docBytes)
		body, err := json.Marshal(map[string]string{"content": string(doc)})
		h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + token}}
		return body, h, err
	}
}

// signedPublish is tokenPublish signed with the bench key instead: the
// load generator signs each request as `pact publish --sign` would.
func signedPublish(s *seeded, tag string, docBytes int) postRequest {
	return func(worker, n int) ([]byte, http.Header, error) {
		doc := document(fmt.Sprintf("%s-w%02d", tag, worker), fmt.Sprintf("1.0.%d", n), docBytes)
		ts := time.Now().Unix()
		nonce := fmt.Sprintf("%s-w%02d-n%010d-%s", tag, worker, n, sshsign.NewNonce()[:8])
		message, err := sshsign.Message(ts, nonce, doc, "", "")
		if err != nil {
			return nil, nil, err
		}
		sig, err := sshsign.Sign(s.Signer, message)
		if err != nil {
			return nil, nil, err
		}
		body, err := json.Marshal(map[string]any{
			"content": string(doc), "timestamp": ts, "nonce": nonce, "fingerprint": s.Fingerprint, "signature": sig,
		})
		return body, http.Header{"Content-Type": {"application/json"}}, err
	}
}
