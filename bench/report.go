package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-sqlite3"
)

// row is one line of the table.
type row struct {
	ID        string  `json:"id"`
	Path      string  `json:"path"`
	Server    string  `json:"server"`
	Packages  int     `json:"packages"`
	Requests  int64   `json:"requests,omitempty"`
	RPS       float64 `json:"requests_per_second,omitempty"`
	P50ms     float64 `json:"p50_ms,omitempty"`
	P99ms     float64 `json:"p99_ms,omitempty"`
	Errors    int64   `json:"errors"`
	PeakRSSMB float64 `json:"peak_rss_mb,omitempty"`
	// CPUus is the server's CPU time per 200 answer (all its processes),
	// which depends little on the machine's other load.
	CPUus   float64 `json:"cpu_us_per_request,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"`
	RatioOf string  `json:"ratio_of,omitempty"` // what the ratio compares to
	// RatioGo is the raw path's (or a log read's) rate against the bare
	// Go server on the same answers: the ceiling for a Go server on this
	// machine. For the raw path over ten times the cache, against the bare
	// Go server reading each answer from SQLite.
	RatioGo float64  `json:"ratio_bare_go,omitempty"`
	Checks  []check  `json:"targets,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// check is one target of a row.
type check struct {
	Target string  `json:"target"`
	Value  float64 `json:"value"`
	Met    bool    `json:"met"`
}

func (r *row) met() bool {
	for _, c := range r.Checks {
		if !c.Met {
			return false
		}
	}
	return true
}

type machine struct {
	CPU      string `json:"cpu"`
	Cores    int    `json:"cores"`
	MemoryMB int64  `json:"memory_mb"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
	SQLite   string `json:"sqlite"`
	Wrk      string `json:"wrk"`
	Nginx    string `json:"nginx,omitempty"`
	// LoadBefore is the 1-minute load average when the run began: the
	// machine is shared, and other work skews every figure.
	LoadBefore string `json:"load_before"`
}

type report struct {
	Config   config        `json:"config"`
	Command  string        `json:"command"`
	Machine  machine       `json:"machine"`
	Seeded   []seedSummary `json:"seeded"`
	Rows     []*row        `json:"rows"`
	Finished time.Time     `json:"finished"`
}

type seedSummary struct {
	Packages int     `json:"packages"`
	Engine   string  `json:"engine"`
	Seconds  float64 `json:"seconds"`
	DBMB     float64 `json:"database_mb"`
}

