package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/seedtest"
)

// The documents of TestDocumentCacheUnderAttack, against a read cache of
// attackCacheBytes: many of the smallest entries the cache counts (a
// document of 64 bytes is counted as its key and 512 bytes beside it),
// more than it holds, and documents of the largest size it keeps (an
// eighth of it), each of which, let in, evicts about 420 of the small
// ones.
const (
	attackCacheBytes = 2 << 20
	attackTiny       = 7000
	attackTinyBytes  = 64
	attackBig        = 32
	attackBigBytes   = 250_000
	attackHot        = 8
	attackHotBytes   = 3000
)

// seedCacheAttack writes the attack's documents straight into the store.
func seedCacheAttack(t *testing.T, dsn string) (contents map[string][]byte) {
	t.Helper()
	contents = map[string][]byte{}
	req := seedtest.Request{Owners: []string{"mallory"}, Batch: 2000}
	add := func(name string, size int) {
		content := []byte("# " + name + "\n" + strings.Repeat("x", size-len(name)-3) + "\n")
		contents[name] = content
		sum := sha256.Sum256(content)
		req.Packages = append(req.Packages, seedtest.Package{Owner: "mallory", Pack: name, Name: name,
			Description: "A document of the cache attack.", Scheme: "s", Version: "1.0.0",
			Content: content, SHA256: hex.EncodeToString(sum[:]), Now: time.Now()})
	}
	for i := range attackTiny {
		add(fmt.Sprintf("tiny-%05d", i), attackTinyBytes)
	}
	for i := range attackBig {
		add(fmt.Sprintf("big-%02d", i), attackBigBytes)
	}
	for i := range attackHot {
		add(fmt.Sprintf("hot-%d", i), attackHotBytes)
	}
	seedtest.Seed(t, dsn, req)
	return contents
}

