// Package api is pact's REST interface: the handlers of /api/..., /raw/...,
// the log's machine paths, /openapi.json and the operational endpoints,
// each behind the authority table's gate (auth.go). package server puts it
// and the pages (server/web) behind one handler.
package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/idtoken"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// Config is what the API needs of pactd's configuration.
type Config struct {
	// BaseURL is the public address of the service, without a trailing
	// slash: every URL in an answer is built from it.
	BaseURL string
	// Limits guard the API; the zero value turns every limit off.
	Limits Limits
	// SeparateMetrics leaves /metrics out: pactd serves MetricsHandler on
	// a listener of its own.
	SeparateMetrics bool
}

// Server is the REST interface.
type Server struct {
	svc    *registry.Service
	cfg    Config
	shared *httpx.Shared
	engine *gin.Engine

	limitIP, limitToken, limitKey *keyedLimiter
	limitLog                      *keyedLimiter  // /log/*, by address (auth.go)
	logWaits                      *concurrentCap // held checkpoint waits, by address (translog.go)
	limitDevice                   *keyedLimiter  // devicelogin.go
	publishing                    *publishSlots
	tiles                         *tileCache        // the log's tiles served (translog.go)
	idtokens                      *idtoken.Verifier // nil when no issuer is allowed (trust.go)
}

// New builds the REST interface around a registry service, on shared's
// logs, metrics and body budget.
func New(svc *registry.Service, shared *httpx.Shared, cfg Config) *Server {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	s := &Server{svc: svc, cfg: cfg, shared: shared,
		limitIP:     newKeyedLimiter(cfg.Limits.PerIP),
		limitToken:  newKeyedLimiter(cfg.Limits.PerToken),
		limitKey:    newKeyedLimiter(cfg.Limits.PerKey),
		limitLog:    newKeyedLimiter(cfg.Limits.PerIPLog),
		logWaits:    newConcurrentCap(cfg.Limits.LogWaitsPerIP),
		limitDevice: newKeyedLimiter(cfg.Limits.DeviceLogins),
		publishing:  newPublishSlots(cfg.Limits.MaxConcurrentPublishes, cfg.Limits.PublishQueueWait),
		tiles:       newTileCache(maxTileCacheBytes),
		idtokens:    newIDTokenVerifier(svc, cfg.BaseURL),
	}
	shared.Metrics.AddCache("log_tiles", s.tiles.stats)
	s.engine = shared.NewEngine()
	s.routeAPI(s.engine)
	return s
}

// Handler answers the API's paths.
func (s *Server) Handler() http.Handler { return s.engine }

// Routes lists the API's routes.
func (s *Server) Routes() []gin.RouteInfo { return s.engine.Routes() }
