// Command bench measures pactd's hot paths side by side with nginx and
// prints one table: requests/s, p50, p99, errors, peak RSS, the ratio each
// target is stated in, the target and whether it is met.
//
//	go run ./bench                        # 1,000 packages, 10 s per path
//	go run ./bench -packages 1000000      # adds the 1,000-package reference rows
//	go run ./bench -short                 # CI: tiny database, 2 s per path, no targets asserted
//
// It builds pactd, seeds a fresh SQLite database through sqlstore (not over
// HTTP), makes an account, a token and an ed25519 key through the registry
// service, starts `pactd serve` on a free loopback port (and nginx over the
// same documents, when nginx is installed), and drives each path: the GETs
// with wrk, the publishes with a bounded pool of Go HTTP clients. Every
// request goes to 127.0.0.1. See BENCHMARKS.md for a run's figures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// config is the command line, read once.
type config struct {
	Packages    int
	Reference   int
	Duration    time.Duration
	Short       bool
	JSON        bool
	Conns       int
	WrkThreads  int
	RawDocs     int
	ColdDocs    int
	DocBytes    int
	Keep        bool
	PprofDir    string
	MaxPostRate int
	Pactd       string
	Postgres    string
	SearchConns int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.IntVar(&c.Packages, "packages", 1000, "packages in the seeded database")
	fs.IntVar(&c.Reference, "reference", 1000, "packages of the reference database measured alongside when -packages is larger (0: none)")
	fs.DurationVar(&c.Duration, "duration", 10*time.Second, "measuring time per path")
	fs.BoolVar(&c.Short, "short", false, "tiny database, 2 s per path, targets shown but not asserted (for CI)")
	fs.BoolVar(&c.JSON, "json", false, "print the results as JSON instead of a table")
	fs.IntVar(&c.Conns, "conns", 32, "concurrent connections per path")
	fs.IntVar(&c.WrkThreads, "wrk-threads", 1, "wrk threads (the load tool shares the machine with the server)")
	fs.IntVar(&c.RawDocs, "raw-docs", 1000, "distinct documents the raw path cycles through (spread over the database)")
	fs.IntVar(&c.ColdDocs, "cold-docs", 100000, "distinct documents of the rows over a working set ten times pactd's read cache (at most -packages)")
	fs.IntVar(&c.DocBytes, "doc-bytes", 3000, "size of every seeded and published document")
	fs.BoolVar(&c.Keep, "keep", false, "keep the work directory (database, logs, nginx files) and print its path")
	fs.StringVar(&c.PprofDir, "pprof", "", "directory to write a CPU profile of pactd for every pactd path into (needs pactd --pprof-addr)")
	fs.IntVar(&c.MaxPostRate, "max-post-rate", 20000, "bound on publishes per second of measuring time (the load generator stops at duration × this)")
	fs.StringVar(&c.Pactd, "pactd", "", "measure this pactd binary instead of building ./cmd/pactd (for before/after comparisons)")
	fs.StringVar(&c.Postgres, "postgres", "", "also seed a fresh database on this PostgreSQL server (postgres://...; made and dropped by the run) and measure search there")
	fs.IntVar(&c.SearchConns, "search-conns", 4, "connections for the search paths (their target is a search's latency, not a saturated queue)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.Short {
		if !set["packages"] {
			c.Packages = 200
		}
		if !set["duration"] {
			c.Duration = 2 * time.Second
		}
		if !set["reference"] {
			c.Reference = 0
		}
	}
	switch {
	case c.Packages < 1:
		return c, errors.New("-packages must be at least 1")
	case c.Duration < time.Second:
		return c, errors.New("-duration must be at least 1s (wrk counts whole seconds)")
	case c.Conns < 1:
		return c, errors.New("-conns must be at least 1")
	case c.DocBytes < 400:
		return c, errors.New("-doc-bytes must be at least 400")
	case c.SearchConns < 1:
		return c, errors.New("-search-conns must be at least 1")
	case c.Postgres != "" && !isPostgres(c.Postgres):
		return c, errors.New("-postgres must be a postgres:// URL")
	case c.RawDocs < 1:
		return c, errors.New("-raw-docs must be at least 1")
	case c.ColdDocs < 1:
		return c, errors.New("-cold-docs must be at least 1")
	}
	c.ColdDocs = min(c.ColdDocs, c.Packages)
	return c, nil
}

