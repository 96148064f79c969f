package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/spf13/pflag"
)

// addPprofFlag adds --pprof-addr, hidden: it is for measuring (go run
// ./bench -pprof), not for production.
func addPprofFlag(f *pflag.FlagSet) {
	f.String("pprof-addr", "", "serve net/http/pprof on this address, e.g. 127.0.0.1:6060 (off when empty)")
	_ = f.MarkHidden("pprof-addr")
}

// servePprof serves the runtime profiles on their own listener, so they are
// never reachable through the registry's public address, until ctx ends.
func servePprof(ctx context.Context, addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("pprof server stopped", "error", err.Error())
		}
	}()
	log.Info("pprof listening", "addr", ln.Addr().String())
	return nil
}
