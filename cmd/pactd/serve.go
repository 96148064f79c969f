package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pact-registry/pact/pkg/packfmt"
	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
	"github.com/pact-registry/pact/server/webhook"
)

const defaultDB = "./pact.db"

// serveConfig is everything serve reads. Its fields are bound to serve's
// flags, which the environment and the config file set too (see
// applySettings); validate then checks what the values mean.
type serveConfig struct {
	Addr            string
	DB              string
	Blobs           string // --blobs; "" for the default (blobsURL)
	BlobsPublicURL  string // --blobs-public-url; "" redirects nothing
	Store           storeSettings
	BaseURL         string
	MaxBody         int64
	Signup          string
	ShutdownTimeout time.Duration
	Timeouts        serverTimeouts
	Limits          server.Limits
	TrustedProxies  []string
	OIDCIssuers     []string
	LoginAttempts   int
	LoginWindow     time.Duration
	TokenRetention  time.Duration
	Webhooks        webhookSettings
	// DownloadsFlushInterval is how often the downloads counted in memory
	// are added to the database (registry.FlushDownloads).
	DownloadsFlushInterval time.Duration
	MetricsAddr            string
	PprofAddr              string
	Log                    logSettings
	LogFormat              string // text, json or auto (logging.go)
	LogLevel               string
}

// storeSettings are the database's own settings, handed to sqlstore.Open.
type storeSettings struct {
	MaxConns         int
	StatementTimeout time.Duration
	BusyTimeout      time.Duration // SQLite only
	ReadCacheBytes   int64         // 0 turns the cache off
	ReadCacheTTL     time.Duration // PostgreSQL only
}

// webhookSettings are how deliveries of webhooks go (docs/operations.md,
// Webhooks).
type webhookSettings struct {
	AllowPrivate bool
	Timeout      time.Duration
	PerUser      int
}

// webhookWorkers is how many deliveries one pactd sends at once; a user's
// share (--webhook-deliveries-per-user) is at most that.
const webhookWorkers = 8

// maxDBConns bounds --db-max-conns: far more than one process can use, low
// enough that a mistyped value is caught rather than exhausting the server.
const maxDBConns = 1000

func (s storeSettings) options() sqlstore.Options {
	cache := s.ReadCacheBytes
	if cache == 0 {
		cache = -1 // sqlstore reads 0 as "the default"
	}
	ttl := s.ReadCacheTTL
	if ttl == 0 {
		ttl = -1
	}
	return sqlstore.Options{MaxOpenConns: s.MaxConns, StatementTimeout: s.StatementTimeout,
		BusyTimeout: s.BusyTimeout, CacheBytes: cache, CacheTTL: ttl, LogBackfill: registry.Backfill()}
}

