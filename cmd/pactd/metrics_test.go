package main_test

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
)

func randomWord(rng *rand.Rand, letters string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return string(b)
}

func getText(t *testing.T, url string) (int, string) {
	t.Helper()
	a := get(t, url, "")
	return a.status, string(a.body)
}

var labelValue = regexp.MustCompile(`\b(route|method|status)="([^"]*)"`)

// A client choosing methods and paths must not be able to add series to
// /metrics: each new label value is a series kept forever by pactd and by
// Prometheus.
func TestMetricsLabelsStayBoundedUnderRandomMethodsAndPaths(t *testing.T) {
	t.Parallel()
	srv, err := pactdtest.Start(pactdBin, t.TempDir(), "--rate-ip", "0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()

	const requests, workers = 3000, 8
	rng := rand.New(rand.NewPCG(11, 3))
	type attack struct{ method, path string }
	attacks := make([]attack, requests)
	sentWords := map[string]bool{}
	for i := range attacks {
		method := randomWord(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 40)
		if i%10 == 0 {
			method = http.MethodGet // known methods with random paths too
		}
		a, b := randomWord(rng, "abcdefghijklmnopqrstuvwxyz", 12), randomWord(rng, "abcdefghijklmnopqrstuvwxyz", 12)
		sentWords[a], sentWords[b] = true, true
		path := []string{"/" + a, "/" + a + "/" + b, "/api/" + a, "/api/packages/" + a + "/" + b,
			"/raw/" + a + "/" + b + ".pact.md", "/" + a + "/" + b + "/" + a}[i%6]
		attacks[i] = attack{method, path}
	}
	jobs := make(chan attack)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range jobs {
				req, err := http.NewRequest(a.method, srv.URL+a.path, nil)
				if err != nil {
					t.Error(err)
					continue
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Errorf("%s %s: %v", a.method, a.path, err)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	for _, a := range attacks {
		jobs <- a
	}
	close(jobs)
	wg.Wait()

	start := time.Now()
	status, body := getText(t, srv.URL+"/metrics")
	scrape := time.Since(start)
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d", status)
	}
	series := 0
	values := map[string]map[string]bool{"route": {}, "method": {}, "status": {}}
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "pact_http_") {
			continue
		}
		series++
		for _, m := range labelValue.FindAllStringSubmatch(line, -1) {
			values[m[1]][m[2]] = true
		}
	}
	// Before labels were bounded, these requests made over 48,000 series
	// and a /metrics of several megabytes.
	if series > 1000 || len(body) > 256<<10 {
		t.Errorf("/metrics holds %d pact_http_ series in %d bytes after %d requests; want at most 1000 series and 256 KiB",
			series, len(body), requests)
	}
	var unknown []string
	for method := range values["method"] {
		switch method {
		case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other":
		default:
			unknown = append(unknown, method)
		}
	}
	if len(unknown) > 0 {
		t.Errorf("%d method labels are neither a known method nor \"other\", e.g. %q", len(unknown), unknown[0])
	}
	if !values["method"]["other"] || !values["method"]["GET"] {
		t.Errorf("no method label GET or no \"other\" among %d method labels", len(values["method"]))
	}
	if !values["route"]["unmatched"] {
		t.Errorf("route labels %v: want \"unmatched\" among them", values["route"])
	}
	for route := range values["route"] {
		for _, part := range strings.FieldsFunc(route, func(r rune) bool { return r == '/' || r == '.' }) {
			if sentWords[part] {
				t.Fatalf("route label %q holds part of a path a client sent", route)
			}
		}
	}
	for status := range values["status"] {
		if !regexp.MustCompile(`^[1-5][0-9][0-9]$`).MatchString(status) {
			t.Fatalf("status label %q is not an HTTP status", status)
		}
	}
	if len(values["route"]) > 30 || len(values["status"]) > 10 {
		t.Errorf("%d route and %d status label values: want a handful", len(values["route"]), len(values["status"]))
	}
	t.Logf("%d requests: %d pact_http_ series, /metrics %d bytes in %v, peak RSS %.0f MiB",
		requests, series, len(body), scrape.Round(time.Millisecond), srv.PeakRSSMiB())
}

var metricsLine = regexp.MustCompile(`pactd metrics on (http://\S+/metrics)`)