func (rep *report) row(id string) *row {
	for _, r := range rep.Rows {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func (rep *report) add(r *row) *row {
	rep.Rows = append(rep.Rows, r)
	return r
}

// Failed reports whether any request of any path failed.
func (rep *report) Failed() bool {
	for _, r := range rep.Rows {
		if r.Errors > 0 {
			return true
		}
	}
	return false
}

// Missed counts the targets not met.
func (rep *report) Missed() int {
	n := 0
	for _, r := range rep.Rows {
		for _, c := range r.Checks {
			if !c.Met {
				n++
			}
		}
	}
	return n
}

// The targets pactd is held to on a 2-core machine (BENCHMARKS.md).
const (
	rawVsNginx        = 0.9
	coldVsNginx       = 0.5
	filesVsNginx      = 0.8
	postgresVsSQLite  = 0.5
	maxDeepP99ms      = 10
	listVsRaw         = 0.5
	logVsRaw          = 0.5
	maxGetP99ms       = 10
	minPublishRate    = 2500
	minSignedRate     = 1500
	maxLargeVsRef     = 1.25
	maxPeakRSSMB      = 150
	maxStartupSeconds = 0.5
	maxSearchP99ms    = 20
)

// evaluate computes the ratios and checks every target the measured rows allow.
func (rep *report) evaluate() {
	atLeast := func(r *row, target string, value, limit float64) {
		r.Checks = append(r.Checks, check{Target: target, Value: value, Met: value >= limit})
	}
	atMost := func(r *row, target string, value, limit float64) {
		r.Checks = append(r.Checks, check{Target: target, Value: value, Met: value <= limit})
	}
	raw, nginx := rep.row("raw"), rep.row("raw-nginx")
	if raw != nil && nginx != nil && nginx.RPS > 0 {
		raw.Ratio, raw.RatioOf = raw.RPS/nginx.RPS, "nginx"
		atLeast(raw, fmt.Sprintf("≥ %.1f× nginx", rawVsNginx), raw.Ratio, rawVsNginx)
	}
	if g := rep.row("raw-go"); raw != nil && g != nil && g.RPS > 0 {
		raw.RatioGo = raw.RPS / g.RPS
		if nginx != nil && nginx.RPS > 0 {
			g.Ratio, g.RatioOf = g.RPS/nginx.RPS, "nginx"
			if g.Ratio < rawVsNginx {
				raw.Notes = append(raw.Notes, aboveCeiling("bare Go, with none of pactd's features,", g.Ratio, rawVsNginx))
			}
		}
	}
	// CPU per request, the figure other load on the machine skews least.
	if raw != nil && raw.CPUus > 0 {
		for _, other := range []*row{nginx, rep.row("raw-go")} {
			if other != nil && other.CPUus > 0 {
				raw.Notes = append(raw.Notes, fmt.Sprintf("CPU per answer: pactd %.1f µs, %s %.1f µs (pactd needs %.2f× its CPU)",
					raw.CPUus, other.Server, other.CPUus, raw.CPUus/other.CPUus))
			}
		}
	}
	if cold, coldNginx := rep.row("raw-cold"), rep.row("raw-cold-nginx"); cold != nil && coldNginx != nil && coldNginx.RPS > 0 {
		cold.Ratio, cold.RatioOf = cold.RPS/coldNginx.RPS, "nginx"
		atLeast(cold, fmt.Sprintf("≥ %.1f× nginx", coldVsNginx), cold.Ratio, coldVsNginx)
		if g := rep.row("raw-cold-go"); g != nil && g.RPS > 0 {
			withCeiling(cold, g, coldNginx, coldVsNginx, "bare Go reading every answer from SQLite by primary key", "bare Go reading from SQLite")
		}
	}
	// The same working set with the documents on a blob store: from
	// files (sendfile) held to 0.8× nginx on the same files; from S3 its
	// ratio only (every miss is a request to the object storage).
	if coldNginx := rep.row("raw-cold-nginx"); coldNginx != nil && coldNginx.RPS > 0 {
		if files := rep.row("raw-cold-files"); files != nil {
			files.Ratio, files.RatioOf = files.RPS/coldNginx.RPS, "nginx"
			atLeast(files, fmt.Sprintf("≥ %.1f× nginx", filesVsNginx), files.Ratio, filesVsNginx)
			if g := rep.row("raw-cold-go-files"); g != nil && g.RPS > 0 {
				withCeiling(files, g, coldNginx, filesVsNginx, "bare Go opening and sending every file (http.ServeContent)", "bare Go sending files")
				if files.CPUus > 0 && g.CPUus > 0 {
					files.Notes = append(files.Notes, fmt.Sprintf("CPU per answer: pactd %.1f µs, bare Go %.1f µs, nginx %.1f µs", files.CPUus, g.CPUus, coldNginx.CPUus))
				}
			}
		}
		if s3 := rep.row("raw-cold-s3"); s3 != nil {
			s3.Ratio, s3.RatioOf = s3.RPS/coldNginx.RPS, "nginx"
		}
	}
	// The list target is the list as clients ask for it: the first page.
	for _, id := range []string{"list", "list-deep"} {
		if r := rep.row(id); r != nil && raw != nil && raw.RPS > 0 {
			r.Ratio, r.RatioOf = r.RPS/raw.RPS, "pactd raw"
			if id == "list" {
				atLeast(r, fmt.Sprintf("≥ %.1f× pactd raw", listVsRaw), r.Ratio, listVsRaw)
			}
		}
	}
	// The transparency log's reads are held to half of pactd's raw path.
	// Beside each, the static servers on the same bytes: their rate against
	// their own raw rate is the ceiling the target meets or not.
	for _, id := range []string{"log-checkpoint", "log-tile", "log-entries"} {
		r := rep.row(id)
		if r == nil || raw == nil || raw.RPS <= 0 {
			continue
		}
		r.Ratio, r.RatioOf = r.RPS/raw.RPS, "pactd raw"
		atLeast(r, fmt.Sprintf("≥ %.1f× pactd raw", logVsRaw), r.Ratio, logVsRaw)
		if g := rep.row(id + "-go"); g != nil && g.RPS > 0 {
			r.RatioGo = r.RPS / g.RPS
		}
		ceilings, reached := 0, false
		for _, s := range []struct{ suffix, rawID string }{{"-nginx", "raw-nginx"}, {"-go", "raw-go"}} {
			static, staticRaw := rep.row(id+s.suffix), rep.row(s.rawID)
			if static == nil || staticRaw == nil || staticRaw.RPS <= 0 {
				continue
			}
			static.Ratio, static.RatioOf = static.RPS/staticRaw.RPS, static.Server+" raw"
			r.Notes = append(r.Notes, fmt.Sprintf("the ceiling: %s serves the same answers at %.2f× its own raw rate", static.Server, static.Ratio))
			ceilings++
			reached = reached || static.Ratio >= logVsRaw
		}
		if ceilings > 0 && !reached {
			r.Notes = append(r.Notes, fmt.Sprintf("the target (%.1f× raw) is above the ceiling in this run: no static server reached it", logVsRaw))
		}
	}
	// Scale: the rows that reach the database (working sets ten times the
	// cache, and the deep page) within 1.25× of the reference database.
	for _, id := range []string{"raw-cold", "list-cold", "list-deep"} {
		r, ref := rep.row(id), rep.row(id+"@ref")
		if r != nil && ref != nil && r.RPS > 0 {
			slower := ref.RPS / r.RPS
			atMost(r, fmt.Sprintf("within %.2f× of %d packages (%.2f×)", maxLargeVsRef, ref.Packages, slower), slower, maxLargeVsRef)
		}
	}
	// "p99 of the GETs above": raw and the list's first page; the deep page
	// has its own.
	for _, id := range []string{"raw", "list"} {
		if r := rep.row(id); r != nil {
			atMost(r, fmt.Sprintf("p99 ≤ %d ms", maxGetP99ms), r.P99ms, maxGetP99ms)
		}
	}
	if r := rep.row("list-deep"); r != nil {
		atMost(r, fmt.Sprintf("p99 ≤ %d ms", maxDeepP99ms), r.P99ms, maxDeepP99ms)
		// Its ceiling: the bare Go server reading the same page through
		// the same query and writing the same bytes, measured in turns.
		if g := rep.row("list-deep-go"); g != nil && g.RPS > 0 {
			r.RatioGo = r.RPS / g.RPS
			r.Notes = append(r.Notes, fmt.Sprintf("the ceiling: bare Go, reading the same page through the same query and writing the same bytes, had p99 %s and %.1f µs of CPU per answer (pactd %.1f µs, %.2f× its CPU)",
				fmtMS(g.P99ms), g.CPUus, r.CPUus, r.CPUus/g.CPUus))
			if g.P99ms > maxDeepP99ms {
				r.Notes = append(r.Notes, fmt.Sprintf("the target (p99 ≤ %d ms) is above the ceiling in this run: bare Go's p99 was %s", maxDeepP99ms, fmtMS(g.P99ms)))
			}
		}
	}
	if pg := rep.row("raw@postgres"); pg != nil && raw != nil && raw.RPS > 0 {
		pg.Ratio, pg.RatioOf = pg.RPS/raw.RPS, "pactd raw on SQLite"
		atLeast(pg, fmt.Sprintf("≥ %.1f× SQLite", postgresVsSQLite), pg.Ratio, postgresVsSQLite)
	}
	for _, id := range []string{"search", "search@postgres"} {
		if r := rep.row(id); r != nil {
			atMost(r, fmt.Sprintf("p99 ≤ %d ms", maxSearchP99ms), r.P99ms, maxSearchP99ms)
		}
	}
	// Publishing keeps its rates with two witnesses cosigning every
	// checkpoint (the -witnessed rows).
	for _, suffix := range []string{"", "-witnessed"} {
		if r := rep.row("publish" + suffix); r != nil {
			atLeast(r, fmt.Sprintf("≥ %d/s", minPublishRate), r.RPS, minPublishRate)
		}
		if r := rep.row("publish-signed" + suffix); r != nil {
			atLeast(r, fmt.Sprintf("≥ %d/s", minSignedRate), r.RPS, minSignedRate)
		}
	}
	if r := rep.row("rss"); r != nil {
		atMost(r, fmt.Sprintf("≤ %d MB", maxPeakRSSMB), r.PeakRSSMB, maxPeakRSSMB)
	}
	if r := rep.row("startup"); r != nil {
		atMost(r, fmt.Sprintf("≤ %.1f s", maxStartupSeconds), r.P50ms/1000, maxStartupSeconds)
	}
	rep.Finished = time.Now().UTC()
}

// aboveCeiling is the note of a row whose target the server that is its
// ceiling did not reach in the same run either.
// withCeiling compares r with its ceiling g, a bare server on the same
// answers: g's ratio to nginx, r's to g, and notes of g's ratio and of a
// target above it.
func withCeiling(r, g, nginx *row, target float64, ceiling, short string) {
	g.Ratio, g.RatioOf = g.RPS/nginx.RPS, "nginx"
	r.RatioGo = r.RPS / g.RPS
	r.Notes = append(r.Notes, fmt.Sprintf("the ceiling: %s serves at %.2f× nginx", ceiling, g.Ratio))
	if g.Ratio < target {
		r.Notes = append(r.Notes, aboveCeiling(short, g.Ratio, target))
	}
}

func aboveCeiling(server string, ratio, target float64) string {
	return fmt.Sprintf("the target (%.1f× nginx) is above the ceiling in this run: %s served %.3f× nginx", target, server, ratio)
}

func (rep *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func (rep *report) writeTable(w io.Writer) {
	m := rep.Machine
	fmt.Fprintf(w, "pact bench: %s\n", rep.Command)
	fmt.Fprintf(w, "machine: %s, %d cores, %d MB, Linux %s, %s, SQLite %s, %s", m.CPU, m.Cores, m.MemoryMB, m.Kernel, m.Go, m.SQLite, m.Wrk)
	if m.Nginx != "" {
		fmt.Fprintf(w, ", %s", m.Nginx)
	}
	fmt.Fprintf(w, ", load average %s at the start", m.LoadBefore)
	fmt.Fprintf(w, "\nload: wrk -t%d -c%d (GET), %d Go clients (POST), %s per path, %d-byte documents\n",
		rep.Config.WrkThreads, rep.Config.Conns, rep.Config.Conns, rep.Config.Duration, rep.Config.DocBytes)
	for _, s := range rep.Seeded {
		fmt.Fprintf(w, "seeded %d packages through sqlstore into %s in %.1f s (database %.0f MB)\n", s.Packages, s.Engine, s.Seconds, s.DBMB)
	}
	if rep.Config.Short {
		fmt.Fprintln(w, "-short: targets shown, not asserted")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "path\tpackages\treq/s\tp50\tp99\terrors\tCPU/req\tpeak RSS\tratio\ttarget\tmet?")
	for _, r := range rep.Rows {
		rate, p50, p99, rss, ratio, cpu := "", "", "", "", "", ""
		if r.CPUus > 0 {
			cpu = fmt.Sprintf("%.1f µs", r.CPUus)
		}
		if r.RPS > 0 {
			rate = fmt.Sprintf("%.0f", r.RPS)
		}
		if r.P50ms > 0 {
			p50 = fmtMS(r.P50ms)
		}
		if r.P99ms > 0 {
			p99 = fmtMS(r.P99ms)
		}
		if r.PeakRSSMB > 0 {
			rss = fmt.Sprintf("%.0f MB", r.PeakRSSMB)
		}
		if r.RatioOf != "" {
			ratio = fmt.Sprintf("%.2f× %s", r.Ratio, r.RatioOf)
		}
		if r.RatioGo > 0 {
			ratio += fmt.Sprintf(", %.2f× bare Go", r.RatioGo)
		}
		var targets []string
		for _, c := range r.Checks {
			targets = append(targets, c.Target)
		}
		met := ""
		if len(r.Checks) > 0 {
			met = "yes"
			if !r.met() {
				met = "NO"
			}
		}
		errs := fmt.Sprint(r.Errors)
		if r.Requests == 0 && r.RPS == 0 {
			errs = ""
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Path, r.Packages, rate, p50, p99, errs, cpu, rss, ratio,
			strings.Join(targets, "; "), met)
	}
	tw.Flush()
	for _, r := range rep.Rows {
		for _, n := range r.Notes {
			fmt.Fprintf(w, "note: %s: %s\n", r.Path, n)
		}
	}
}

func fmtMS(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

func describeMachine(nginxBin string) machine {
	m := machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(raw), "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
				m.CPU = strings.TrimSpace(value)
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		for line := range strings.SplitSeq(string(raw), "\n") {
			if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
				m.MemoryMB = kb / 1024
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(raw))
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadBefore = strings.Fields(string(raw))[0]
	}
	m.SQLite, _, _ = sqlite3.Version()
	// Both print their version and exit non-zero; only the text matters.
	out, _ := exec.Command("wrk", "-v").CombinedOutput()
	m.Wrk = strings.TrimSpace(strings.SplitN(string(out), "[", 2)[0])
	if nginxBin != "" {
		out, _ := exec.Command(nginxBin, "-v").CombinedOutput()
		m.Nginx = strings.TrimPrefix(strings.TrimSpace(string(out)), "nginx version: ")
	}
	return m
}
