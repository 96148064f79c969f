package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/packfmt"
)

// Every document the bench seeds or publishes is a valid pack document of
// exactly the size asked for.
func TestDocumentsAreValidAndExactlySized(t *testing.T) {
	for _, size := range []int{400, 1000, 3000, 10000} {
		doc := document("pack-0000042", "1.0.17", size)
		if len(doc) != size {
			t.Errorf("document of size %d is %d bytes", size, len(doc))
		}
		pack, err := packfmt.Parse(doc, packfmt.Options{})
		if err != nil {
			t.Fatalf("document of size %d: %v", size, err)
		}
		if pack.Slug != "pack-0000042" || pack.Version != "1.0.17" {
			t.Errorf("document of size %d parses to %s@%s", size, pack.Slug, pack.Version)
		}
	}
}

func TestPercentileIsTheNearestRank(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, v := range n {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	cases := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"none", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of four", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of a hundred", ms(seq(100)...), 99, 99 * time.Millisecond},
		{"p99 of ten", ms(seq(10)...), 99, 10 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := percentile(c.sorted, c.p); got != c.want {
				t.Errorf("percentile(%v) = %v, want %v", c.p, got, c.want)
			}
		})
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestShortModeDefaults(t *testing.T) {
	cases := []struct {
		name         string
		args         []string
		wantPackages int
		wantDuration time.Duration
		wantRef      int
	}{
		{"full", nil, 1000, 10 * time.Second, 1000},
		{"short", []string{"-short"}, 200, 2 * time.Second, 0},
		{"short keeps what is given", []string{"-short", "-packages", "50", "-duration", "3s"}, 50, 3 * time.Second, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseFlags(c.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Packages != c.wantPackages || cfg.Duration != c.wantDuration || cfg.Reference != c.wantRef {
				t.Errorf("packages %d, duration %s, reference %d; want %d, %s, %d",
					cfg.Packages, cfg.Duration, cfg.Reference, c.wantPackages, c.wantDuration, c.wantRef)
			}
		})
	}
	if _, err := parseFlags([]string{"-duration", "500ms"}, io.Discard); err == nil {
		t.Error("a duration under wrk's one second was accepted")
	}
}

// The deep page is page 10,000, or the last page of a smaller registry.
func TestDeepPage(t *testing.T) {
	for packages, want := range map[int]int{1: 1, 20: 1, 21: 2, 1000: 50, 1_000_000: 10000, 5_000_000: 10000} {
		if got := deepPage(packages); got != want {
			t.Errorf("deepPage(%d) = %d, want %d", packages, got, want)
		}
	}
}

// Only 200s count: wrk's requests per second and the row's errors leave
// out and count every other answer, a 304 or a redirect as much as a 404.
func TestWrkCountsOnly200s(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not installed")
	}
	var ok, other atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			ok.Add(1)
			w.Write([]byte("fine"))
		case "/not-modified":
			other.Add(1)
			w.WriteHeader(http.StatusNotModified)
		default:
			other.Add(1)
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	r, err := runWrk(context.Background(), t.TempDir(), srv.URL, []string{"/ok", "/not-modified", "/ok", "/missing"}, 2, 1, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests == 0 || r.Errors == 0 {
		t.Fatalf("requests %d, errors %d: want both", r.Requests, r.Errors)
	}
	// wrk stops mid-request at the end; allow the few in flight.
	if d := r.Requests - ok.Load(); d > 2 || d < -2 {
		t.Errorf("wrk counted %d requests, the server answered %d with 200", r.Requests, ok.Load())
	}
	if d := r.Errors - other.Load(); d > 2 || d < -2 {
		t.Errorf("wrk counted %d errors, the server answered %d with something else", r.Errors, other.Load())
	}
	// Its histogram, which rounds add up, gives wrk's own percentiles.
	if len(r.Hist) == 0 || wrkPercentile(r.Hist, 50) != r.P50 || wrkPercentile(r.Hist, 99) != r.P99 {
		t.Errorf("histogram of %d latencies gives p50 %s, p99 %s; wrk printed %s, %s",
			len(r.Hist), wrkPercentile(r.Hist, 50), wrkPercentile(r.Hist, 99), r.P50, r.P99)
	}
}

