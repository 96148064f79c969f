package httpx

import (
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
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
	}
	m.registry.MustRegister(m.requests, m.latency, m.publishes, m.signatureFailures,
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

const requestIDHeader = "X-Request-ID"

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// observe gives every request an id (the caller's X-Request-ID when it is
// sane), a logger that carries it, a log line, and metrics.
func (sh *Shared) observe(c *gin.Context) {
	start := time.Now()
	id := c.GetHeader(requestIDHeader)
	if !validRequestID.MatchString(id) {
		id = newRequestID()
	}
	// The id lives in the response header; logger(c) reads it from there,
	// so the common request builds no logger of its own.
	c.Header(requestIDHeader, id)

	c.Next()

	route := routeLabel(c)
	method := methodLabel(c.Request.Method)
	status := c.Writer.Status()
	elapsed := time.Since(start)
	sh.Metrics.requests.WithLabelValues(route, method, statusLabel(status)).Inc()
	sh.Metrics.latency.WithLabelValues(route, method).Observe(elapsed.Seconds())
	// The query string is left out: it is not secret today, but logs are
	// where leaked secrets live longest.
	sh.Log.LogAttrs(c.Request.Context(), slog.LevelInfo, "request", slog.String("request_id", id),
		slog.String("method", c.Request.Method), slog.String("route", route), slog.String("path", c.Request.URL.Path),
		slog.Int("status", status), slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		slog.Int("bytes", c.Writer.Size()), slog.String("remote", c.ClientIP()))
}

// Logger is the request's logger, with its request id.
func (sh *Shared) Logger(c *gin.Context) *slog.Logger {
	if id := c.Writer.Header().Get(requestIDHeader); id != "" {
		return sh.Log.With("request_id", id)
	}
	return sh.Log
}