// TestDocumentCacheUnderAttack attacks the read cache's costs through a
// real pactd: clients sweeping through more small documents than it holds
// and reading in turn the largest documents it keeps, so that full-cache
// misses keep asking the cache's admission policy and evicting
// hundreds of entries (the small documents fill the cache first), while
// another client reads a few hot documents.
// Every answer is whole and right, the cache stays within its bytes, the
// process within a bound of memory, and the hot documents are still
// served from memory afterwards. What it costs is logged: CPU per request
// and the hot reads' latency, before and during the attack.
func TestDocumentCacheUnderAttack(t *testing.T) {
	t.Parallel()
	dsn := filepath.Join(t.TempDir(), "pact.db")
	contents := seedCacheAttack(t, dsn)
	srv := startPactd(t, dsn, "--db-read-cache-bytes", fmt.Sprint(attackCacheBytes))

	// read fetches one document and checks it is whole.
	read := func(name string) error {
		resp, err := httpClient.Get(srv.URL + "/raw/mallory/" + name + ".pact.md")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %v", name, err)
		case resp.StatusCode != http.StatusOK:
			return fmt.Errorf("%s: status %d", name, resp.StatusCode)
		case string(body) != string(contents[name]):
			return fmt.Errorf("%s: %d bytes, not the %d published", name, len(body), len(contents[name]))
		}
		return nil
	}
	// readHot reads the hot documents in turn until stop is closed (or n
	// times each, when stop is nil), and returns each read's latency.
	readHot := func(stop <-chan struct{}, n int) ([]time.Duration, error) {
		var took []time.Duration
		for round := 0; stop != nil || round < n; round++ {
			for i := range attackHot {
				start := time.Now()
				if err := read(fmt.Sprintf("hot-%d", i)); err != nil {
					return took, err
				}
				took = append(took, time.Since(start))
			}
			select {
			case <-stop:
				return took, nil
			default:
			}
		}
		return took, nil
	}
	percentile := func(d []time.Duration, p int) time.Duration {
		d = slices.Clone(d)
		slices.Sort(d)
		return d[(len(d)-1)*p/100].Round(10 * time.Microsecond)
	}

	// The hot documents are read first, as on a server that has been
	// answering them.
	before, err := readHot(nil, 50)
	if err != nil {
		t.Fatal(err)
	}
	if !srv.ResetPeakRSS() {
		t.Log("this kernel cannot reset the peak RSS: the figure below is since pactd started")
	}
	rssBefore := srv.RSSMiB()
	cpuBefore := srv.CPUTime()

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		requests int
		overfull []float64
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, err.Error())
	}
	count := func(n int) {
		mu.Lock()
		defer mu.Unlock()
		requests += n
	}
	// 12 clients sweep the small documents, each its share: the first
	// time alone, which fills the cache with them, then again beside the
	// others.
	sweep := func() {
		for c := range 12 {
			wg.Go(func() {
				n := 0
				defer func() { count(n) }()
				for i := c; i < attackTiny; i += 12 {
					if err := read(fmt.Sprintf("tiny-%05d", i)); err != nil {
						fail(err)
						return
					}
					n++
				}
			})
		}
	}
	start := time.Now()
	sweep()
	wg.Wait()
	sweep()
	// 4 clients read the large documents in turn, each from another start.
	for c := range 4 {
		wg.Go(func() {
			n := 0
			defer func() { count(n) }()
			for i := range 64 {
				if err := read(fmt.Sprintf("big-%02d", (c*8+i)%attackBig)); err != nil {
					fail(err)
					return
				}
				n++
			}
		})
	}
	stop := make(chan struct{})
	var during []time.Duration
	var hotDone, watchDone sync.WaitGroup
	hotDone.Go(func() {
		var err error
		if during, err = readHot(stop, 0); err != nil {
			fail(err)
		}
	})
	// The cache's bytes, as /metrics shows them, all along.
	watchDone.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			held, err := documentCacheBytes(srv.URL)
			if err != nil {
				fail(err)
				return
			}
			if held > attackCacheBytes {
				mu.Lock()
				overfull = append(overfull, held)
				mu.Unlock()
			}
		}
	})
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	hotDone.Wait()
	watchDone.Wait()
	cpu := srv.CPUTime() - cpuBefore
	peak := srv.PeakRSSMiB()
	requests += len(during)

	for _, f := range failures {
		t.Error(f)
	}
	if len(overfull) > 0 {
		t.Errorf("/metrics showed the document cache over its %d bytes %d times, holding up to %.0f",
			attackCacheBytes, len(overfull), slices.Max(overfull))
	}
	hits := cacheSeries(t, srv.URL, "pact_cache_hits_total", "documents")
	misses := cacheSeries(t, srv.URL, "pact_cache_misses_total", "documents")
	t.Logf("%d requests in %v (%d of them of %d KB documents), %.0f%% of all reads so far from memory: pactd used %v of CPU, %.0f µs a request",
		requests, elapsed.Round(time.Millisecond), 4*64, attackBigBytes/1000, 100*hits/(hits+misses), cpu,
		float64(cpu.Microseconds())/float64(requests))
	t.Logf("hot reads before the attack: p50 %v, p99 %v; during it: p50 %v, p99 %v (%d reads)",
		percentile(before, 50), percentile(before, 99), percentile(during, 50), percentile(during, 99), len(during))
	// What pactd may add under the attack: the cache's bytes, the
	// answers in flight (16 clients, 4 of them on quarter-megabyte documents
	// read from SQLite and written out), and the collector's headroom
	// above what is live (GOGC=200).
	const allowance = 64
	t.Logf("pactd's resident set: %.1f MiB before the attack, a peak of %.1f MiB during it", rssBefore, peak)
	if peak-rssBefore > allowance {
		t.Errorf("pactd's peak RSS grew by %.1f MiB under the attack (%.1f to %.1f MiB), want at most %d MiB",
			peak-rssBefore, rssBefore, peak, allowance)
	}

	// The hot documents were read all along: the attack evicted none.
	hits = cacheSeries(t, srv.URL, "pact_cache_hits_total", "documents")
	if _, err := readHot(nil, 1); err != nil {
		t.Fatal(err)
	}
	if got := cacheSeries(t, srv.URL, "pact_cache_hits_total", "documents") - hits; got != attackHot {
		t.Errorf("after the attack, %v of the %d hot documents came from memory, want all", got, attackHot)
	}
}

// documentCacheBytes is what /metrics says the document cache holds (for
// a goroutine other than the test's, which cannot stop the test).
func documentCacheBytes(base string) (float64, error) {
	resp, err := httpClient.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	const prefix = `pact_cache_bytes{cache="documents"} `
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, fmt.Errorf("/metrics has no %s", strings.TrimSpace(prefix))
}

