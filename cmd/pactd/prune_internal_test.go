package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// A pactd that stops cancels the pruning it started; that is no failure
// to warn of (TestLogFormat's --log-level warn case once saw "pruning
// tokens: context canceled" from a pactd stopped right after it started),
// while a pruning that fails on its own still warns. The downloads'
// flusher warns through the same warnOfBackground.
func TestPruneWarnsOfFailuresNotOfStopping(t *testing.T) {
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "pact.db"), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := registry.NewService(store, registry.Options{})
	logged := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logged, &slog.HandlerOptions{Level: slog.LevelDebug}))

	stopping, stop := context.WithCancel(ctx)
	stop()
	prune(stopping, svc, log) // returns at once: its context is done
	if logged.String() != "" {
		t.Errorf("a pruning cancelled by stopping logged %q, want nothing", logged.String())
	}

	// The store closed under a pruning that was not cancelled: a warning.
	store.Close()
	running, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		prune(running, svc, log)
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logged.String(), "pruning tokens") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if !strings.Contains(logged.String(), "pruning tokens") {
		t.Errorf("a pruning that failed on a closed store logged %q, want a warning", logged.String())
	}
}
