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
	Logger *slog.Logger
}

// Server serves the whole of pact over HTTP.
type Server struct {
	svc     *registry.Service
	cfg     Config
	log     *slog.Logger
	api     *gin.Engine // /api/..., /raw/..., /openapi.json, /healthz, /readyz
	web     *gin.Engine // every other path: HTML pages and /{owner}.keys
	handler http.Handler
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
	s := &Server{svc: svc, cfg: cfg, log: log}
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
		p == "/openapi.json" || p == "/healthz" || p == "/readyz" {
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
	e.Use(s.recoverPanics, s.logRequests)
	return e
}

func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving request", "method", c.Request.Method, "path", c.Request.URL.Path, "panic", v)
			s.fail(c, registry.Errorf(registry.Internal, "internal error"))
		}
	}()
	c.Next()
}

func (s *Server) logRequests(c *gin.Context) {
	start := time.Now()
	c.Next()
	s.log.Info("request", "method", c.Request.Method, "path", c.Request.URL.Path,
		"status", c.Writer.Status(), "duration_ms", float64(time.Since(start).Microseconds())/1000)
}
