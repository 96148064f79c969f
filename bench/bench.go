package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// bench runs the measurements of one invocation.
type bench struct {
	cfg      config
	bin      string
	work     string
	nginx    string
	rep      *report
	progress func(format string, args ...any)
}

// startups is how many times pactd is started to measure its start-up; the
// median is reported.
const startups = 3

func (b *bench) measure(ctx context.Context) error {
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

	var web *nginx
	if b.nginx != "" {
		if web, err = startNginx(ctx, b.nginx, filepath.Join(b.work, "nginx"), db.Docs); err != nil {
			return fmt.Errorf("starting nginx: %w", err)
		}
		defer web.stop()
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
	defer server.stop()
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
	rawPath := fmt.Sprintf("GET /raw/{owner}/{pack}.pact.md (%d docs)", len(db.RawPaths))
	if web != nil {
		if err := getRow(web.URL, "raw-nginx", rawPath+" nginx", "nginx", db, db.RawPaths, nil); err != nil {
			return err
		}
	}
	if err := getRow(server.URL, "raw", rawPath, "pactd", db, db.RawPaths, server); err != nil {
		return err
	}
	if err := getRow(server.URL, "list", "GET /api/packages (page 1)", "pactd", db, []string{"/api/packages"}, server); err != nil {
		return err
	}
	deep := fmt.Sprintf("GET /api/packages (page %d via cursor)", db.DeepPage)
	if err := getRow(server.URL, "list-deep", deep, "pactd", db, []string{"/api/packages?cursor=" + db.DeepCursor}, server); err != nil {
		return err
	}

	r, kb, err := b.getConns(ctx, server.URL, "search", searchPaths(db.Packages), server, b.cfg.SearchConns)
	if err != nil {
		return err
	}
	peakKB = max(peakKB, kb)
	b.rep.add(rowOf("search", searchPath+", SQLite", "pactd", db.Packages, r, kb))
	// The transparency log's reads, against the raw path above.
	for _, p := range []struct {
		id, path string
		paths    []string
	}{
		{"log-checkpoint", "GET /log/checkpoint", []string{"/log/checkpoint"}},
		{"log-tile", fmt.Sprintf("GET /log/tile/0/{N} (%d tiles)", len(db.LogTiles)), db.LogTiles},
		{"log-entries", fmt.Sprintf("GET /log/tile/entries/{N} (%d bundles)", len(db.LogBundles)), db.LogBundles},
	} {
		if err := getRow(server.URL, p.id, p.path, "pactd", db, p.paths, server); err != nil {
			return err
		}
	}

	if ref != nil {
		if err := b.measureReference(ctx, ref); err != nil {
			return err
		}
	}

	maxPosts := int(b.cfg.Duration.Seconds() * float64(b.cfg.MaxPostRate))
	for _, p := range []struct {
		id, path, url string
		next          postRequest
	}{
		{"publish", "POST /api/publish (token)", "/api/publish", tokenPublish(db.Token, "token", b.cfg.DocBytes)},
		{"publish-signed", "POST /api/publish-signed (ed25519)", "/api/publish-signed", signedPublish(db, "signed", b.cfg.DocBytes)},
	} {
		b.progress("%s: %s", p.path, b.cfg.Duration)
		server.resetPeakRSS()
		prof := b.startProfile(server, p.id)
		r := runPosts(ctx, server.URL+p.url, b.cfg.Conns, b.cfg.Duration, maxPosts, p.next)
		if err := b.waitProfile(prof); err != nil {
			return err
		}
		kb := server.peakRSS()
		peakKB = max(peakKB, kb)
		b.rep.add(rowOf(p.id, p.path, "pactd", db.Packages, r, kb))
		if err := ctx.Err(); err != nil {
			return err
		}
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

// measureReference runs the GET paths on the small reference database, for
// the "within 1.25× of the 1,000-package figures" targets.
func (b *bench) measureReference(ctx context.Context, ref *seeded) error {
	server, err := startPactd(ctx, b.bin, ref.Path, filepath.Join(b.work, "pactd-reference.log"), false)
	if err != nil {
		return err
	}
	defer server.stop()
	if err := checkDeepPage(ctx, server.URL, ref); err != nil {
		return err
	}
	for _, p := range []struct{ id, path, paths string }{
		{"raw@ref", fmt.Sprintf("GET /raw/{owner}/{pack}.pact.md (%d docs)", len(ref.RawPaths)), ""},
		{"list@ref", "GET /api/packages (page 1)", "/api/packages"},
		{"list-deep@ref", fmt.Sprintf("GET /api/packages (page %d via cursor)", ref.DeepPage), "/api/packages?cursor=" + ref.DeepCursor},
	} {
		paths := ref.RawPaths
		if p.paths != "" {
			paths = []string{p.paths}
		}
		r, kb, err := b.get(ctx, server.URL, p.id, paths, server)
		if err != nil {
			return err
		}
		b.rep.add(rowOf(p.id, p.path, "pactd", ref.Packages, r, kb))
	}
	return nil
}

// get warms a GET path up, then measures it with wrk. p is the pactd
// serving it (nil for nginx), for its peak RSS and profile.
func (b *bench) get(ctx context.Context, base, id string, paths []string, p *pactd) (result, int64, error) {
	return b.getConns(ctx, base, id, paths, p, b.cfg.Conns)
}

// getConns is get with conns connections.
func (b *bench) getConns(ctx context.Context, base, id string, paths []string, p *pactd, conns int) (result, int64, error) {
	b.progress("%s: GET %s%s: %s, %d connections", id, base, paths[0], b.cfg.Duration, conns)
	if !b.cfg.Short {
		if _, err := runWrk(ctx, b.work, base, paths, conns, b.cfg.WrkThreads, time.Second); err != nil {
			return result{}, 0, err
		}
	}
	var prof <-chan error
	if p != nil {
		p.resetPeakRSS()
		prof = b.startProfile(p, id)
	}
	r, err := runWrk(ctx, b.work, base, paths, conns, b.cfg.WrkThreads, b.cfg.Duration)
	if err != nil {
		return result{}, 0, err
	}
	if err := b.waitProfile(prof); err != nil {
		return result{}, 0, err
	}
	var kb int64
	if p != nil {
		kb = p.peakRSS()
	}
	return r, kb, nil
}

func (b *bench) startProfile(p *pactd, id string) <-chan error {
	if b.cfg.PprofDir == "" || p.PprofURL == "" {
		return nil
	}
	name := fmt.Sprintf("%s-%d.pprof", id, b.cfg.Packages)
	return p.profile(b.cfg.Duration, filepath.Join(b.cfg.PprofDir, name))
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
	s, err := seedDatabase(ctx, path, packages, b.cfg.DocBytes, b.cfg.RawDocs)
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

func rowOf(id, path, server string, packages int, r result, peakKB int64) *row {
	return &row{
		ID: id, Path: path, Server: server, Packages: packages,
		Requests: r.Requests, RPS: r.rate(), P50ms: ms(r.P50), P99ms: ms(r.P99), Errors: r.Errors,
		PeakRSSMB: float64(peakKB) / 1024, Notes: r.FirstErrors,
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