// With --metrics-addr, /metrics is served on that address only: the public
// address answers 404, and the metrics address serves nothing else.
func TestMetricsAddrServesMetricsOnlyThere(t *testing.T) {
	srv, err := pactdtest.Start(pactdBin, t.TempDir(), "--metrics-addr", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	m := metricsLine.FindStringSubmatch(srv.Logs())
	if m == nil {
		t.Fatalf("pactd did not say where /metrics is:\n%s", srv.Logs())
	}
	metricsURL := m[1]

	if status, _ := getText(t, srv.URL+"/healthz"); status != http.StatusOK {
		t.Fatalf("GET /healthz: %d", status)
	}
	status, body := getText(t, srv.URL+"/metrics")
	if status != http.StatusNotFound || strings.Contains(body, "pact_http_requests_total") {
		t.Errorf("public GET /metrics: %d %.200q, want 404 without metrics", status, body)
	}
	status, body = getText(t, metricsURL)
	if status != http.StatusOK || !strings.Contains(body, `pact_http_requests_total{method="GET",route="/healthz",status="200"} 1`) {
		t.Errorf("GET %s: %d, want 200 with the public request counted:\n%.2000s", metricsURL, status, body)
	}
	if !strings.Contains(body, `route="unmatched",status="404"`) {
		t.Errorf("the public 404 for /metrics is not counted as an unmatched route")
	}
	base := strings.TrimSuffix(metricsURL, "/metrics")
	for _, path := range []string{"/api/packages", "/healthz", "/"} {
		if status, _ := getText(t, base+path); status != http.StatusNotFound {
			t.Errorf("GET %s on the metrics address: %d, want 404", path, status)
		}
	}
}

// Without --metrics-addr, /metrics stays on the public address.
func TestMetricsOnPublicAddressByDefault(t *testing.T) {
	srv, err := pactdtest.Start(pactdBin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if status, body := getText(t, srv.URL+"/metrics"); status != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("GET /metrics: %d, want 200 with metrics", status)
	}
	if strings.Contains(srv.Logs(), "pactd metrics on") {
		t.Errorf("pactd announced a metrics address it was not given:\n%s", srv.Logs())
	}
}

// cacheSeries reads one pact_cache_* series of cache from /metrics.
func cacheSeries(t *testing.T, base, series, cache string) float64 {
	t.Helper()
	status, body := getText(t, base+"/metrics")
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d", status)
	}
	prefix := series + `{cache="` + cache + `"} `
	for line := range strings.Lines(body) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s%s: %v", prefix, v, err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s{cache=%q}:\n%s", series, cache, body)
	return 0
}

// A client reading every document in turn, many more than the document
// cache holds, while others keep reading a few hot ones: the hot documents
// stay in memory (a plain LRU would evict each of them between two of
// their reads here), and /metrics counts hits and misses, within the
// cache's bytes.
func TestDocumentCacheKeepsHotDocumentsThroughASweep(t *testing.T) {
	const hot, sweep, rounds = 8, 200, 6
	// About 19 documents of this size: fewer than the 23 distinct ones read
	// between two reads of the same hot document.
	srv, token := startWithToken(t, "alice", filepath.Join(t.TempDir(), "pact.db"), "--db-read-cache-bytes", "12288")
	name := func(kind string, i int) string { return fmt.Sprintf("%s-%03d", kind, i) }
	for i := range hot {
		wantAnswer(t, "publish", publish(t, srv.URL, token, packDocument(name("hot", i), "1.0.0", "Read all the time.")), http.StatusOK)
	}
	for i := range sweep {
		wantAnswer(t, "publish", publish(t, srv.URL, token, packDocument(name("swept", i), "1.0.0", "Read once a round.")), http.StatusOK)
	}
	read := func(pack string) {
		t.Helper()
		wantAnswer(t, "GET "+pack, get(t, srv.URL+"/raw/alice/"+pack+".pact.md", ""), http.StatusOK)
	}
	// The hot documents are in memory first, as on a server that has been
	// answering them: a full cache takes a new one in only after some misses.
	for i := range hot {
		read(name("hot", i))
	}
	hotReads := 0
	for range rounds {
		for i := range sweep {
			read(name("swept", i))
			if i%2 == 0 {
				read(name("hot", i/2%hot))
				hotReads++
			}
		}
	}
	hits, misses := cacheSeries(t, srv.URL, "pact_cache_hits_total", "documents"), cacheSeries(t, srv.URL, "pact_cache_misses_total", "documents")
	if reads := float64(hot + rounds*(sweep+sweep/2)); hits+misses != reads {
		t.Errorf("the cache counted %v hits and %v misses, want %v reads in all", hits, misses, reads)
	}
	for i := range hot {
		read(name("hot", i))
	}
	if got := cacheSeries(t, srv.URL, "pact_cache_hits_total", "documents") - hits; got != hot {
		t.Errorf("after the sweep, %v of the %d hot documents came from memory, want all", got, hot)
	}
	if hits < float64(hotReads)*95/100 {
		t.Errorf("%v hits in all for %d reads of hot documents during the sweep, want the hot ones from memory at least 95%% of the time",
			hits, hotReads)
	}
	held, limit := cacheSeries(t, srv.URL, "pact_cache_bytes", "documents"), cacheSeries(t, srv.URL, "pact_cache_max_bytes", "documents")
	if limit != 12288 || held > limit || held == 0 {
		t.Errorf("the cache holds %v bytes of %v, want some, within --db-read-cache-bytes 12288", held, limit)
	}
	t.Logf("%v hits, %v misses; %v bytes held", hits, misses, held)
}
