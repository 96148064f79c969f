package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// discardWriter is a reusable http.ResponseWriter that keeps nothing but
// its headers (cleared between requests), so the benchmark counts the
// handler chain's own allocations, not a recorder's.
type discardWriter struct {
	h      http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkRawRequest serves GET /raw/{owner}/{pack}.pact.md through the
// whole handler pactd serves (dispatch, Gin, request id, metrics, the JSON
// request log line, the cached document): its allocations per request are
// the raw path's, without net/http's own (BENCHMARKS.md).
func BenchmarkRawRequest(b *testing.B) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, b.TempDir()+"/pact.db", sqlstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	svc := registry.NewService(store, registry.Options{})
	acct, err := svc.CreateAccount(ctx, "alice@example.com", "alice", "correct horse alice")
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := svc.Publish(ctx, acct, registry.PublishRequest{Content: []byte(servertest.PackDoc("doc", "1.0.0"))}); err != nil {
		b.Fatal(err)
	}
	srv := server.New(svc, server.Config{BaseURL: "http://bench.invalid",
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), RequestLog: io.Discard, Limits: server.DefaultLimits})
	h := srv.Handler()
	req := httptest.NewRequest(http.MethodGet, "/raw/alice/doc.pact.md", nil)
	req.RemoteAddr = "127.0.0.1:40000"
	w := &discardWriter{h: http.Header{}}
	h.ServeHTTP(w, req)
	if w.status != http.StatusOK {
		b.Fatalf("status %d", w.status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}
