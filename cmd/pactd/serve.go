package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/pkg/packfmt"
	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

const defaultDB = "./pact.db"

// serveConfig is everything serve reads, read once at the edge.
type serveConfig struct {
	Addr            string
	DB              string
	BaseURL         string
	MaxBody         int64
	Signup          string
	ShutdownTimeout time.Duration
	Timeouts        serverTimeouts
	Limits          server.Limits
	TrustedProxies  []string
	LoginAttempts   int
	LoginWindow     time.Duration
	PprofAddr       string
}

// serverTimeouts bound how long one connection may hold the server: a client
// that sends its headers or body slowly (slowloris) is cut off.
type serverTimeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

func newServeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the registry",
		Long: `Run the registry on --addr until SIGTERM or SIGINT, then finish the requests in
flight (up to --shutdown-timeout) and stop.`,
		Example: `  # SQLite file in the current directory, on http://localhost:8080
  pactd serve

  # Behind a proxy, on PostgreSQL
  PACTD_DB=postgres://pact@db/pact pactd serve --addr :8080 --base-url https://pact.example.com`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			cfg := serveConfig{
				Addr: v.GetString("addr"), DB: v.GetString("db"), BaseURL: v.GetString("base-url"),
				MaxBody: v.GetInt64("max-body"), Signup: v.GetString("signup"),
				ShutdownTimeout: v.GetDuration("shutdown-timeout"),
				Timeouts: serverTimeouts{
					ReadHeader: v.GetDuration("read-header-timeout"), Read: v.GetDuration("read-timeout"),
					Write: v.GetDuration("write-timeout"), Idle: v.GetDuration("idle-timeout"),
				},
				Limits: server.Limits{
					PerIP:                  server.Limit{Rate: v.GetFloat64("rate-ip"), Burst: v.GetInt("rate-ip-burst")},
					PerToken:               server.Limit{Rate: v.GetFloat64("rate-token"), Burst: v.GetInt("rate-token-burst")},
					PerKey:                 server.Limit{Rate: v.GetFloat64("rate-key"), Burst: v.GetInt("rate-key-burst")},
					MaxConcurrentPublishes: v.GetInt("max-concurrent-publishes"),
					PublishQueueWait:       v.GetDuration("publish-queue-wait"),
					BodyBudget:             v.GetInt64("body-budget"),
					BodyBudgetWait:         v.GetDuration("body-budget-wait"),
				},
				TrustedProxies: v.GetStringSlice("trusted-proxies"),
				LoginAttempts:  v.GetInt("login-attempts"),
				LoginWindow:    v.GetDuration("login-window"),
				PprofAddr:      v.GetString("pprof-addr"),
			}
			logs := newLogBuffer(cmd.ErrOrStderr(), 100*time.Millisecond)
			defer logs.Close()
			return serve(cmd.Context(), cfg, slog.New(slog.NewJSONHandler(logs, nil)), cmd)
		},
	}
	f := cmd.Flags()
	f.String("addr", "localhost:8080", "address to listen on")
	f.String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	f.String("base-url", "", "public base URL used in every link (default http://<addr>)")
	f.Int64("max-body", packfmt.DefaultMaxBytes, "largest pack document accepted, in bytes")
	f.String("signup", "open", "dashboard sign-up: open or closed")
	f.Duration("shutdown-timeout", 20*time.Second, "how long to wait for requests in flight at shutdown")
	f.Duration("read-header-timeout", 10*time.Second, "how long a client may take to send a request's headers")
	f.Duration("read-timeout", 60*time.Second, "how long a client may take to send a whole request, body included")
	f.Duration("write-timeout", 60*time.Second, "how long writing a response may take, counted from the end of the request's headers")
	f.Duration("idle-timeout", 120*time.Second, "how long an idle keep-alive connection stays open")
	d := server.DefaultLimits
	f.Float64("rate-ip", d.PerIP.Rate, "API requests per second per client address (0 turns the limit off)")
	f.Int("rate-ip-burst", d.PerIP.Burst, "burst of API requests per client address")
	f.Float64("rate-token", d.PerToken.Rate, "requests per second per API token (0 turns the limit off)")
	f.Int("rate-token-burst", d.PerToken.Burst, "burst of requests per API token")
	f.Float64("rate-key", d.PerKey.Rate, "signed publishes per second per SSH key (0 turns the limit off)")
	f.Int("rate-key-burst", d.PerKey.Burst, "burst of signed publishes per SSH key")
	f.Int("max-concurrent-publishes", d.MaxConcurrentPublishes, "publishes processed at once; more wait, then get 503")
	f.Duration("publish-queue-wait", d.PublishQueueWait, "how long a publish waits for a free slot")
	f.Int64("body-budget", d.BodyBudget, "bytes of request bodies read at once across all requests; more wait, then get 503 (0 turns the budget off)")
	f.Duration("body-budget-wait", d.BodyBudgetWait, "how long a request waits for room in --body-budget")
	f.StringSlice("trusted-proxies", nil, "reverse proxy addresses or CIDRs whose X-Forwarded-For is trusted")
	f.Int("login-attempts", 5, "failed dashboard log-ins per address and username before a lock-out")
	f.Duration("login-window", 15*time.Minute, "how long failed log-ins are counted, and the lock-out lasts")
	addPprofFlag(f)
	return cmd
}

