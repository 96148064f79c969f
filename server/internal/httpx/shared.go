// Package httpx holds what the REST API (package server) and the pages
// (package server/web) share: the one mapping from error codes to HTTP
// statuses, request ids, logs and metrics, the budget of request bodies,
// rate-limit answers, client address keys and the public URLs of packages.
package httpx

import (
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

func init() { gin.SetMode(gin.ReleaseMode) }

// Shared is the state the API and the pages share.
type Shared struct {
	Log     *slog.Logger
	Metrics *Metrics
	// Bodies bounds the request bodies read at once, across both sides.
	Bodies *BodyBudget
	// URLs are built from the configured base URL.
	URLs URLs
	// RequestLog, when set, receives the request log lines directly, in
	// the form slog's JSON handler gives Log (requestlog.go); nil sends
	// them through Log.
	RequestLog io.Writer

	trustedProxies []string
}

// NewShared makes the shared state of one server.
func NewShared(log *slog.Logger, baseURL string, trustedProxies []string, bodyBudget int64, bodyBudgetWait time.Duration) *Shared {
	return &Shared{
		Log:            log,
		Metrics:        NewMetrics(),
		Bodies:         NewBodyBudget(bodyBudget, bodyBudgetWait),
		URLs:           URLs{Base: baseURL},
		trustedProxies: trustedProxies,
	}
}

// NewEngine returns a Gin engine with the behaviour both sides share: 405
// for a known path with another method, no redirects, the trusted proxies,
// request ids, logs, metrics and recovery from panics.
func (sh *Shared) NewEngine() *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.ContextWithFallback = true
	if err := e.SetTrustedProxies(sh.trustedProxies); err != nil {
		sh.Log.Error("ignoring invalid trusted proxies", "error", err.Error())
		_ = e.SetTrustedProxies(nil)
	}
	e.Use(sh.observe, sh.recoverPanics)
	return e
}

func (sh *Shared) recoverPanics(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			sh.Logger(c).Error("panic serving request", "method", c.Request.Method, "path", c.Request.URL.Path, "panic", v)
			sh.Fail(c, registry.Errorf(registry.Internal, "internal error"))
		}
	}()
	c.Next()
}

// GetAndHead routes GET and HEAD of path to the same handlers: a HEAD is
// answered with the status and headers of the GET, and net/http drops the
// body the handlers write.
func GetAndHead(r gin.IRoutes, path string, handlers ...gin.HandlerFunc) {
	r.GET(path, handlers...)
	r.HEAD(path, handlers...)
}