// The warm-up asks for every path of a row exactly once, and fails when
// an answer is not a 200.
func TestWarmUpRequestsEveryPathOnce(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "fine")
	}))
	defer srv.Close()
	var paths []string
	for i := range 500 {
		paths = append(paths, fmt.Sprintf("/doc/%d", i))
	}
	if err := warmUp(context.Background(), srv.URL, paths, 8); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(paths) {
		t.Fatalf("%d distinct paths asked for, want %d", len(seen), len(paths))
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s asked for %d times, want once", p, n)
		}
	}
	if err := warmUp(context.Background(), srv.URL, []string{"/doc/1", "/missing"}, 2); err == nil {
		t.Error("a warm-up with a 404 did not fail")
	}
}

// evaluated is a report of rows, its targets evaluated.
func evaluated(rows ...*row) *report {
	rep := &report{}
	for _, r := range rows {
		rep.add(r)
	}
	rep.evaluate()
	return rep
}

// The log rows carry the ceiling the static servers measured on the same
// answers: each one's rate against its own raw rate, and pactd's against
// bare Go's.
func TestLogRowsShowTheirCeiling(t *testing.T) {
	rep := evaluated(
		&row{ID: "raw-nginx", Server: "nginx", RPS: 40000},
		&row{ID: "raw-go", Server: "bare Go", RPS: 30000},
		&row{ID: "raw", Server: "pactd", RPS: 32000},
		&row{ID: "log-tile-nginx", Server: "nginx", RPS: 30000},
		&row{ID: "log-tile-go", Server: "bare Go", RPS: 21000},
		&row{ID: "log-tile", Server: "pactd", RPS: 12800},
		// Bundles that neither static server serves at half its raw rate.
		&row{ID: "log-entries-nginx", Server: "nginx", RPS: 10000},
		&row{ID: "log-entries-go", Server: "bare Go", RPS: 9000},
		&row{ID: "log-entries", Server: "pactd", RPS: 6000},
	)
	tile := rep.row("log-tile")
	if tile.Ratio != 0.4 || tile.RatioGo != 12800.0/21000 {
		t.Errorf("log-tile: ratio %v to raw, %v to bare Go; want 0.4 and %v", tile.Ratio, tile.RatioGo, 12800.0/21000)
	}
	if g := rep.row("log-tile-go"); g.Ratio != 0.7 || g.RatioOf != "bare Go raw" {
		t.Errorf("log-tile-go: %v× %s, want 0.7× bare Go raw", g.Ratio, g.RatioOf)
	}
	want := []string{
		"the ceiling: nginx serves the same answers at 0.75× its own raw rate",
		"the ceiling: bare Go serves the same answers at 0.70× its own raw rate",
	}
	if !slices.Equal(tile.Notes, want) {
		t.Errorf("log-tile notes %q, want %q", tile.Notes, want)
	}
	want = []string{
		"the ceiling: nginx serves the same answers at 0.25× its own raw rate",
		"the ceiling: bare Go serves the same answers at 0.30× its own raw rate",
		"the target (0.5× raw) is above the ceiling in this run: no static server reached it",
	}
	if notes := rep.row("log-entries").Notes; !slices.Equal(notes, want) {
		t.Errorf("log-entries notes %q, want %q", notes, want)
	}
}