func serve(ctx context.Context, cfg serveConfig, log *slog.Logger, cmd *cobra.Command) error {
	if cfg.Signup != "open" && cfg.Signup != "closed" {
		return usageError{fmt.Errorf("--signup must be open or closed, not %q", cfg.Signup)}
	}
	if cfg.MaxBody <= 0 {
		return usageError{fmt.Errorf("--max-body must be a positive number of bytes")}
	}
	if cfg.Limits.BodyBudget < 0 || cfg.Limits.BodyBudgetWait < 0 {
		return usageError{fmt.Errorf("--body-budget and --body-budget-wait must not be negative")}
	}
	for _, t := range []struct {
		flag  string
		value time.Duration
	}{{"read-header-timeout", cfg.Timeouts.ReadHeader}, {"read-timeout", cfg.Timeouts.Read},
		{"write-timeout", cfg.Timeouts.Write}, {"idle-timeout", cfg.Timeouts.Idle}} {
		// 0 would mean "no limit" to net/http, which lets a slow client hold a connection forever.
		if t.value <= 0 {
			return usageError{fmt.Errorf("--%s must be a positive duration such as 30s, not %s", t.flag, t.value)}
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	baseURL, err := resolveBaseURL(cfg.BaseURL, ln.Addr())
	if err != nil {
		ln.Close()
		return err
	}
	store, err := sqlstore.Open(ctx, cfg.DB, sqlstore.Options{})
	if err != nil {
		ln.Close()
		return fmt.Errorf("opening database: %w", err)
	}
	defer store.Close()
	svc := &registry.Service{Store: store, MaxDocumentBytes: cfg.MaxBody}
	srv := server.New(svc, server.Config{BaseURL: baseURL, Signup: cfg.Signup, Logger: log,
		Limits: cfg.Limits, TrustedProxies: cfg.TrustedProxies,
		LoginAttempts: cfg.LoginAttempts, LoginWindow: cfg.LoginWindow})

	httpServer := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: cfg.Timeouts.ReadHeader,
		ReadTimeout:       cfg.Timeouts.Read,
		WriteTimeout:      cfg.Timeouts.Write,
		IdleTimeout:       cfg.Timeouts.Idle,
		MaxHeaderBytes:    64 << 10,
	}
	go pruneNonces(ctx, svc, log)
	if cfg.PprofAddr != "" {
		if err := servePprof(ctx, cfg.PprofAddr, log); err != nil {
			ln.Close()
			return fmt.Errorf("--pprof-addr: %w", err)
		}
	}

	log.Info("pactd listening", "addr", ln.Addr().String(), "base_url", baseURL, "version", version)
	fmt.Fprintf(cmd.OutOrStdout(), "pactd %s listening on %s (%s)\n", version, ln.Addr(), baseURL)
	errc := make(chan error, 1)
	go func() { errc <- httpServer.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests in flight", "timeout", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// resolveBaseURL checks --base-url, or derives it from the listening address.
func resolveBaseURL(raw string, addr net.Addr) (string, error) {
	if raw == "" {
		host, port, _ := net.SplitHostPort(addr.String())
		if ip := net.ParseIP(host); host == "" || (ip != nil && (ip.IsUnspecified() || ip.IsLoopback())) {
			host = "localhost"
		}
		return "http://" + net.JoinHostPort(host, port), nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", usageError{fmt.Errorf("--base-url must be an absolute http(s) URL such as https://pact.example.com, not %q", raw)}
	}
	return strings.TrimRight(raw, "/"), nil
}

func pruneNonces(ctx context.Context, svc *registry.Service, log *slog.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := svc.PruneNonces(ctx); err != nil {
				log.Warn("pruning nonces", "error", err.Error())
			} else if n > 0 {
				log.Debug("pruned nonces", "count", n)
			}
		}
	}
}