// serverTimeouts bound how long one connection may hold the server: a client
// that sends its headers or body slowly (slowloris) is cut off.
type serverTimeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// flags defines serve's flags on f, each bound to its field of c. This is
// the one list of pactd's settings: every flag here is also PACTD_<FLAG>
// and a key of the config file.
func (c *serveConfig) flags(f *pflag.FlagSet) {
	d := server.DefaultLimits
	f.StringVar(&c.Addr, "addr", "localhost:8080", "address to listen on")
	f.StringVar(&c.DB, "db", defaultDB, "SQLite file path, or a postgres:// URL")
	f.StringVar(&c.Blobs, "blobs", "", blobsUsage)
	f.StringVar(&c.BlobsPublicURL, "blobs-public-url", "", "where the blob store's blobs are public (a CDN, or the bucket's public address): versioned raw documents and full log tiles on the blob store answer 307 to this URL and the blob's key; the latest document never (docs/operations.md, A CDN in front of the blob store)")
	f.IntVar(&c.Store.MaxConns, "db-max-conns", 0, fmt.Sprintf("database connections: the PostgreSQL pool (searches and their suggestions have one each, half as large, at least 2), or SQLite's readers beside its one writer and the 4 connections of its reads by key (0: %d on PostgreSQL, max(4, CPUs) on SQLite)", sqlstore.DefaultPostgresConns))
	f.DurationVar(&c.Store.StatementTimeout, "db-statement-timeout", sqlstore.DefaultStatementTimeout, "how long a database statement or transaction may take before the request gets 503; on PostgreSQL also its statement_timeout")
	f.DurationVar(&c.Store.BusyTimeout, "db-busy-timeout", sqlstore.DefaultBusyTimeout, "SQLite only: how long a statement waits for another connection's or process's lock before the request gets 503")
	f.Int64Var(&c.Store.ReadCacheBytes, "db-read-cache-bytes", sqlstore.DefaultCacheBytes, "memory for hot raw documents and the rows of recently read ones, in bytes (0 turns the cache off)")
	f.DurationVar(&c.Store.ReadCacheTTL, "db-read-cache-ttl", sqlstore.DefaultCacheTTL, "PostgreSQL only: how long a replica serves a cached document before reading it again, so the bound on how long another replica's yank or new latest version takes to show (0 turns the cache off)")
	f.StringVar(&c.BaseURL, "base-url", "", "public base URL used in every link (default http://<addr>)")
	c.Log.flags(f)
	f.StringVar(&c.LogFormat, "log-format", "auto", "format of the lines pactd logs on stderr: text, json, or auto (text on a terminal, JSON otherwise)")
	f.StringVar(&c.LogLevel, "log-level", "info", "least severe log lines written: debug, info, warn or error (audit lines are written at every level)")
	f.Int64Var(&c.MaxBody, "max-body", packfmt.DefaultMaxBytes, "largest pack document accepted, in bytes")
	f.StringVar(&c.Signup, "signup", "open", "dashboard sign-up: open or closed")
	f.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", 20*time.Second, "how long to wait for requests in flight at shutdown")
	f.DurationVar(&c.Timeouts.ReadHeader, "read-header-timeout", 10*time.Second, "how long a client may take to send a request's headers")
	f.DurationVar(&c.Timeouts.Read, "read-timeout", 60*time.Second, "how long a client may take to send a whole request, body included")
	f.DurationVar(&c.Timeouts.Write, "write-timeout", 60*time.Second, "how long writing a response may take, counted from the end of the request's headers")
	f.DurationVar(&c.Timeouts.Idle, "idle-timeout", 120*time.Second, "how long an idle keep-alive connection stays open")
	f.Float64Var(&c.Limits.PerIP.Rate, "rate-ip", d.PerIP.Rate, "API requests per second per client address (0 turns the limit off)")
	f.IntVar(&c.Limits.PerIP.Burst, "rate-ip-burst", d.PerIP.Burst, "burst of API requests per client address")
	f.Float64Var(&c.Limits.PerIPLog.Rate, "rate-log-ip", d.PerIPLog.Rate, "transparency log requests (/log/...) per second per client address (0 turns the limit off)")
	f.IntVar(&c.Limits.PerIPLog.Burst, "rate-log-ip-burst", d.PerIPLog.Burst, "burst of transparency log requests per client address")
	f.IntVar(&c.Limits.LogWaitsPerIP, "log-waits-ip", d.LogWaitsPerIP, "GET /log/checkpoint?wait=1 requests held at once per client address; more get 429 (0: no bound)")
	f.Float64Var(&c.Limits.PerToken.Rate, "rate-token", d.PerToken.Rate, "requests per second per API token (0 turns the limit off)")
	f.IntVar(&c.Limits.PerToken.Burst, "rate-token-burst", d.PerToken.Burst, "burst of requests per API token")
	f.Float64Var(&c.Limits.PerKey.Rate, "rate-key", d.PerKey.Rate, "signed publishes per second per SSH key (0 turns the limit off)")
	f.IntVar(&c.Limits.PerKey.Burst, "rate-key-burst", d.PerKey.Burst, "burst of signed publishes per SSH key")
	c.Limits.DeviceLogins = d.DeviceLogins // no flag: a bound against filling the table, not a setting to tune
	f.IntVar(&c.Limits.MaxConcurrentPublishes, "max-concurrent-publishes", d.MaxConcurrentPublishes, "publishes processed at once; more wait, then get 503 (0: no limit)")
	f.DurationVar(&c.Limits.PublishQueueWait, "publish-queue-wait", d.PublishQueueWait, "how long a publish waits for a free slot")
	f.Int64Var(&c.Limits.BodyBudget, "body-budget", d.BodyBudget, "bytes of request bodies read at once across all requests; more wait, then get 503 (0 turns the budget off)")
	f.DurationVar(&c.Limits.BodyBudgetWait, "body-budget-wait", d.BodyBudgetWait, "how long a request waits for room in --body-budget")
	f.StringSliceVar(&c.TrustedProxies, "trusted-proxies", nil, "reverse proxy addresses or CIDRs whose X-Forwarded-For is trusted")
	f.StringSliceVar(&c.OIDCIssuers, "oidc-issuer", nil, "an OpenID Connect issuer whose ID tokens CI jobs may exchange for publish tokens (repeatable), e.g. https://token.actions.githubusercontent.com or https://gitlab.com; https only, except loopback addresses")
	f.IntVar(&c.LoginAttempts, "login-attempts", 5, "failed dashboard log-ins per address and account before a lock-out; 4 times as many per account from all addresses")
	f.DurationVar(&c.LoginWindow, "login-window", 15*time.Minute, "how long failed log-ins are counted, and the lock-out lasts")
	f.DurationVar(&c.TokenRetention, "token-retention", registry.DefaultTokenRetention, "how long expired and revoked API tokens are kept (listed with --all) before they are deleted; tokens a version was published with are kept (0: keep them all)")
	f.BoolVar(&c.Webhooks.AllowPrivate, "webhook-allow-private", false, "let webhooks reach loopback, private, link-local and metadata addresses (refused by default, when a hook is made and at every delivery, on the address dialled)")
	f.DurationVar(&c.Webhooks.Timeout, "webhook-timeout", registry.DefaultHookTimeout, "how long one webhook delivery may take, connecting, sending and reading at most 64 KiB of the answer")
	f.IntVar(&c.Webhooks.PerUser, "webhook-deliveries-per-user", registry.DefaultHookDeliveriesPerUser, "how many deliveries to the webhooks one user made (in her namespace and her organisations') are sent at once, across every replica, so that one user's slow receivers hold no more of the 8 workers (at most 8)")
	f.DurationVar(&c.DownloadsFlushInterval, "downloads-flush-interval", 30*time.Second, "how often the downloads counted in memory are added to the database (also at shutdown); replicas add up")
	f.StringVar(&c.MetricsAddr, "metrics-addr", "", "serve /metrics only on this address, e.g. 127.0.0.1:9090, not on --addr (default: on --addr)")
	f.StringVar(&c.PprofAddr, "pprof-addr", "", "serve net/http/pprof on this address, e.g. 127.0.0.1:6060 (off when empty)")
	// Hidden: it is for measuring (go run ./bench -pprof), not for production.
	_ = f.MarkHidden("pprof-addr")
}

