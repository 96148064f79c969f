package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

type listPage struct {
	OK       bool `json:"ok"`
	Packages []struct {
		OwnerSlug string `json:"owner_slug"`
		PackSlug  string `json:"pack_slug"`
		Version   string `json:"version"`
		Scheme    string `json:"scheme"`
	} `json:"packages"`
	NextCursor *string `json:"next_cursor"`
}

func TestListPackages(t *testing.T) {
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		publish := func(u *servertest.User, doc string) {
			t.Helper()
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, u.Bearer())
			wantStatus(t, resp.Status, 200, resp.Body)
		}
		for i := 0; i < 25; i++ {
			publish(alice, packDoc(fmt.Sprintf("pack-%02d", i), "1.0", "scheme: s1\n"))
		}
		publish(bob, packDoc("Rare Gem", "1.0", "scheme: s2\ndescription: A shiny thing\n"))
		publish(alice, packDoc("pack-00", "2.0", "scheme: s1\n")) // moves pack-00 to the front

		list := func(query string) listPage {
			t.Helper()
			resp := env.API.Get("/api/packages" + query)
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var page listPage
			resp.Decode(t, &page)
			return page
		}
		t.Run("latest publish first, default limit 20", func(t *testing.T) {
			page := list("")
			if len(page.Packages) != 20 || page.NextCursor == nil {
				t.Fatalf("got %d packages, next_cursor %v; want 20 and a cursor", len(page.Packages), page.NextCursor)
			}
			if first := page.Packages[0]; first.PackSlug != "pack-00" || first.Version != "2.0" {
				t.Errorf("first = %+v, want pack-00 at 2.0 (the latest publish)", first)
			}
			if second := page.Packages[1]; second.PackSlug != "rare-gem" {
				t.Errorf("second = %+v, want rare-gem", second)
			}
		})
		t.Run("cursor walk sees every package once", func(t *testing.T) {
			seen := map[string]int{}
			cursor := ""
			for pages := 0; pages < 20; pages++ {
				page := list("?limit=7&cursor=" + url.QueryEscape(cursor))
				for _, p := range page.Packages {
					seen[p.OwnerSlug+"/"+p.PackSlug]++
				}
				if page.NextCursor == nil {
					break
				}
				cursor = *page.NextCursor
			}
			if len(seen) != 26 {
				t.Errorf("saw %d packages, want 26", len(seen))
			}
			for k, n := range seen {
				if n != 1 {
					t.Errorf("%s seen %d times", k, n)
				}
			}
		})
		t.Run("filters", func(t *testing.T) {
			for query, want := range map[string]int{
				"?owner=bob":             1,
				"?owner=alice&limit=100": 25,
				"?scheme=s2":             1,
				"?q=shiny":               1,
				"?q=RARE+gem":            1,
				"?q=gem+missing":         0,
				"?q=pack-0&limit=100":    10,
				"?owner=nobody":          0,
				"?q=100%25":              0,
			} {
				if got := len(list(query).Packages); got != want {
					t.Errorf("%s: %d packages, want %d", query, got, want)
				}
			}
		})
		t.Run("bad paging parameters", func(t *testing.T) {
			for _, query := range []string{"?limit=0", "?limit=101", "?limit=abc", "?cursor=garbage", "?cursor=djE6LTE"} {
				resp := env.API.Get("/api/packages" + query)
				wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "")
			}
		})
	})
}
