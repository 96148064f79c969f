package httpx

import (
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/pact-registry/pact/server/registry"
)

// Metrics are pactd's Prometheus series. Each server has its own registry,
// so tests can run many servers in one process.
type Metrics struct {
	registry          *prometheus.Registry
	requests          *prometheus.CounterVec
	latency           *prometheus.HistogramVec
	publishes         *prometheus.CounterVec
	signatureFailures *prometheus.CounterVec
	caches            *cacheCollector
	resolved          sync.Map // seriesKey → *requestSeries
}

// NewMetrics registers the series of one server.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pact_http_requests_total", Help: "HTTP requests by route template, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pact_http_request_duration_seconds", Help: "HTTP request latency by route template and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
		publishes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pact_publishes_total", Help: "Publish attempts by authentication and result (created, unchanged, or the error code).",
		}, []string{"auth", "result"}),
		signatureFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pact_signature_failures_total", Help: "Signed publishes refused, by the check that failed.",
		}, []string{"reason"}),
		caches: newCacheCollector(),
	}
	m.registry.MustRegister(m.requests, m.latency, m.publishes, m.signatureFailures, m.caches,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Every label value comes from a small fixed set: a client choosing methods,
// paths or statuses must not be able to make a series per request, which
// grows /metrics and the memory of pactd and of Prometheus without bound.

// methodLabel is the method when it is one pactd knows, else "other".
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "other"
}

// routeLabel is the route template that matched ("/api/packages/:owner/:pack"),
// never the path the client sent.
func routeLabel(c *gin.Context) string {
	if route := c.FullPath(); route != "" {
		return route
	}
	return "unmatched"
}

// statusLabel is the status code; handlers only write the codes HTTP
// defines, and anything else is folded so the label stays bounded anyway.
func statusLabel(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return strconv.Itoa(status)
}

// RecordPublish counts a publish attempt's outcome.
func (m *Metrics) RecordPublish(auth string, created bool, err error) {
	result := "unchanged"
	switch {
	case err != nil:
		result = string(Code(err))
		if reason := registry.ErrorReason(err); reason != "" && auth == "ssh-signature" {
			m.signatureFailures.WithLabelValues(reason).Inc()
		}
	case created:
		result = "created"
	}
	m.publishes.WithLabelValues(auth, result).Inc()
}

// requestIDHeader is X-Request-ID in the canonical form Go's header maps
// use, so reading and writing it needs no canonicalization per request.
const requestIDHeader = "X-Request-Id"

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// requestSeries are the metric children of one route, method and status,
// resolved once (WithLabelValues hashes and locks on every call).
type requestSeries struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

type seriesKey struct {
	route, method string
	status        int
}

// series returns the children of a route, method and status, resolving
// them the first time. The labels are bounded (see routeLabel), so is the map.
func (m *Metrics) series(route, method string, status int) *requestSeries {
	if status < 100 || status > 599 {
		status = 0 // statusLabel's "other": one key for all of them
	}
	k := seriesKey{route, method, status}
	if s, ok := m.resolved.Load(k); ok {
		return s.(*requestSeries)
	}
	s := &requestSeries{
		count:   m.requests.WithLabelValues(route, method, statusLabel(status)),
		latency: m.latency.WithLabelValues(route, method),
	}
	actual, _ := m.resolved.LoadOrStore(k, s)
	return actual.(*requestSeries)
}

// staticRoute is the pages' route of their static files.
const staticRoute = "/static/*file"

// observe gives every request an id (the caller's X-Request-ID when it is
// sane), a log line, and metrics. It is on every request, so it allocates
// nothing of its own beyond the id (BENCHMARKS.md, the raw path).
func (sh *Shared) observe(c *gin.Context) {
	start := time.Now()
	h := c.Writer.Header()
	if given := c.Request.Header[requestIDHeader]; len(given) == 1 && validRequestID.MatchString(given[0]) {
		h[requestIDHeader] = given[:1:1]
	} else {
		h[requestIDHeader] = newRequestID()
	}

	c.Next()

	route := routeLabel(c)
	method := methodLabel(c.Request.Method)
	status := c.Writer.Status()
	end := time.Now()
	elapsed := end.Sub(start)
	s := sh.Metrics.series(route, method, status)
	s.count.Inc()
	s.latency.Observe(elapsed.Seconds())
	id := ""
	if v := h[requestIDHeader]; len(v) > 0 {
		id = v[0]
	}
	// The query string is left out: it is not secret today, but logs are
	// where leaked secrets live longest. A page view fetches its static
	// files too: their lines are at debug, so the log shows one line a
	// view (--log-level debug shows them all).
	level := slog.LevelInfo
	if route == staticRoute {
		level = slog.LevelDebug
	}
	if sh.RequestLog == nil || level != slog.LevelInfo {
		sh.Log.LogAttrs(c.Request.Context(), level, "request", slog.String("request_id", id),
			slog.String("method", c.Request.Method), slog.String("route", route), slog.String("path", c.Request.URL.Path),
			slog.Int("status", status), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.Int("bytes", c.Writer.Size()), slog.String("remote", sh.clientAddress(c)))
		return
	}
	sh.writeRequestLine(end, id, c.Request.Method, route, c.Request.URL.Path, status, elapsed, c.Writer.Size(), sh.clientAddress(c))
}

// clientAddress is c.ClientIP() without its allocations in the common
// case: with no trusted proxies the client is the connection's peer, whose
// address net/http already formats canonically.
func (sh *Shared) clientAddress(c *gin.Context) string {
	if len(sh.trustedProxies) == 0 {
		if host, _, err := net.SplitHostPort(c.Request.RemoteAddr); err == nil {
			if a, err := netip.ParseAddr(host); err == nil && a.Zone() == "" && !a.Is4In6() {
				return host
			}
		}
	}
	return c.ClientIP()
}

// Logger is the request's logger, with its request id.
func (sh *Shared) Logger(c *gin.Context) *slog.Logger {
	if id := c.Writer.Header().Get(requestIDHeader); id != "" {
		return sh.Log.With("request_id", strings.Clone(id))
	}
	return sh.Log
}
