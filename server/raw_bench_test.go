package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
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

// BenchmarkListDeepPage serves GET /api/packages?cursor=… (a page past the
// first, which is never cached) through the whole handler.
func BenchmarkListDeepPage(b *testing.B) {
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
	for i := range 120 {
		doc := servertest.PackDoc(fmt.Sprintf("doc-%03d", i), "1.0.0", "description: A pack to list, number "+strconv.Itoa(i)+".\n")
		if _, _, err := svc.Publish(ctx, acct, registry.PublishRequest{Content: []byte(doc)}); err != nil {
			b.Fatal(err)
		}
	}
	srv := server.New(svc, server.Config{BaseURL: "http://bench.invalid",
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), RequestLog: io.Discard})
	h := srv.Handler()
	// Walk to page 5 by next_cursor, as a client does.
	path := "/api/packages"
	for range 4 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		var page struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || page.NextCursor == "" {
			b.Fatalf("page: %v %s", err, w.Body.Bytes())
		}
		path = "/api/packages?cursor=" + url.QueryEscape(page.NextCursor)
	}
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr = "127.0.0.1:40000"
	dw := &discardWriter{h: http.Header{}}
	h.ServeHTTP(dw, req)
	if dw.status != http.StatusOK {
		b.Fatalf("status %d", dw.status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(dw.h)
		h.ServeHTTP(dw, req)
	}
}
