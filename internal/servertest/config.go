package servertest

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// StartWithConfig serves pact with a configuration servertest does not
// offer, on a fresh SQLite file, with one account "dana".
func StartWithConfig(t *testing.T, cfg server.Config) string {
	t.Helper()
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, t.TempDir()+"/pact.db", sqlstore.Options{LogBackfill: registry.Backfill()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc := registry.NewService(store, registry.Options{PasswordCost: TestPasswordCost})
	if _, err := svc.CreateAccount(ctx, "dana@example.com", "dana", "long enough"); err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ts := httptest.NewServer(server.New(svc, cfg).Handler())
	t.Cleanup(ts.Close)
	if cfg.BaseURL == "" {
		t.Fatal("StartWithConfig needs a BaseURL")
	}
	return ts.URL
}