// The raw path over ten times the cache is compared with nginx, and shows
// its ceiling: the bare Go server reading every answer from SQLite.
func TestColdRawRowShowsItsCeiling(t *testing.T) {
	rep := evaluated(
		&row{ID: "raw-cold-nginx", Server: "nginx", RPS: 80000},
		&row{ID: "raw-cold-go", Server: "bare Go + SQLite", RPS: 36000},
		&row{ID: "raw-cold", Server: "pactd", RPS: 30000},
	)
	cold, g := rep.row("raw-cold"), rep.row("raw-cold-go")
	if cold.Ratio != 0.375 || cold.RatioGo != 30000.0/36000 || len(cold.Checks) != 1 || cold.Checks[0].Met {
		t.Errorf("raw-cold: %v× nginx, %v× bare Go, checks %+v; want 0.375, %v, one missed", cold.Ratio, cold.RatioGo, cold.Checks, 30000.0/36000)
	}
	if g.Ratio != 0.45 || g.RatioOf != "nginx" || len(g.Checks) != 0 {
		t.Errorf("raw-cold-go: %v× %s, checks %+v; want 0.45× nginx and no target", g.Ratio, g.RatioOf, g.Checks)
	}
	want := []string{
		"the ceiling: bare Go reading every answer from SQLite by primary key serves at 0.45× nginx",
		"the target (0.5× nginx) is above the ceiling in this run: bare Go reading from SQLite served 0.450× nginx",
	}
	if !slices.Equal(cold.Notes, want) {
		t.Errorf("raw-cold notes %q, want %q", cold.Notes, want)
	}
}

// The raw path from files is held to 0.8× nginx on the same files, and
// shows its ceiling: a bare Go server opening and sending every file.
func TestFilesRawRowShowsItsCeiling(t *testing.T) {
	rep := evaluated(
		&row{ID: "raw-cold-nginx", Server: "nginx", RPS: 50000, CPUus: 20},
		&row{ID: "raw-cold-go-files", Server: "bare Go + files", RPS: 30000, CPUus: 30},
		&row{ID: "raw-cold-files", Server: "pactd, documents in files", RPS: 15000, CPUus: 60},
	)
	files, g := rep.row("raw-cold-files"), rep.row("raw-cold-go-files")
	if files.Ratio != 0.3 || files.RatioGo != 0.5 || len(files.Checks) != 1 || files.Checks[0].Met {
		t.Errorf("raw-cold-files: %v× nginx, %v× bare Go, checks %+v; want 0.3, 0.5, one missed", files.Ratio, files.RatioGo, files.Checks)
	}
	if g.Ratio != 0.6 || g.RatioOf != "nginx" || len(g.Checks) != 0 {
		t.Errorf("raw-cold-go-files: %v× %s, checks %+v; want 0.6× nginx and no target", g.Ratio, g.RatioOf, g.Checks)
	}
	want := []string{
		"the ceiling: bare Go opening and sending every file (http.ServeContent) serves at 0.60× nginx",
		"the target (0.8× nginx) is above the ceiling in this run: bare Go sending files served 0.600× nginx",
		"CPU per answer: pactd 60.0 µs, bare Go 30.0 µs, nginx 20.0 µs",
	}
	if !slices.Equal(files.Notes, want) {
		t.Errorf("raw-cold-files notes %q, want %q", files.Notes, want)
	}
}

// The deep page shows its ceiling, the bare Go server reading the same
// page, and says when that server missed the p99 target as well.
func TestDeepPageRowShowsItsCeiling(t *testing.T) {
	for _, c := range []struct {
		bareP99 float64
		above   bool
	}{{9.5, false}, {12, true}} {
		rep := evaluated(
			&row{ID: "list-deep-go", Server: "bare Go + SQLite", RPS: 10000, P99ms: c.bareP99, CPUus: 100},
			&row{ID: "list-deep", Server: "pactd", RPS: 8000, P99ms: 14, CPUus: 125},
		)
		deep := rep.row("list-deep")
		if deep.RatioGo != 0.8 || len(deep.Checks) != 1 || deep.Checks[0].Met {
			t.Errorf("bare p99 %v: %v× bare Go, checks %+v; want 0.8 and the p99 target missed", c.bareP99, deep.RatioGo, deep.Checks)
		}
		want := []string{fmt.Sprintf("the ceiling: bare Go, reading the same page through the same query and writing the same bytes, had p99 %s and 100.0 µs of CPU per answer (pactd 125.0 µs, 1.25× its CPU)", fmtMS(c.bareP99))}
		if c.above {
			want = append(want, "the target (p99 ≤ 10 ms) is above the ceiling in this run: bare Go's p99 was 12 ms")
		}
		if !slices.Equal(deep.Notes, want) {
			t.Errorf("bare p99 %v: notes %q, want %q", c.bareP99, deep.Notes, want)
		}
	}
}