// TestLogTileCacheUnderAPartialTileSweep asks a real pactd for every
// partial tile of every tile its log holds, hash tiles and entry bundles of
// every width, from 8 clients at once: hundreds for each full tile, the
// smallest a single 32-byte hash. Each answer is right, the tile cache
// stays within its bytes (each tile counted with what it takes beside its
// data), and the full tiles read before it are still served from memory
// afterwards, though the sweep's answers add up to nearly twice the cache's
// bytes: it
// churns only partial tiles' share.
func TestLogTileCacheUnderAPartialTileSweep(t *testing.T) {
	t.Parallel()
	const full = 6 // full tiles at level 0, and full bundles (of publishes and the shorter pack-state entries)
	const n = full*256 + 10
	dsn := filepath.Join(t.TempDir(), "pact.db")
	t0 := time.Now()
	seedAlicePacks(t, dsn, n)
	t.Logf("TIMING seeded %v", time.Since(t0))
	srv := startPactd(t, dsn)
	t.Logf("TIMING started %v", time.Since(t0))
	logtest.WaitFor(t, srv.URL, n)
	t.Logf("TIMING waited %v", time.Since(t0))

	fetch := func(path string) ([]byte, error) {
		resp, err := httpClient.Get(srv.URL + "/log/" + path)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s: status %d: %s", path, resp.StatusCode, body)
		}
		return body, err
	}
	var hot []string
	fullTiles := map[string][]byte{}
	for i := range full {
		for _, p := range []string{fmt.Sprintf("tile/0/%03d", i), fmt.Sprintf("tile/entries/%03d", i)} {
			body, err := fetch(p)
			if err != nil {
				t.Fatal(err)
			}
			hot, fullTiles[p] = append(hot, p), body
		}
	}
	// Every partial tile: widths 1 to 255 of each full tile, and of the
	// right edge up to its width. A partial tile is the first W items of
	// its tile, so each must be a prefix of the full one.
	var partials []string
	for i := range full + 1 {
		widths := 255
		if i == full {
			widths = n - full*256
		}
		for w := 1; w <= widths; w++ {
			partials = append(partials, fmt.Sprintf("tile/0/%03d.p/%d", i, w), fmt.Sprintf("tile/entries/%03d.p/%d", i, w))
		}
	}
	for w := 1; w < full; w++ {
		partials = append(partials, fmt.Sprintf("tile/1/000.p/%d", w))
	}
	srv.ResetPeakRSS()
	rssBefore := srv.RSSMiB()
	cpuBefore := srv.CPUTime()
	start := time.Now()
	var wg sync.WaitGroup
	var swept atomic.Int64 // bytes of the sweep's answers
	errs := make(chan error, 8)
	for c := range 8 {
		wg.Go(func() {
			for j := c; j < len(partials); j += 8 {
				p := partials[j]
				body, err := fetch(p)
				if err != nil {
					errs <- err
					return
				}
				swept.Add(int64(len(body)))
				if tile, _, _ := strings.Cut(p, ".p/"); strings.HasPrefix(p, "tile/0/") && fullTiles[tile] != nil {
					if w, _ := strconv.Atoi(p[strings.LastIndex(p, "/")+1:]); string(body) != string(fullTiles[tile][:32*w]) {
						errs <- fmt.Errorf("%s is not the first %d hashes of %s", p, w, tile)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	cpu := srv.CPUTime() - cpuBefore
	t.Logf("%d partial tiles, %.1f MB, in %v; pactd used %v of CPU; resident set %.1f MiB before, a peak of %.1f MiB",
		len(partials), float64(swept.Load())/1e6, time.Since(start).Round(time.Millisecond), cpu, rssBefore, srv.PeakRSSMiB())
	held, limit := cacheSeries(t, srv.URL, "pact_cache_bytes", "log_tiles"), cacheSeries(t, srv.URL, "pact_cache_max_bytes", "log_tiles")
	if held > limit {
		t.Errorf("the tile cache holds %v bytes, over its %v", held, limit)
	}
	if float64(swept.Load()) < 1.5*limit {
		t.Errorf("the sweep's answers add up to %d bytes, not well over the cache's %v: this test no longer floods it", swept.Load(), limit)
	}
	hits := cacheSeries(t, srv.URL, "pact_cache_hits_total", "log_tiles")
	for _, p := range hot {
		if _, err := fetch(p); err != nil {
			t.Fatal(err)
		}
	}
	if got := cacheSeries(t, srv.URL, "pact_cache_hits_total", "log_tiles") - hits; got != float64(len(hot)) {
		t.Errorf("after the sweep, %v of the %d full tiles came from memory, want all", got, len(hot))
	}
}
