package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// result is one measured path.
type result struct {
	Requests int64
	Elapsed  time.Duration
	P50, P99 time.Duration
	Errors   int64
	// CPU is the server's CPU time during the run (0: not measured).
	CPU time.Duration
	// GeneratorCPU is the Go load generator's own CPU time during the run
	// (0 for wrk), which the server did not have.
	GeneratorCPU time.Duration
	// MadeWhileMeasuring counts the publish bodies made during the run
	// because the ones made before it ran out (runPosts).
	MadeWhileMeasuring int64
	// FirstErrors holds a few error messages, to say what went wrong.
	FirstErrors []string
	// Hist is wrk's latency histogram (wrkSummary.Hist), for adding up
	// rounds; nil from the Go load generator.
	Hist [][2]int64
}

// cpuPerRequest is the server's CPU time per 200 answer, in µs.
func (r result) cpuPerRequest() float64 {
	if r.CPU <= 0 || r.Requests == 0 {
		return 0
	}
	return float64(r.CPU.Microseconds()) / float64(r.Requests)
}

func (r result) rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// wrkScript cycles through paths (one pre-formatted request each, so the
// Lua side costs the same for every server) and prints the summary as one
// JSON line after the run. Every answer's status is checked: only 200s
// count as requests; any other status (a 304 or a redirect as well as an
// error) is counted apart and fails the row.
const wrkScript = `
local paths = {%s}
local requests = {}
local next_index = 1
local threads = {}
non200 = 0

setup = function(thread)
  table.insert(threads, thread)
end

init = function(args)
  for i, p in ipairs(paths) do
    requests[i] = wrk.format("GET", p)
  end
end

request = function()
  local r = requests[next_index]
  next_index = next_index + 1
  if next_index > #requests then next_index = 1 end
  return r
end

response = function(status, headers, body)
  if status ~= 200 then non200 = non200 + 1 end
end

done = function(summary, latency, requests)
  local e = summary.errors
  local bad = 0
  for _, t in ipairs(threads) do bad = bad + t:get("non200") end
  local hist = {}
  for i = 1, #latency do
    local value, count = latency(i)
    hist[i] = string.format("[%%d,%%d]", value, count)
  end
  io.write(string.format(
    'WRKJSON {"requests":%%d,"duration_us":%%d,"connect":%%d,"read":%%d,"write":%%d,"status":%%d,"timeout":%%d,"non200":%%d,"p50_us":%%d,"p99_us":%%d,"hist":[%%s]}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, bad,
    latency:percentile(50), latency:percentile(99), table.concat(hist, ",")))
end
`

type wrkSummary struct {
	Requests   int64 `json:"requests"`
	DurationUS int64 `json:"duration_us"`
	Connect    int64 `json:"connect"`
	Read       int64 `json:"read"`
	Write      int64 `json:"write"`
	Status     int64 `json:"status"`
	Timeout    int64 `json:"timeout"`
	Non200     int64 `json:"non200"`
	P50US      int64 `json:"p50_us"`
	P99US      int64 `json:"p99_us"`
	// Hist is wrk's latency histogram: [µs, count] for every latency it
	// holds, lowest first, with its coordinated-omission samples.
	Hist [][2]int64 `json:"hist"`
}

// runWrk loads base+paths with wrk for d over conns connections.
func runWrk(ctx context.Context, work, base string, paths []string, conns, threads int, d time.Duration) (result, error) {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = strconv.Quote(p)
	}
	script := filepath.Join(work, "wrk.lua")
	if err := os.WriteFile(script, fmt.Appendf(nil, wrkScript, strings.Join(quoted, ", ")), 0o644); err != nil {
		return result{}, err
	}
	seconds := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.CommandContext(ctx, "wrk", "-t", strconv.Itoa(threads), "-c", strconv.Itoa(conns),
		"-d", strconv.Itoa(seconds)+"s", "--timeout", "5s", "-s", script, base+paths[0])
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("wrk: %v: %s%s", err, out, stderr.Bytes())
	}
	s, err := parseWrkSummary(out)
	if err != nil {
		return result{}, fmt.Errorf("%w: %s%s", err, out, stderr.Bytes())
	}
	// Only 200s count. wrk's percentiles are over every answer, so a row
	// with any other answer fails (its errors column) rather than show
	// figures that mix them in.
	r := result{
		Requests: s.Requests - s.Non200,
		Elapsed:  time.Duration(s.DurationUS) * time.Microsecond,
		P50:      time.Duration(s.P50US) * time.Microsecond,
		P99:      time.Duration(s.P99US) * time.Microsecond,
		Hist:     s.Hist,
		// Answers with an error status are among the non-200s.
		Errors: s.Connect + s.Read + s.Write + s.Timeout + s.Non200,
	}
	if r.Errors > 0 {
		r.FirstErrors = []string{fmt.Sprintf("wrk: connect %d, read %d, write %d, timeout %d, not 200 %d (of which 4xx/5xx %d)",
			s.Connect, s.Read, s.Write, s.Timeout, s.Non200, s.Status)}
	}
	return r, nil
}

// parseWrkSummary finds the WRKJSON line wrkScript prints in wrk's output.
// The line carries the whole latency histogram: tens of thousands of
// latencies on a long row, far beyond a Scanner's default line.
func parseWrkSummary(out []byte) (wrkSummary, error) {
	var s wrkSummary
	found := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), len(out)+1)
	for sc.Scan() {
		if line, ok := bytes.CutPrefix(sc.Bytes(), []byte("WRKJSON ")); ok {
			if err := json.Unmarshal(line, &s); err != nil {
				return s, fmt.Errorf("wrk summary: %w", err)
			}
			found = true
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("reading wrk's output: %w", err)
	}
	if !found {
		return s, errors.New("wrk printed no summary")
	}
	return s, nil
}
