package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

// lineWatcher is the standard output of a followed watch: it calls onLine
// for every complete line written.
type lineWatcher struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	seen   int
	onLine func(line string)
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	lines := strings.SplitAfter(w.buf.String(), "\n")
	var complete []string
	for _, l := range lines[w.seen:] {
		if strings.HasSuffix(l, "\n") {
			complete = append(complete, strings.TrimSuffix(l, "\n"))
			w.seen++
		}
	}
	w.mu.Unlock()
	for _, l := range complete {
		w.onLine(l)
	}
	return len(p), nil
}

// TestLogWatchFollowPrintsNewEventsUntilInterrupted runs pact log watch
// --follow against the real pactd: it prints what is there, then an event
// made while it runs, and ends with exit 0 when interrupted (SIGINT, as
// Ctrl-C sends).
func TestLogWatchFollowPrintsNewEventsUntilInterrupted(t *testing.T) {
	srv, _, c := startAlice(t)
	publish := func(version string) { publishWidget(t, c, version) }
	publish("1.0.0")
	watchFrom(t, srv.URL)
	ios, _, stderr := iostreams.Test("")
	out := &lineWatcher{onLine: func(line string) {
		switch {
		case strings.HasSuffix(line, "alice published widget 1.0.0 (token)"):
			publish("2.0.0") // while the watch runs
		case strings.HasSuffix(line, "alice published widget 2.0.0 (token)"):
			syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		}
	}}
	ios.Out = out
	code := mainRun([]string{"log", "watch", "--owner", "alice", "--follow", "--interval", "1s"}, ios)
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	got := out.buf.String()
	if !strings.Contains(got, "published widget 1.0.0") || !strings.Contains(got, "published widget 2.0.0") {
		t.Errorf("stdout:\n%s\nwant both publishes", got)
	}
}

// publishWidget publishes version of alice's widget through c; a failure
// fails t from any goroutine.
func publishWidget(t *testing.T, c *client.Client, version string) {
	doc := "```yaml pact:pack\nname: widget\nversion: " + version + "\n```\n"
	if _, err := c.Publish(context.Background(), client.PublishRequest{Content: []byte(doc)}); err != nil {
		t.Error(err)
	}
}

// watchFrom points pact at the registry at url, with a config and a cache
// of the test's own.
func watchFrom(t *testing.T, url string) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir+"/xdg")
	t.Setenv("XDG_CACHE_HOME", dir+"/cache")
	t.Setenv("PACT_HOST", url)
}
