// Package server adapts HTTP to the registry: it puts the REST interface
// (server/api) and the pages (server/web) behind one handler, and holds
// nothing else. What both sides share is in server/internal/httpx.
package server

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/api"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/web"
)

// Config is what the server needs from pactd's configuration.
type Config struct {
	// BaseURL is the public address of the service, e.g. https://pact.example.com.
	// Every URL in a response is built from it, never from the Host header.
	BaseURL string
	// Signup is "open" (anyone can make an account in the dashboard) or "closed".
	Signup string
	// LoginAttempts failed log-ins for one account from one address (an
	// IPv6 address counts by its /64), or four times as many for one account
	// from all addresses together, within LoginWindow lock them out until
	// the window ends. 0 means 5 attempts in 15 minutes.
	LoginAttempts int
	LoginWindow   time.Duration
	// LoginTableKeys bounds each table of the log-in and sign-up
	// throttles to so many keys (addresses, accounts); 0 means 100,000.
	LoginTableKeys int
	Logger         *slog.Logger
	// RequestLog, when set, receives the one log line per request
	// directly (the format Logger's JSON handler writes); nil sends them
	// through Logger.
	RequestLog io.Writer
	// Limits guard the API; the zero value turns every limit off.
	Limits Limits
	// TrustedProxies are the addresses (or CIDRs) of reverse proxies whose
	// X-Forwarded-For is believed; none by default, so clients cannot
	// choose the address their rate limit is counted under.
	TrustedProxies []string
	// SeparateMetrics leaves /metrics off Handler (it answers 404 there):
	// pactd serves MetricsHandler on a listener of its own instead.
	SeparateMetrics bool
}

// Limits guard the API (server/api); the zero value turns every limit off.
type (
	Limits = api.Limits
	Limit  = api.Limit
)

// DefaultLimits are pactd serve's limits.
var DefaultLimits = api.DefaultLimits

// Server serves the whole of pact over HTTP.
type Server struct {
	shared  *httpx.Shared
	api     *api.Server // /api/..., /raw/..., /openapi.json, /healthz, /readyz, /metrics
	web     *gin.Engine // every other path: HTML pages and /{owner}.keys
	handler http.Handler
}

// New builds the server around a registry service.
func New(svc *registry.Service, cfg Config) *Server {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Signup == "" {
		cfg.Signup = "open"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{shared: httpx.NewShared(log, cfg.BaseURL, cfg.TrustedProxies, cfg.Limits.BodyBudget, cfg.Limits.BodyBudgetWait)}
	s.shared.RequestLog = cfg.RequestLog
	s.shared.Metrics.AddCache("documents", svc.DocumentCache)
	s.shared.Metrics.AddWitnesses(svc.WitnessReport)
	s.api = api.New(svc, s.shared, api.Config{BaseURL: cfg.BaseURL, Limits: cfg.Limits, SeparateMetrics: cfg.SeparateMetrics})
	s.web = s.shared.NewEngine()
	web.New(svc, s.shared, web.Config{
		BaseURL: cfg.BaseURL, Signup: cfg.Signup, LoginAttempts: cfg.LoginAttempts, LoginWindow: cfg.LoginWindow,
		LoginTableKeys: cfg.LoginTableKeys,
	}).Route(s.web)
	s.handler = http.HandlerFunc(s.dispatch)
	return s
}

// dispatch is the one place that says which side answers a path. The API
// and the pages live on separate routers: the pages' /{owner}/{pack} would
// otherwise swallow unknown /api paths, which must get JSON 404 and 405
// answers. The log's machine paths (/log/checkpoint, /log/key, /log/tile/)
// are the API's; its pages, /log and /log/entry/{index}, are HTML.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if strings.HasPrefix(p, "/api/") || p == "/api" || strings.HasPrefix(p, "/raw/") ||
		strings.HasPrefix(p, "/log/") && !strings.HasPrefix(p, "/log/entry/") ||
		p == "/openapi.json" || p == "/healthz" || p == "/readyz" || p == "/metrics" {
		s.api.Handler().ServeHTTP(w, r)
		return
	}
	s.web.ServeHTTP(w, r)
}

// Routes lists every route the API's and the pages' routers serve, for
// UnlistedRoutes and the every-route test.
func (s *Server) Routes() []gin.RouteInfo {
	return append(s.api.Routes(), s.web.Routes()...)
}

// UnlistedRoutes names the routes of routes that have no row in the
// authority table (registry.Routes): each would be refused at its gate.
func UnlistedRoutes(routes []gin.RouteInfo) []string {
	var out []string
	for _, r := range routes {
		if _, ok := registry.RouteOp(r.Method, r.Path); !ok {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// Handler returns the http.Handler of the whole service.
func (s *Server) Handler() http.Handler { return s.handler }

// MetricsHandler serves the metrics in the Prometheus text format, for a
// listener of their own (see Config.SeparateMetrics).
func (s *Server) MetricsHandler() http.Handler { return s.shared.Metrics.Handler() }
