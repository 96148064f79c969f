package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// bench runs the measurements of one invocation.
type bench struct {
	// pids are the processes serving each base URL, for CPU per request.
	pids     map[string]int
	cfg      config
	bin      string
	work     string
	nginx    string
	rep      *report
	progress func(format string, args ...any)
	// cleanups stop what measure started besides pactd (the witnesses).
	cleanups []func()
}

// startups is how many times pactd is started to measure its start-up; the
// median is reported.
const startups = 3

func (b *bench) measure(ctx context.Context) error {
	defer func() {
		for _, cleanup := range b.cleanups {
			cleanup()
		}
	}()
	db, err := b.seed(ctx, "main.db", b.cfg.Packages)
	if err != nil {
		return err
	}
	var ref *seeded
	if b.cfg.Reference > 0 && b.cfg.Packages > b.cfg.Reference {
		if ref, err = b.seed(ctx, "reference.db", b.cfg.Reference); err != nil {
			return err
		}
	}

	// nginx and the bare Go server serve the same documents from files
	// (nginx) and memory (Go).
	www := filepath.Join(b.work, "www")
	if err := writeDocs(www, db.Docs); err != nil {
		return err
	}
	var web *nginx
	if b.nginx != "" {
		if web, err = startNginx(ctx, b.nginx, filepath.Join(b.work, "nginx"), www, db.RawPaths[0]); err != nil {
			return fmt.Errorf("starting nginx: %w", err)
		}
		defer web.stop()
	}
	bare, err := startBare(ctx, www)
	if err != nil {
		return err
	}
	defer bare.stop()
	b.pids = map[string]int{bare.URL: bare.cmd.Process.Pid}
	if web != nil {
		b.pids[web.URL] = web.cmd.Process.Pid
	}

	// Start-up: the median of a few starts on the seeded database; the
	// last one stays up for the load.
	var times []time.Duration
	var server *pactd
	for i := range startups {
		server, err = startPactd(ctx, b.bin, db.Path, filepath.Join(b.work, "pactd.log"), b.cfg.PprofDir != "")
		if err != nil {
			return err
		}
		times = append(times, server.StartedIn)
		if i < startups-1 {
			if err := server.stop(); err != nil {
				return fmt.Errorf("stopping pactd: %w", err)
			}
		}
	}
	defer func() { server.stop() }() // the last pactd started, the witnessed one
	slices.Sort(times)
	b.rep.add(&row{ID: "startup", Path: "pactd serve: start-up to first answer", Server: "pactd", Packages: db.Packages,
		P50ms: ms(times[len(times)/2]), P99ms: ms(times[len(times)-1]),
		Notes: []string{fmt.Sprintf("%d starts (p50 = median, p99 column = slowest); answer = 200 to GET /api/packages?limit=1", startups)}})

	if err := checkDeepPage(ctx, server.URL, db); err != nil {
		return err
	}

	var peakKB int64
	getRow := func(target, id, path, server string, s *seeded, paths []string, p *pactd) error {
		r, kb, err := b.get(ctx, target, id, paths, p)
		if err != nil {
			return err
		}
		peakKB = max(peakKB, kb)
		b.rep.add(rowOf(id, path, server, s.Packages, r, kb))
		return nil
	}
	// onEachServer measures paths on nginx, the bare Go server (the
	// ceiling for Go) and pactd, in turns (getEach): rows id-nginx, id-go
	// and id.
	onEachServer := func(id, path string, paths []string) error {
		var targets []target
		for _, t := range []target{{id + "-nginx", "nginx", urlOf(web), nil}, {id + "-go", "bare Go", bare.URL, nil}, {id, "pactd", server.URL, server}} {
			if t.base != "" {
				targets = append(targets, t)
			}
		}
		rs, kbs, err := b.getEach(ctx, targets, paths, b.cfg.Conns, interleavedRounds)
		if err != nil {
			return err
		}
		for i, t := range targets {
			peakKB = max(peakKB, kbs[i])
			b.rep.add(rowOf(t.id, path+" "+t.server, t.server, db.Packages, rs[i], kbs[i]))
		}
		return nil
	}
	hot := db.hotPaths(b.cfg.RawDocs)
	if err := onEachServer("raw", fmt.Sprintf("GET /raw/{owner}/{pack}.pact.md (%d docs)", len(hot)), hot); err != nil {
		return err
	}
	if err := getRow(server.URL, "list", "GET /api/packages (page 1)", "pactd", db, []string{"/api/packages"}, server); err != nil {
		return err
	}
	kb, err := b.measureDeep(ctx, server, db, "")
	if err != nil {
		return err
	}
	peakKB = max(peakKB, kb)

	kb, err = b.measureSearch(ctx, "search", searchPath+", SQLite", db, server)
	if err != nil {
		return err
	}
	peakKB = max(peakKB, kb)
	// The transparency log's reads, against the raw path above. nginx and
	// the bare Go server serve the same tiles and bundles from files and
	// memory first: what a static server gets out of this machine for
	// answers of their size, against its own raw rate.
	if err := getRow(server.URL, "log-checkpoint", "GET /log/checkpoint", "pactd", db, []string{"/log/checkpoint"}, server); err != nil {
		return err
	}
	for _, p := range []struct {
		id, path string
		paths    []string
	}{
		{"log-tile", fmt.Sprintf("GET /log/tile/0/{N} (%d tiles)", len(db.LogTiles)), db.LogTiles},
		{"log-entries", fmt.Sprintf("GET /log/tile/entries/{N} (%d bundles)", len(db.LogBundles)), db.LogBundles},
	} {
		if err := onEachServer(p.id, p.path, p.paths); err != nil {
			return err
		}
	}

	// A working set ten times the cache: the database's read path.
	kb, err = b.measureCold(ctx, db, "", urlOf(web))
	if err != nil {
		return err
	}
	peakKB = max(peakKB, kb)
	if ref != nil {
		if err := b.measureReference(ctx, ref); err != nil {
			return err
		}
	}

	maxPosts := int(b.cfg.Duration.Seconds() * float64(b.cfg.MaxPostRate))
	kb, err = b.measurePosts(ctx, server, db, "", "", true, maxPosts)
	if err != nil {
		return err
	}
	peakKB = max(peakKB, kb)
	if server, err = b.measureWitnessedPosts(ctx, server, db, maxPosts); err != nil {
		return fmt.Errorf("publishing with witnesses: %w", err)
	}
	if b.cfg.Postgres != "" {
		if err := b.measureSearchOnPostgres(ctx); err != nil {
			return fmt.Errorf("search on PostgreSQL: %w", err)
		}
	}
	b.rep.add(&row{ID: "rss", Path: "pactd peak RSS under load", Server: "pactd", Packages: db.Packages, PeakRSSMB: float64(peakKB) / 1024,
		Notes: []string{"VmHWM of /proc/PID/status, reset before each path where the kernel allows"}})
	return nil
}