// The raw row says so when the bare Go server, its ceiling, missed the
// target too; not when it reached it.
func TestRawRowSaysWhenTheTargetIsAboveItsCeiling(t *testing.T) {
	for _, c := range []struct {
		bareGo float64
		want   bool
	}{{35000, true}, {37000, false}} {
		rep := evaluated(
			&row{ID: "raw-nginx", Server: "nginx", RPS: 40000},
			&row{ID: "raw-go", Server: "bare Go", RPS: c.bareGo},
			&row{ID: "raw", Server: "pactd", RPS: 30000},
		)
		note := fmt.Sprintf("the target (0.9× nginx) is above the ceiling in this run: bare Go, with none of pactd's features, served %.3f× nginx", c.bareGo/40000)
		if got := slices.Contains(rep.row("raw").Notes, note); got != c.want {
			t.Errorf("bare Go at %v: note %q there %v, want %v (notes %q)", c.bareGo/40000, note, got, c.want, rep.row("raw").Notes)
		}
	}
}

// Servers measured in turns: each one's rounds add up to one row, with the
// percentiles of their histograms put together.
func TestRoundsResultAddsUpTheTurns(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	rounds := []result{
		// 100 answers: 98 at 1 ms, 2 at 30 ms.
		{Requests: 100, Elapsed: ms(2000), P50: ms(1), P99: ms(30), CPU: ms(50), Hist: [][2]int64{{1000, 98}, {30000, 2}}},
		// 300 answers at 2 ms.
		{Requests: 300, Elapsed: ms(2000), P50: ms(2), P99: ms(2), CPU: ms(70), Errors: 2, FirstErrors: []string{"wrk: timeout 2"},
			Hist: [][2]int64{{2000, 300}}},
		// 200 answers: 190 at 1 ms, 10 at 5 ms.
		{Requests: 200, Elapsed: ms(2000), P50: ms(1), P99: ms(5), CPU: ms(60), Hist: [][2]int64{{1000, 190}, {5000, 10}}},
	}
	got := roundsResult(rounds)
	// 600 answers: 288 at 1 ms, 300 at 2 ms, 10 at 5 ms, 2 at 30 ms. The
	// 300th is at 2 ms; the 594th (round(0.99 × 600 + 0.5)) at 5 ms, where
	// the worst round's p99 was 30 ms.
	want := result{Requests: 600, Elapsed: ms(6000), P50: ms(2), P99: ms(5), CPU: ms(180), Errors: 2, FirstErrors: []string{"wrk: timeout 2"},
		Hist: [][2]int64{{1000, 288}, {2000, 300}, {5000, 10}, {30000, 2}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roundsResult = %+v, want %+v", got, want)
	}
	if got.rate() != 100 || got.cpuPerRequest() != 300 {
		t.Errorf("rate %v/s, CPU %v µs per request; want 100 and 300", got.rate(), got.cpuPerRequest())
	}
	if one := roundsResult(rounds[:1]); !reflect.DeepEqual(one, rounds[0]) {
		t.Errorf("one round: %+v, want it unchanged", one)
	}
}

// A long row's summary line holds tens of thousands of latencies.
func TestWrkSummaryWithALongHistogram(t *testing.T) {
	var line strings.Builder
	line.WriteString("Running 10s test @ http://127.0.0.1:1/\nWRKJSON {\"requests\":50000,\"p50_us\":700,\"p99_us\":9000,\"hist\":[")
	for v := range 50000 {
		if v > 0 {
			line.WriteByte(',')
		}
		fmt.Fprintf(&line, "[%d,1]", v+1)
	}
	line.WriteString("]}\nsome other line\n")
	s, err := parseWrkSummary([]byte(line.String()))
	if err != nil {
		t.Fatalf("%d bytes: %v", line.Len(), err)
	}
	if s.Requests != 50000 || len(s.Hist) != 50000 || s.Hist[49999] != [2]int64{50000, 1} {
		t.Errorf("requests %d, %d latencies, last %v", s.Requests, len(s.Hist), s.Hist[len(s.Hist)-1])
	}
	if _, err := parseWrkSummary([]byte("Running 10s test\n")); err == nil {
		t.Error("no summary line: no error")
	}
}

// The publish rows' generator sends each request whole, counts only the
// 200s, goes on over a new connection when the server closes one, and
// stops when its time is up.
func TestPostsCountOnly200sAndSurviveClosedConnections(t *testing.T) {
	var seen atomic.Int64
	var mu sync.Mutex
	bodies := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.Header.Get("Authorization") != "Bearer t" || r.Method != http.MethodPost || r.URL.Path != "/api/publish" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		bodies[string(body)] = true
		mu.Unlock()
		switch n := seen.Add(1); {
		case n%10 == 0:
			http.Error(w, "conflict", http.StatusConflict)
		case n%7 == 0:
			w.Header().Set("Connection", "close")
			fmt.Fprint(w, `{"ok":true}`)
		default:
			fmt.Fprint(w, `{"ok":true}`)
		}
	}))
	defer srv.Close()
	next := func(w, n int) ([]byte, http.Header, error) {
		return fmt.Appendf(nil, `{"content":"w%d-n%d"}`, w, n), http.Header{"Authorization": {"Bearer t"}, "Content-Type": {"application/json"}}, nil
	}

	// Bounded by the count: 200 requests, of which every tenth is a 409.
	r := runPosts(context.Background(), srv.URL+"/api/publish", 4, time.Minute, 200, next)
	if r.Requests+r.Errors != 200 || r.Errors != 20 {
		t.Fatalf("200 requests with every tenth refused: %d counted, %d errors (%v)", r.Requests, r.Errors, r.FirstErrors)
	}
	if !strings.Contains(strings.Join(r.FirstErrors, " "), "409") {
		t.Errorf("the errors do not say what the server answered: %v", r.FirstErrors)
	}
	if len(bodies) != 200 {
		t.Errorf("the server saw %d distinct bodies of 200", len(bodies))
	}

	// Bounded by time: the run ends on time.
	done := make(chan result, 1)
	go func() { done <- runPosts(context.Background(), srv.URL+"/api/publish", 4, time.Second, 1<<30, next) }()
	select {
	case r = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("a run of 1 s has not ended after 15 s")
	}
	if r.Requests == 0 || r.Elapsed < time.Second {
		t.Errorf("a 1 s run: %d requests in %s", r.Requests, r.Elapsed)
	}
}

// The requests made before the clock starts: 10,000 per second of the
// duration, never more than the run may send nor than 100,000, shared out
// so that every request has a worker.
func TestPrebuiltRequestsAreBounded(t *testing.T) {
	cases := []struct {
		conns, max int
		d          time.Duration
		want       int
	}{
		{32, 1 << 30, 10 * time.Second, 3125}, // 100,000 over 32
		{32, 1 << 30, 2 * time.Second, 625},   // 20,000 over 32
		{4, 200, time.Minute, 50},             // bounded by the run
		{32, 1 << 30, 5 * time.Minute, 3125},  // bounded by maxPrebuilt
		{3, 1 << 30, time.Second, 3334},       // 10,000 over 3, rounded up
	}
	for _, c := range cases {
		if got := prebuiltPerWorker(c.conns, c.d, c.max); got != c.want {
			t.Errorf("prebuiltPerWorker(%d, %s, %d) = %d, want %d", c.conns, c.d, c.max, got, c.want)
		}
	}
}