// validate checks what the settings mean; their types were checked by
// their flags. The first setting that makes no sense is returned as a
// settingError, before anything listens or the database is opened.
func (c *serveConfig) validate() error {
	if !isHostPort(c.Addr) {
		return invalid("addr", "is not an address to listen on, such as :8080 or 127.0.0.1:8080")
	}
	if c.DB == "" {
		return invalid("db", "is empty: give a SQLite file path or a postgres:// URL")
	}
	if err := checkBlobsURL(c.Blobs); err != nil {
		return err
	}
	if c.BlobsPublicURL != "" && !isBaseURL(c.BlobsPublicURL) {
		return invalid("blobs-public-url", "is not an absolute http(s) URL such as https://cdn.example.com/pact/")
	}
	if c.BlobsPublicURL != "" && c.Blobs == blobsNone {
		return invalid("blobs-public-url", "needs a blob store, and --blobs is none")
	}
	if err := c.Store.validate(sqlstore.IsPostgres(c.DB)); err != nil {
		return err
	}
	if c.BaseURL != "" && !isBaseURL(c.BaseURL) {
		return invalid("base-url", "is not an absolute http(s) URL such as https://pact.example.com")
	}
	if err := c.Log.validate(); err != nil {
		return err
	}
	if _, ok := logFormats[c.LogFormat]; !ok {
		return invalid("log-format", "is not text, json or auto")
	}
	if _, ok := logLevels[c.LogLevel]; !ok {
		return invalid("log-level", "is not debug, info, warn or error")
	}
	if c.MaxBody <= 0 {
		return invalid("max-body", "is not a positive number of bytes")
	}
	if c.Signup != "open" && c.Signup != "closed" {
		return invalid("signup", "is neither open nor closed")
	}
	for _, t := range []struct {
		key   string
		value time.Duration
	}{{"shutdown-timeout", c.ShutdownTimeout}, {"read-header-timeout", c.Timeouts.ReadHeader},
		{"read-timeout", c.Timeouts.Read}, {"write-timeout", c.Timeouts.Write}, {"idle-timeout", c.Timeouts.Idle},
		{"login-window", c.LoginWindow}, {"downloads-flush-interval", c.DownloadsFlushInterval}} {
		// 0 would mean "no limit" to net/http, which lets a slow client hold a connection forever.
		if t.value <= 0 {
			return invalid(t.key, "is not a positive duration such as 30s")
		}
	}
	for _, l := range []struct {
		rate, burst string
		limit       server.Limit
	}{{"rate-ip", "rate-ip-burst", c.Limits.PerIP}, {"rate-token", "rate-token-burst", c.Limits.PerToken},
		{"rate-key", "rate-key-burst", c.Limits.PerKey}, {"rate-log-ip", "rate-log-ip-burst", c.Limits.PerIPLog}} {
		if math.IsNaN(l.limit.Rate) || math.IsInf(l.limit.Rate, 0) {
			return invalid(l.rate, "is not a finite number of requests per second")
		}
		if l.limit.Rate < 0 {
			return invalid(l.rate, "is negative (0 turns the limit off)")
		}
		if l.limit.Burst < 0 || (l.limit.Burst == 0 && l.limit.Rate > 0) {
			return invalid(l.burst, "is less than 1 while --%s is on", l.rate)
		}
	}
	if c.Limits.LogWaitsPerIP < 0 {
		return invalid("log-waits-ip", "is negative (0 means no bound)")
	}
	if c.Limits.MaxConcurrentPublishes < 0 {
		return invalid("max-concurrent-publishes", "is negative (0 means no limit)")
	}
	if c.Limits.PublishQueueWait < 0 {
		return invalid("publish-queue-wait", "is a negative duration")
	}
	if c.Limits.BodyBudget < 0 {
		return invalid("body-budget", "is a negative number of bytes")
	}
	if c.Limits.BodyBudgetWait < 0 {
		return invalid("body-budget-wait", "is a negative duration")
	}
	for _, p := range c.TrustedProxies {
		if net.ParseIP(p) == nil {
			if _, _, err := net.ParseCIDR(p); err != nil {
				return invalid("trusted-proxies", "holds %q, which is neither an IP address nor a CIDR such as 10.0.0.0/8", p)
			}
		}
	}
	for _, iss := range c.OIDCIssuers {
		if registry.CheckIssuerURL(iss) != nil {
			return invalid("oidc-issuer", "holds %q, which is not an https URL such as https://token.actions.githubusercontent.com (plain http only on loopback addresses)", iss)
		}
	}
	if c.TokenRetention < 0 {
		return invalid("token-retention", "is a negative duration (0 keeps every token)")
	}
	if c.Webhooks.Timeout <= 0 || c.Webhooks.Timeout > 5*time.Minute {
		return invalid("webhook-timeout", "must be more than 0 and at most 5m")
	}
	if c.Webhooks.PerUser < 1 || c.Webhooks.PerUser > webhookWorkers {
		return invalid("webhook-deliveries-per-user", "must be 1 to %d, the workers of one pactd", webhookWorkers)
	}
	if c.LoginAttempts < 1 {
		return invalid("login-attempts", "is less than 1")
	}
	if c.MetricsAddr != "" && !isHostPort(c.MetricsAddr) {
		return invalid("metrics-addr", "is not an address to listen on, such as 127.0.0.1:9090")
	}
	if c.PprofAddr != "" && !isHostPort(c.PprofAddr) {
		return invalid("pprof-addr", "is not an address to listen on, such as 127.0.0.1:6060")
	}
	return nil
}