func urlOf(n *nginx) string {
	if n == nil {
		return ""
	}
	return n.URL
}

// measurePosts runs the publish paths on server; suffix ("" or
// "@postgres") names the rows.
// measurePosts measures the publish rows on server: the token publish
// and, when signed, the ed25519-signed one; suffix ends their row ids and
// label their paths.
func (b *bench) measurePosts(ctx context.Context, server *pactd, db *seeded, suffix, label string, signed bool, maxPosts int) (int64, error) {
	var peakKB int64
	engine := label
	for _, p := range []struct {
		id, path, url string
		next          postRequest
	}{
		{"publish", "POST /api/publish (token)", "/api/publish", tokenPublish(db.Token, "token", b.cfg.DocBytes)},
		{"publish-signed", "POST /api/publish-signed (ed25519)", "/api/publish-signed", signedPublish(db, "signed", b.cfg.DocBytes)},
	} {
		if !signed && p.id == "publish-signed" {
			continue
		}
		b.progress("%s%s: %s", p.path, engine, b.cfg.Duration)
		server.resetPeakRSS()
		prof := b.startProfile(server, p.id+suffix, b.cfg.Duration)
		cpu0 := processCPU(server.cmd.Process.Pid)
		r := runPosts(ctx, server.URL+p.url, b.cfg.Conns, b.cfg.Duration, maxPosts, p.next)
		r.CPU = processCPU(server.cmd.Process.Pid) - cpu0
		if err := b.waitProfile(prof); err != nil {
			return 0, err
		}
		kb := server.peakRSS()
		peakKB = max(peakKB, kb)
		row := b.rep.add(rowOf(p.id+suffix, p.path+engine, "pactd", db.Packages, r, kb))
		row.Notes = append(row.Notes, generatorNote(r))
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	return peakKB, nil
}

// coldCacheBytes is the read cache of the pactd measuring a working set of
// docs documents: a tenth of their size as the cache counts it, so about
// nine reads in ten go to the database whatever the database's size.
func (b *bench) coldCacheBytes(docs int) int64 {
	const entryOverhead = 600 // the cache's count of a document beyond its content (sqlstore docOverhead and key)
	return max(int64(docs)*int64(b.cfg.DocBytes+entryOverhead)/coldFactor, 1)
}

// coldFactor is how many times the working set of the cold rows exceeds
// pactd's read cache.
const coldFactor = 10

// measureCold measures the raw path and the list's first page over a
// working set ten times pactd's read cache, on a pactd of its own started
// with that cache (--db-read-cache-bytes): these rows measure the database
// at scale, and are what the "within 1.25×" targets compare. suffix names
// the rows ("" or "@ref"); nginxURL adds nginx on the same documents.
func (b *bench) measureCold(ctx context.Context, db *seeded, suffix, nginxURL string) (int64, error) {
	cold := db.hotPaths(b.cfg.ColdDocs)
	cache := b.coldCacheBytes(len(cold))
	server, err := startPactd(ctx, b.bin, db.Path, filepath.Join(b.work, "pactd-cold"+suffix+".log"), b.cfg.PprofDir != "",
		"--db-read-cache-bytes", fmt.Sprint(cache))
	if err != nil {
		return 0, err
	}
	defer server.stop()
	note := fmt.Sprintf("working set %d documents, %.1f× pactd's read cache of %d bytes (--db-read-cache-bytes)",
		len(cold), float64(len(cold)*(b.cfg.DocBytes+600))/float64(cache), cache)
	var peakKB int64
	rawPath := fmt.Sprintf("GET /raw/{owner}/{pack}.pact.md (%d docs, 10× the cache)", len(cold))
	targets := []target{{"raw-cold" + suffix, "pactd", server.URL, server}}
	if nginxURL != "" {
		// The ceiling beside nginx: a bare Go server that reads every
		// answer from the same database by primary key.
		bare, err := startBareSQLite(ctx, db.Path, filepath.Join(b.work, "cold-paths"+suffix+".txt"), cold)
		if err != nil {
			return 0, err
		}
		defer bare.stop()
		b.pids[bare.URL] = bare.cmd.Process.Pid
		targets = append([]target{{"raw-cold-nginx" + suffix, "nginx", nginxURL, nil},
			{"raw-cold-go" + suffix, "bare Go + SQLite", bare.URL, nil}}, targets...)
		// The same documents on a blob store: a directory, and S3; and
		// the ceiling of the first, a bare Go server sending the files
		// nginx serves.
		bareFiles, err := startBareFiles(ctx, filepath.Join(b.work, "www"))
		if err != nil {
			return 0, err
		}
		defer bareFiles.stop()
		b.pids[bareFiles.URL] = bareFiles.cmd.Process.Pid
		blobs, stop, err := b.blobTargets(ctx, db, cache)
		defer stop()
		if err != nil {
			return 0, err
		}
		targets = append(targets, target{"raw-cold-go-files" + suffix, "bare Go + files", bareFiles.URL, nil})
		targets = append(targets, blobs...)
	}
	rounds := 1
	if len(targets) > 1 {
		rounds = interleavedRounds
	}
	rs, kbs, err := b.getEach(ctx, targets, cold, b.cfg.Conns, rounds)
	if err != nil {
		return 0, err
	}
	for i, t := range targets {
		peakKB = max(peakKB, kbs[i])
		row := b.rep.add(rowOf(t.id, rawPath+" "+t.server, t.server, db.Packages, rs[i], kbs[i]))
		if t.p != nil {
			row.Notes = append(row.Notes, note)
		}
	}
	// More distinct first pages than the server's cache of encoded first
	// pages holds (256): a cache-busting parameter the API ignores.
	lists := make([]string, 1000)
	for i := range lists {
		lists[i] = fmt.Sprintf("/api/packages?limit=20&n=%d", i)
	}
	r, kb, err := b.get(ctx, server.URL, "list-cold"+suffix, lists, server)
	if err != nil {
		return 0, err
	}
	peakKB = max(peakKB, kb)
	row := b.rep.add(rowOf("list-cold"+suffix, "GET /api/packages (page 1, 1,000 distinct queries)", "pactd", db.Packages, r, kb))
	row.Notes = append(row.Notes, "more distinct first pages than the 256 the server keeps encoded: the store answers")
	return peakKB, nil
}

// measureReference runs the GET paths on the small reference database, for
// the "within 1.25× of the 1,000-package figures" targets: the raw path and
// the first page over working sets ten times the cache (as the main rows),
// and the deep page (never cached).
func (b *bench) measureReference(ctx context.Context, ref *seeded) error {
	if _, err := b.measureCold(ctx, ref, "@ref", ""); err != nil {
		return err
	}
	server, err := startPactd(ctx, b.bin, ref.Path, filepath.Join(b.work, "pactd-reference.log"), false)
	if err != nil {
		return err
	}
	defer server.stop()
	if err := checkDeepPage(ctx, server.URL, ref); err != nil {
		return err
	}
	_, err = b.measureDeep(ctx, server, ref, "@ref")
	return err
}

// measureDeep measures the deep page on server in turns with its ceiling:
// the bare Go server that reads the same page through the same query and
// writes the same bytes. suffix ("" or "@ref") names the rows.
func (b *bench) measureDeep(ctx context.Context, server *pactd, db *seeded, suffix string) (int64, error) {
	bare, err := startBareList(ctx, db.Path, server.URL)
	if err != nil {
		return 0, err
	}
	defer bare.stop()
	b.pids[bare.URL] = bare.cmd.Process.Pid
	paths := []string{"/api/packages?cursor=" + db.DeepCursor}
	if err := sameAnswers(ctx, server.URL, bare.URL, paths[0]); err != nil {
		if b.cfg.Pactd == "" {
			return 0, err
		}
		// Another build's pactd (-pactd) may answer a page of another
		// shape than this bench's bare server writes: measured all the same.
		b.progress("the deep page of %s differs from the bare Go server's (%v): its ceiling row compares unlike answers", b.cfg.Pactd, err)
	}
	deep := fmt.Sprintf("GET /api/packages (page %d via cursor)", db.DeepPage)
	rs, kbs, err := b.getEach(ctx, []target{{"list-deep-go" + suffix, "bare Go + SQLite", bare.URL, nil}, {"list-deep" + suffix, "pactd", server.URL, server}},
		paths, b.cfg.Conns, interleavedRounds)
	if err != nil {
		return 0, err
	}
	b.rep.add(rowOf("list-deep-go"+suffix, deep+" bare Go + SQLite", "bare Go + SQLite", db.Packages, rs[0], kbs[0]))
	b.rep.add(rowOf("list-deep"+suffix, deep+" pactd", "pactd", db.Packages, rs[1], kbs[1]))
	return kbs[1], nil
}

// get warms a GET path up, then measures it with wrk. p is the pactd
// serving it (nil for nginx), for its peak RSS and profile.
func (b *bench) get(ctx context.Context, base, id string, paths []string, p *pactd) (result, int64, error) {
	return b.getConns(ctx, base, id, paths, p, b.cfg.Conns)
}

// getConns is get with conns connections.
func (b *bench) getConns(ctx context.Context, base, id string, paths []string, p *pactd, conns int) (result, int64, error) {
	rs, kbs, err := b.getEach(ctx, []target{{id: id, base: base, p: p}}, paths, conns, 1)
	if err != nil {
		return result{}, 0, err
	}
	return rs[0], kbs[0], nil
}

// target is one server a row measures: its row id, the server's name in
// the row, its URL, and the pactd behind it (nil for nginx and the bare Go
// server).
type target struct {
	id, server, base string
	p                *pactd
}

// interleavedRounds is how many turns the servers compared on one path take
// (getEach). This machine's speed moves by tens of percent from one minute
// to the next (measured 2026-11-24, in the git history of BENCHMARKS.md); a server measured
// for its whole ten seconds after another could be measured in a slow
// minute the other missed.
const interleavedRounds = 5

// getEach warms every target up on paths, then measures them in turns:
// rounds rounds, each of Duration/rounds (whole seconds, at least one) per
// target, one target after the other. A target's result adds up its rounds
// (requests, time, errors, its server's CPU, latency histogram:
// roundsResult). The peak RSS is a pactd's over all its rounds; with
// -pprof, its profile covers its first round.
func (b *bench) getEach(ctx context.Context, targets []target, paths []string, conns, rounds int) ([]result, []int64, error) {
	if b.cfg.Short {
		rounds = 1 // CI's form only checks that every request succeeds
	}
	slice := b.cfg.Duration
	if rounds > 1 {
		slice = max(time.Second, (b.cfg.Duration / time.Duration(rounds)).Round(time.Second))
	}
	for _, t := range targets {
		b.progress("%s: GET %s%s: %s, %d connections", t.id, t.base, paths[0], b.cfg.Duration, conns)
		if b.cfg.Short {
			continue
		}
		if err := warmUp(ctx, t.base, paths, conns); err != nil {
			return nil, nil, err
		}
		if _, err := runWrk(ctx, b.work, t.base, paths, conns, b.cfg.WrkThreads, time.Second); err != nil {
			return nil, nil, err
		}
	}
	if rounds > 1 {
		b.progress("measuring %d servers in %d turns of %s each", len(targets), rounds, slice)
	}
	each := make([][]result, len(targets))
	for _, t := range targets {
		if t.p != nil {
			t.p.resetPeakRSS()
		}
	}
	for round := range rounds {
		for i, t := range targets {
			var prof <-chan error
			if t.p != nil && round == 0 {
				prof = b.startProfile(t.p, t.id, slice)
			}
			pid := b.pids[t.base]
			if t.p != nil {
				pid = t.p.cmd.Process.Pid
			}
			var cpu0 time.Duration
			if pid != 0 {
				cpu0 = processCPU(pid)
			}
			r, err := runWrk(ctx, b.work, t.base, paths, conns, b.cfg.WrkThreads, slice)
			if err != nil {
				return nil, nil, err
			}
			if pid != 0 {
				r.CPU = processCPU(pid) - cpu0
			}
			if err := b.waitProfile(prof); err != nil {
				return nil, nil, err
			}
			each[i] = append(each[i], r)
		}
	}
	results := make([]result, len(targets))
	kbs := make([]int64, len(targets))
	for i, t := range targets {
		results[i] = roundsResult(each[i])
		if t.p != nil {
			kbs[i] = t.p.peakRSS()
		}
	}
	return results, kbs, nil
}

// roundsResult is one result of a server's rounds: their requests, time,
// errors and CPU added up, and the percentiles of their latency
// histograms put together, as wrk computes them (wrkPercentile). With one
// round, that round.
func roundsResult(rounds []result) result {
	if len(rounds) == 1 {
		return rounds[0]
	}
	var r result
	counts := map[int64]int64{}
	for _, x := range rounds {
		r.Requests += x.Requests
		r.Elapsed += x.Elapsed
		r.Errors += x.Errors
		r.CPU += x.CPU
		if len(r.FirstErrors) < 3 {
			r.FirstErrors = append(r.FirstErrors, x.FirstErrors...)
		}
		for _, vc := range x.Hist {
			counts[vc[0]] += vc[1]
		}
	}
	for v, c := range counts {
		r.Hist = append(r.Hist, [2]int64{v, c})
	}
	slices.SortFunc(r.Hist, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	r.P50 = wrkPercentile(r.Hist, 50)
	r.P99 = wrkPercentile(r.Hist, 99)
	return r
}

// wrkPercentile is wrk's percentile of a latency histogram (stats_percentile
// in its source): the lowest latency whose running count reaches
// round(p/100 × count + 0.5).
func wrkPercentile(hist [][2]int64, p float64) time.Duration {
	var n int64
	for _, vc := range hist {
		n += vc[1]
	}
	rank := int64(math.Round(p/100*float64(n) + 0.5))
	var total int64
	for _, vc := range hist {
		if total += vc[1]; total >= rank {
			return time.Duration(vc[0]) * time.Microsecond
		}
	}
	return 0
}

func (b *bench) startProfile(p *pactd, id string, d time.Duration) <-chan error {
	if b.cfg.PprofDir == "" || p.PprofURL == "" {
		return nil
	}
	name := fmt.Sprintf("%s-%d.pprof", id, b.cfg.Packages)
	return p.profile(d, filepath.Join(b.cfg.PprofDir, name))
}

func (b *bench) waitProfile(prof <-chan error) error {
	if prof == nil {
		return nil
	}
	if err := <-prof; err != nil {
		return fmt.Errorf("profiling pactd: %w", err)
	}
	return nil
}

func (b *bench) seed(ctx context.Context, name string, packages int) (*seeded, error) {
	path, engine := filepath.Join(b.work, name), "SQLite"
	if isPostgres(name) {
		path, engine = name, "PostgreSQL"
	}
	b.progress("seeding %d packages into %s", packages, path)
	s, err := seedDatabase(ctx, path, packages, b.cfg.DocBytes, max(b.cfg.RawDocs, b.cfg.ColdDocs))
	if err != nil {
		return nil, err
	}
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if info, err := os.Stat(s.Path + suffix); err == nil && engine == "SQLite" {
			size += info.Size()
		}
	}
	if engine == "PostgreSQL" {
		size = postgresSize(ctx, path)
	}
	b.rep.Seeded = append(b.rep.Seeded, seedSummary{Packages: packages, Engine: engine, Seconds: s.Took.Seconds(), DBMB: float64(size) / (1 << 20)})
	b.progress("seeded %d packages in %s", packages, s.Took.Round(time.Millisecond))
	return s, nil
}

// checkDeepPage makes sure the deep list path really reads a full page, so
// the bench measures what it claims to.
func checkDeepPage(ctx context.Context, base string, s *seeded) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/packages?cursor="+s.DeepCursor, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var page struct {
		Packages []json.RawMessage `json:"packages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("page %d: %s, %v", s.DeepPage, resp.Status, err)
	}
	want := min(listPageSize, s.Packages-(s.DeepPage-1)*listPageSize)
	if len(page.Packages) != want {
		return fmt.Errorf("page %d holds %d packages, want %d", s.DeepPage, len(page.Packages), want)
	}
	return nil
}

// sameAnswers makes sure two servers answer path with the same 200 and
// body, so that a ceiling measured beside pactd does the same work.
func sameAnswers(ctx context.Context, pactdURL, otherURL, path string) error {
	var bodies [2][]byte
	for i, base := range []string{pactdURL, otherURL} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		bodies[i], err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s%s: %s", base, path, resp.Status)
		}
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		return fmt.Errorf("%s answers %s with %d bytes other than pactd's %d: the bench's ceiling no longer does pactd's work",
			otherURL, path, len(bodies[1]), len(bodies[0]))
	}
	return nil
}

func rowOf(id, path, server string, packages int, r result, peakKB int64) *row {
	return &row{
		ID: id, Path: path, Server: server, Packages: packages,
		Requests: r.Requests, RPS: r.rate(), P50ms: ms(r.P50), P99ms: ms(r.P99), Errors: r.Errors, CPUus: r.cpuPerRequest(),
		PeakRSSMB: float64(peakKB) / 1024, Notes: r.FirstErrors,
	}
}

// generatorNote says what the Go load generator itself cost during a
// publish row: the CPU pactd could not have on a machine of two cores.
func generatorNote(r result) string {
	per := 0.0
	if r.Requests > 0 {
		per = float64(r.GeneratorCPU.Microseconds()) / float64(r.Requests)
	}
	return fmt.Sprintf("load generator: %.0f µs of CPU per 200 (requests made before the clock started; %d made while measuring)",
		per, r.MadeWhileMeasuring)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// hotPaths are n of the seeded raw paths, spread evenly over them (and so
// over the database).
func (s *seeded) hotPaths(n int) []string {
	all := s.RawPaths
	if n >= len(all) {
		return all
	}
	hot := make([]string, n)
	for j := range hot {
		hot[j] = all[j*len(all)/n]
	}
	return hot
}
