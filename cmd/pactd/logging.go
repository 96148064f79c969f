package main

import (
	"context"
	"io"
	"log/slog"
	"os"

	"golang.org/x/term"

	"github.com/pact-registry/pact/server/registry"
)

// What pactd serve logs on stderr (docs/operations.md, Logs): one line per
// request, what happens to the process, and one audit line per change a
// user makes. The format and level are chosen once, at start-up, so the
// line written per request costs what slog's handler costs, no more.

var logFormats = map[string]bool{"auto": true, "text": true, "json": true}

var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
}

// loggers are serve's two loggers, on one output: log for everything at
// --log-level, audit for the audit lines, which are written whatever the
// level (an operator who quiets the request log still keeps the record of
// who changed what).
type loggers struct {
	log, audit *slog.Logger
	// requestLog takes the request lines directly, written as the JSON
	// handler would and without its cost, when the format is JSON and
	// the level keeps info lines; nil sends them through log.
	requestLog io.Writer
}

// newLoggers makes the loggers for format ("auto": text when the output is
// a terminal) and level, both checked by validate.
func newLoggers(out io.Writer, format, level string, terminal bool) loggers {
	if format == "auto" {
		format = "json"
		if terminal {
			format = "text"
		}
	}
	handler := func(lowest slog.Level) slog.Handler {
		opts := &slog.HandlerOptions{Level: lowest}
		if format == "text" {
			return slog.NewTextHandler(out, opts)
		}
		return slog.NewJSONHandler(out, opts)
	}
	lv := logLevels[level]
	l := loggers{log: slog.New(handler(lv)), audit: slog.New(handler(min(lv, slog.LevelInfo)))}
	if format == "json" && lv <= slog.LevelInfo {
		l.requestLog = out
	}
	return l
}

// auditEvent writes one audit line: the change in words as the message,
// and its fields for machines; "audit" holds the kind of change, so
// `grep audit=` (text) or `jq 'select(.audit)'` (JSON) keeps only them.
func (l loggers) auditEvent(ctx context.Context, e registry.Event) {
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs, slog.String("audit", e.Action), slog.String("actor", e.Actor))
	if e.Package != "" {
		attrs = append(attrs, slog.String("package", e.Package))
	}
	if e.Version != "" {
		attrs = append(attrs, slog.String("version", e.Version))
	}
	if e.TokenID != 0 {
		attrs = append(attrs, slog.Int64("token_id", e.TokenID))
	}
	if e.KeyFingerprint != "" {
		attrs = append(attrs, slog.String("fingerprint", e.KeyFingerprint))
	}
	if e.TrustedPublisherID != 0 {
		attrs = append(attrs, slog.Int64("trusted_publisher_id", e.TrustedPublisherID))
	}
	if e.HookID != 0 {
		attrs = append(attrs, slog.Int64("hook_id", e.HookID))
	}
	l.audit.LogAttrs(ctx, slog.LevelInfo, e.Message, attrs...)
}

// isTerminal says whether w is a terminal (a user watching pactd run),
// rather than a pipe, a file or journald.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
