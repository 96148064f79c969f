// Package server adapts HTTP to the registry: the Gin routers of the REST
// interface, the raw documents and the web pages.
package server

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
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
	Logger        *slog.Logger
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

// Server serves the whole of pact over HTTP.
type Server struct {
	svc     *registry.Service
	cfg     Config
	log     *slog.Logger
	metrics *metrics
	api     *gin.Engine // /api/..., /raw/..., /openapi.json, /healthz, /readyz, /metrics
	web     *gin.Engine // every other path: HTML pages and /{owner}.keys
	handler http.Handler

	limitIP, limitToken, limitKey *keyedLimiter
	publishing                    *publishSlots
	bodies                        *bodyBudget
}

func init() { gin.SetMode(gin.ReleaseMode) }

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
	s := &Server{svc: svc, cfg: cfg, log: log, metrics: newMetrics(),
		limitIP:    newKeyedLimiter(cfg.Limits.PerIP),
		limitToken: newKeyedLimiter(cfg.Limits.PerToken),
		limitKey:   newKeyedLimiter(cfg.Limits.PerKey),
		publishing: newPublishSlots(cfg.Limits.MaxConcurrentPublishes, cfg.Limits.PublishQueueWait),
		bodies:     newBodyBudget(cfg.Limits.BodyBudget, cfg.Limits.BodyBudgetWait),
	}
	s.api = s.newEngine()
	s.routeAPI(s.api)
	s.web = s.newEngine()
	s.routeWeb(s.web)
	s.handler = http.HandlerFunc(s.dispatch)
	return s
}

// The API and the web side live on separate routers: the web side's
// /{owner}/{pack} pages would otherwise swallow unknown /api paths, which
// must get JSON 404 and 405 answers.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if strings.HasPrefix(p, "/api/") || p == "/api" || strings.HasPrefix(p, "/raw/") ||
		p == "/openapi.json" || p == "/healthz" || p == "/readyz" || p == "/metrics" {
		s.api.ServeHTTP(w, r)
		return
	}
	s.web.ServeHTTP(w, r)
}

// Handler returns the http.Handler of the whole service.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) newEngine() *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.ContextWithFallback = true
	if err := e.SetTrustedProxies(s.cfg.TrustedProxies); err != nil {
		s.log.Error("ignoring invalid trusted proxies", "error", err.Error())
		_ = e.SetTrustedProxies(nil)
	}
	e.Use(s.observe, s.recoverPanics)
	return e
}

func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logger(c).Error("panic serving request", "method", c.Request.Method, "path", c.Request.URL.Path, "panic", v)
			s.fail(c, registry.Errorf(registry.Internal, "internal error"))
		}
	}()
	c.Next()
}