func (s storeSettings) validate(postgres bool) error {
	if s.MaxConns < 0 || s.MaxConns > maxDBConns {
		return invalid("db-max-conns", "is not a number of connections from 1 to %d (or 0, the default)", maxDBConns)
	}
	// Both reach the database in whole milliseconds, where 0 means "no
	// limit" to PostgreSQL and "do not wait" to SQLite.
	if s.StatementTimeout < time.Millisecond {
		return invalid("db-statement-timeout", "is not a duration of at least 1ms, such as 5s")
	}
	if s.BusyTimeout < time.Millisecond {
		return invalid("db-busy-timeout", "is not a duration of at least 1ms, such as 5s")
	}
	if s.ReadCacheBytes < 0 {
		return invalid("db-read-cache-bytes", "is a negative number of bytes (0 turns the cache off)")
	}
	if s.ReadCacheTTL < 0 {
		return invalid("db-read-cache-ttl", "is a negative duration (0 turns the cache off on PostgreSQL)")
	}
	if postgres {
		// Each replica would silently ignore them; say so instead.
		if s.BusyTimeout != sqlstore.DefaultBusyTimeout {
			return invalid("db-busy-timeout", "applies to SQLite only, and --db is a PostgreSQL URL (there --db-statement-timeout bounds lock waits)")
		}
	} else if s.ReadCacheTTL != sqlstore.DefaultCacheTTL {
		return invalid("db-read-cache-ttl", "applies to PostgreSQL only, and --db is a SQLite file (this process sees every write, so its cache needs no expiry)")
	}
	return nil
}

