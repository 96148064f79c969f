package server_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// The first page (kept encoded in memory on SQLite) shows every publish as
// soon as it is answered, while other clients keep reading it; a page
// served from memory is the page the handler would write.
func TestFirstPageShowsEachPublishAtOnce(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		stop := make(chan struct{})
		var readers sync.WaitGroup
		for range 3 {
			readers.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
						env.API.Get("/api/packages")
						env.API.Get("/api/packages?limit=1")
						env.API.Get("/raw/alice/hot.pact.md")
					}
				}
			})
		}
		defer func() {
			close(stop)
			readers.Wait()
		}()

		for i := range 15 {
			version := fmt.Sprintf("1.0.%d", i)
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("hot", version)}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)

			for _, query := range []string{"", "?limit=1"} {
				first := env.API.Get("/api/packages" + query)
				wantStatus(t, first.Status, http.StatusOK, first.Body)
				var page listPage
				first.Decode(t, &page)
				if len(page.Packages) != 1 || page.Packages[0].Version != version {
					t.Fatalf("GET /api/packages%s right after publishing %s: %s", query, version, first.Body)
				}
				again := env.API.Get("/api/packages" + query)
				if again.Status != first.Status || string(again.Body) != string(first.Body) {
					t.Fatalf("GET /api/packages%s twice answered differently:\n%s\n%s", query, first.Body, again.Body)
				}
				if ct := again.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
					t.Errorf("Content-Type of a repeated list = %q", ct)
				}
			}
			raw := env.API.Get("/raw/alice/hot.pact.md")
			if raw.Status != http.StatusOK || string(raw.Body) != packDoc("hot", version) {
				t.Fatalf("raw document right after publishing %s: %d %s", version, raw.Status, raw.Body)
			}
		}
	})
}
