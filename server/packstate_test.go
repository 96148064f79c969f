package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/translog"
)

// Publishes and yanks of one package at once each log the package's state
// as their own transaction leaves it: the pack-state entries form one chain
// (each names the one before), each agrees with the events before it, the
// newest names the highest version not yanked, and GET
// /api/packages/{owner}/{pack} names it as log_head. pactd log check passes.
func TestPackStateUnderConcurrentChanges(t *testing.T) {
	t.Parallel()
	servertest.EachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		const n = 16
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				resp := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", fmt.Sprintf("1.%d.0", i))}, alice.Bearer())
				if resp.Status != http.StatusOK {
					t.Errorf("publish 1.%d.0: %d %s", i, resp.Status, resp.Body)
				}
			})
		}
		wg.Wait()
		// Yanks of the highest versions and publishes of new ones, at once.
		for i := range 4 {
			wg.Go(func() {
				resp := env.API.PostJSON(yankPath("widget", fmt.Sprintf("1.%d.0", n-1-i), "yank"), map[string]any{"reason": "bad"}, alice.Bearer())
				if resp.Status != http.StatusOK {
					t.Errorf("yank: %d %s", resp.Status, resp.Body)
				}
			})
			wg.Go(func() {
				resp := env.API.PostJSON("/api/publish", map[string]string{"content": packDoc("widget", fmt.Sprintf("0.%d.0", i))}, alice.Bearer())
				if resp.Status != http.StatusOK {
					t.Errorf("publish 0.%d.0: %d %s", i, resp.Status, resp.Body)
				}
			})
		}
		wg.Wait()

		resp := env.API.Get("/api/packages/alice/widget")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		body := resp.JSON(t)
		if latest := body["package"].(map[string]any)["version"]; latest != "1.11.0" {
			t.Fatalf("latest %v, want 1.11.0", latest)
		}
		head, ok := body["log_head"].(float64)
		if !ok {
			t.Fatalf("log_head %v, want the index of the newest pack-state entry", body["log_head"])
		}
		st, err := env.Store.LogState(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		entries, err := env.Store.LogEntries(t.Context(), 0, st.Entries)
		if err != nil {
			t.Fatal(err)
		}
		// 20 publishes and 4 yanks, each followed by a pack-state entry.
		if len(entries) != 2*(n+8) {
			t.Fatalf("%d log entries, want %d", len(entries), 2*(n+8))
		}
		prev, states := int64(-1), 0
		for i, data := range entries {
			e, err := translog.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind != translog.KindPackState {
				continue
			}
			states++
			ps, err := e.PackState()
			if err != nil {
				t.Fatal(err)
			}
			if ps.Prev != prev {
				t.Errorf("pack-state entry %d names %d as its previous, want %d", i, ps.Prev, prev)
			}
			prev = int64(i)
		}
		if states != n+8 || prev != int64(head) {
			t.Errorf("%d pack-state entries, the newest %d; want %d, the newest the log_head %v", states, prev, n+8, head)
		}
		newest, _ := translog.Parse(entries[int(head)])
		if ps, _ := newest.PackState(); ps.Latest != "1.11.0" || strings.Join(ps.Yanked, " ") != "1.12.0 1.13.0 1.14.0 1.15.0" {
			t.Errorf("the newest state:\n%s\nwant latest 1.11.0 and 1.12.0 to 1.15.0 yanked", entries[int(head)])
		}
		var report []string
		if err := env.Service.CheckLog(t.Context(), func(line string) { report = append(report, line) }); err != nil {
			t.Fatalf("the log check (pactd log check) fails: %v", err)
		}
		if !strings.Contains(strings.Join(report, "\n"), "package states: 1 latest versions") {
			t.Errorf("the log check's report:\n%s", strings.Join(report, "\n"))
		}
	})
}
