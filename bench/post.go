package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
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
func runPosts(ctx context.Context, url string, conns int, d time.Duration, maxRequests int, next postRequest) result {
	return runClients(ctx, conns, d, maxRequests, func(w, n int) (*http.Request, error) {
		body, header, err := next(w, n)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header = header
		return req, nil
	})
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

	var (
		sent      atomic.Int64
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, min(maxRequests, 1<<20))
		errCount  int64
		firstErrs []string
	)
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		errCount++
		if len(firstErrs) < 3 {
			firstErrs = append(firstErrs, msg)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() {
			local := make([]time.Duration, 0, 1024)
			defer func() {
				mu.Lock()
				latencies = append(latencies, local...)
				mu.Unlock()
			}()
			for n := 0; ctx.Err() == nil && sent.Add(1) <= int64(maxRequests); n++ {
				req, err := next(w, n)
				if err != nil {
					fail(err.Error())
					return
				}
				// Requests run to completion after the deadline: cutting
				// them off would count the server's work as errors.
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					fail(err.Error())
					continue
				}
				answer, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				// Only a 200 counts, in the rate and in the percentiles.
				if resp.StatusCode != http.StatusOK {
					fail(fmt.Sprintf("%s %s: %s: %.200s", req.Method, req.URL.Path, resp.Status, answer))
					continue
				}
				local = append(local, time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	return result{
		Requests:    int64(len(latencies)),
		Elapsed:     elapsed,
		P50:         percentile(latencies, 50),
		P99:         percentile(latencies, 99),
		Errors:      errCount,
		FirstErrors: firstErrs,
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