func main() {
	if db := os.Getenv(bareListEnv); db != "" {
		if err := serveBareList(db, os.Getenv(bareListBaseEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare list server:", err)
			os.Exit(1)
		}
		return
	}
	if db := os.Getenv(bareSQLiteEnv); db != "" {
		if err := serveBareSQLite(db, os.Getenv(bareSQLitePathsEnv)); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare Go server over SQLite:", err)
			os.Exit(1)
		}
		return
	}
	if dir := os.Getenv(bareFilesEnv); dir != "" {
		if err := serveBareFiles(dir); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare Go server over files:", err)
			os.Exit(1)
		}
		return
	}
	if dir := os.Getenv(bareEnv); dir != "" {
		if err := serveBare(dir); err != nil {
			fmt.Fprintln(os.Stderr, "bench: bare Go server:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, cfg, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// run does the whole measurement. The exit code is 1 when requests failed
// or, without -short, when a target was missed.
func run(ctx context.Context, cfg config, stdout, stderr io.Writer) (int, error) {
	progress := func(format string, args ...any) { fmt.Fprintf(stderr, "bench: "+format+"\n", args...) }
	if _, err := exec.LookPath("wrk"); err != nil {
		return 1, errors.New("wrk is not installed: apt-get install wrk")
	}
	nginxBin, _ := exec.LookPath("nginx")
	if nginxBin == "" {
		if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
			nginxBin = "/usr/sbin/nginx"
		} else {
			progress("nginx is not installed (apt-get install nginx-light): no ratio to nginx")
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return 1, err
	}
	work, err := os.MkdirTemp("", "pact-bench-")
	if err != nil {
		return 1, err
	}
	if cfg.Keep {
		progress("work directory: %s", work)
	} else {
		defer os.RemoveAll(work)
	}
	if cfg.PprofDir != "" {
		if cfg.PprofDir, err = filepath.Abs(cfg.PprofDir); err != nil {
			return 1, err
		}
		if err := os.MkdirAll(cfg.PprofDir, 0o755); err != nil {
			return 1, err
		}
	}

	bin := cfg.Pactd
	if bin == "" {
		progress("building pactd")
		if bin, err = buildPactd(ctx, root, work); err != nil {
			return 1, err
		}
	} else if bin, err = filepath.Abs(bin); err != nil {
		return 1, err
	}

	rep := &report{Config: cfg, Machine: describeMachine(nginxBin), Command: "go run ./bench " + strings.Join(os.Args[1:], " ")}
	b := &bench{cfg: cfg, bin: bin, work: work, nginx: nginxBin, rep: rep, progress: progress}
	if err := b.measure(ctx); err != nil {
		return 1, err
	}
	rep.evaluate()
	if cfg.JSON {
		if err := rep.writeJSON(stdout); err != nil {
			return 1, err
		}
	} else {
		rep.writeTable(stdout)
	}
	switch {
	case rep.Failed():
		return 1, errors.New("some requests failed (see the errors column)")
	case !cfg.Short && rep.Missed() > 0:
		return 1, fmt.Errorf("%d target(s) missed", rep.Missed())
	}
	return 0, nil
}

// moduleRoot is the directory of pact's go.mod, so `go run ./bench` works
// from anywhere inside the module.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run the bench inside the pact module (go run ./bench)")
	}
	return filepath.Dir(gomod), nil
}

// buildPactd builds pactd as releases are built: -tags nomsgpack leaves
// Gin's MessagePack codec (never used) out of the binary, sqlite_fts5 builds
// SQLite's full-text engine in.
func buildPactd(ctx context.Context, root, work string) (string, error) {
	bin := filepath.Join(work, "pactd")
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", "nomsgpack,sqlite_fts5", "-o", bin, "./cmd/pactd")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/pactd: %v\n%s", err, out)
	}
	return bin, nil
}