func isHostPort(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port != ""
}

func isBaseURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		u.User == nil && u.RawQuery == "" && u.Fragment == "" && !u.ForceQuery
}

func newServeCmd() *cobra.Command {
	var cfg serveConfig
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the registry",
		Long: `Run the registry on --addr until SIGTERM or SIGINT, then finish the requests in
flight (up to --shutdown-timeout) and stop.

Every flag is also PACTD_<FLAG> in the environment and a key of the --config
file; a flag beats the environment, which beats the file. Each value is
checked as its flag's would be: an unknown key or PACTD_ variable, or a value
that is not valid, stops serve with exit code 2 before it listens.`,
		Example: `  # SQLite file in the current directory, on http://localhost:8080
  pactd serve

  # Behind a proxy, on PostgreSQL, with /metrics only on a private address
  PACTD_DB=postgres://pact@db/pact pactd serve --addr :8080 --base-url https://pact.example.com \
    --metrics-addr 10.0.0.5:9090

  # With witnesses cosigning the log's checkpoints (docs/operations.md, Witnesses)
  pactd serve --base-url https://pact.example.com --witness-policy /etc/pactd/witnesses.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			from, err := applySettings(cmd, os.Environ())
			if err != nil {
				return err
			}
			if err := cfg.validate(); err != nil {
				return from.explain(err)
			}
			logs := newLogBuffer(cmd.ErrOrStderr(), 100*time.Millisecond)
			defer logs.Close()
			return serve(cmd.Context(), cfg, newLoggers(logs, cfg.LogFormat, cfg.LogLevel, isTerminal(cmd.ErrOrStderr())), cmd)
		},
	}
	cfg.flags(cmd.Flags())
	return cmd
}

func serve(ctx context.Context, cfg serveConfig, logs loggers, cmd *cobra.Command) error {
	log := logs.log
	tuneGC(cfg.Store.ReadCacheBytes)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	baseURL := resolveBaseURL(cfg.BaseURL, ln.Addr())
	storeOptions := cfg.Store.options()
	storeOptions.Logger = log
	fresh := isNewDB(cfg.DB)
	store, err := sqlstore.Open(ctx, cfg.DB, storeOptions)
	if err != nil {
		ln.Close()
		return fmt.Errorf("opening database: %w", err)
	}
	defer store.Close()
	// Opened after the database, which says first what is wrong with its
	// path (a directory beside it is made only beside a database).
	blobStore, blobsAt, err := openBlobs(ctx, cfg.DB, cfg.Blobs, fresh)
	if err != nil {
		ln.Close()
		return err
	}
	if blobsAt != "" {
		log.Info("documents on a blob store", "blobs", blobsAt)
	}
	if cfg.BlobsPublicURL != "" && blobStore == nil {
		ln.Close()
		return usageError{errors.New("--blobs-public-url needs a blob store: give --blobs (this database keeps its documents in itself)")}
	}
	retention := cfg.TokenRetention
	if retention == 0 {
		retention = -1 // registry.Options: kept for ever
	}
	svc := registry.NewService(store, registry.Options{MaxDocumentBytes: cfg.MaxBody, OIDCIssuers: cfg.OIDCIssuers,
		OnEvent: logs.auditEvent, TokenRetention: retention, WebhookAllowPrivate: cfg.Webhooks.AllowPrivate,
		Blobs: blobStore, BlobCacheBytes: cfg.Store.ReadCacheBytes, BlobsPublicURL: cfg.BlobsPublicURL})
	if err := startLog(ctx, svc, cfg.Log, baseURL, cfg.BaseURL != "", ln.Addr(), log); err != nil {
		ln.Close()
		return err
	}
	srv := server.New(svc, server.Config{BaseURL: baseURL, Signup: cfg.Signup, Logger: log, RequestLog: logs.requestLog,
		Limits: cfg.Limits, TrustedProxies: cfg.TrustedProxies,
		LoginAttempts: cfg.LoginAttempts, LoginWindow: cfg.LoginWindow, SeparateMetrics: cfg.MetricsAddr != ""})

	httpServer := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: cfg.Timeouts.ReadHeader,
		ReadTimeout:       cfg.Timeouts.Read,
		WriteTimeout:      cfg.Timeouts.Write,
		IdleTimeout:       cfg.Timeouts.Idle,
		MaxHeaderBytes:    64 << 10,
	}
	// However serving ends, the downloads counted since the last flush
	// are added before the store closes, once the background work below
	// has stopped.
	defer flushDownloads(svc, log)
	// The background work stops, and is waited for, before the store
	// closes: a pactd stopped right after it started closed the store
	// under the first pruning of tokens, which then warned that the store
	// was closed.
	background, stopBackground := context.WithCancel(ctx)
	var running sync.WaitGroup
	defer func() {
		stopBackground()
		running.Wait()
	}()
	running.Go(func() { prune(background, svc, log) })
	running.Go(func() {
		webhook.New(svc, webhook.Config{Timeout: cfg.Webhooks.Timeout, Concurrency: webhookWorkers, PerUser: cfg.Webhooks.PerUser,
			Logger: log, UserAgent: "pactd/" + version + " (webhook)"}).Run(background)
	})
	running.Go(func() {
		// A flush that stopping cancels is followed by the last one, below.
		svc.RunDownloadFlusher(background, cfg.DownloadsFlushInterval, func(err error) {
			warnOfBackground(background, log, "adding download counts to the database (kept for the next try)", err)
		})
	})
	if cfg.PprofAddr != "" {
		if _, err := serveAside(ctx, "pprof", cfg.PprofAddr, pprofHandler(), log); err != nil {
			ln.Close()
			return fmt.Errorf("--pprof-addr: %w", err)
		}
	}
	if cfg.MetricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", srv.MetricsHandler())
		addr, err := serveAside(ctx, "metrics", cfg.MetricsAddr, mux, log)
		if err != nil {
			ln.Close()
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "pactd metrics on http://%s/metrics\n", addr)
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

// flushDownloads adds the downloads counted since the last flush to the
// database, at shutdown, once no request is in flight.
func flushDownloads(svc *registry.Service, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := svc.FlushDownloads(ctx); err != nil {
		log.Warn("adding download counts to the database at shutdown: the downloads since the last flush are lost", "error", err.Error())
	}
}

// resolveBaseURL is --base-url (checked by validate), or one derived from
// the listening address.
func resolveBaseURL(raw string, addr net.Addr) string {
	if raw == "" {
		host, port, _ := net.SplitHostPort(addr.String())
		if ip := net.ParseIP(host); host == "" || (ip != nil && (ip.IsUnspecified() || ip.IsLoopback())) {
			host = "localhost"
		}
		return "http://" + net.JoinHostPort(host, port)
	}
	return strings.TrimRight(raw, "/")
}

// warnOfBackground warns that background work (a pruning, a flush of the
// downloads) failed, unless the store is unreachable, which the store logs
// once, or pactd is stopping, which cancelled ctx and with it the work.
func warnOfBackground(ctx context.Context, log *slog.Logger, what string, err error) {
	if !errors.Is(err, registry.ErrStoreUnreachable) && ctx.Err() == nil {
		log.Warn(what, "error", err.Error())
	}
}

// prune forgets what is kept only a while: every minute the spent nonces
// too old to be replayed and the logins of the command line that expired,
// and at start and every hour the tokens that ended longer than
// --token-retention ago.
func prune(ctx context.Context, svc *registry.Service, log *slog.Logger) {
	failed := func(what string, err error) { warnOfBackground(ctx, log, what, err) }
	pruneTokens := func() {
		if n, err := svc.PruneTokens(ctx); err != nil {
			failed("pruning tokens", err)
		} else if n > 0 {
			log.Info("deleted the tokens that ended longer than --token-retention ago", "count", n)
		}
	}
	pruneTokens()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for minute := 1; ; minute++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := svc.PruneNonces(ctx); err != nil {
				failed("pruning nonces", err)
			} else if n > 0 {
				log.Debug("pruned nonces", "count", n)
			}
			if n, err := svc.PruneDeviceLogins(ctx); err != nil {
				failed("pruning device logins", err)
			} else if n > 0 {
				log.Debug("pruned expired device logins", "count", n)
			}
			if minute%60 == 0 {
				pruneTokens()
			}
		}
	}
}
