package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
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
	NextCursor  *string  `json:"next_cursor"`
	Suggestions []string `json:"suggestions"`
}

func TestListPackages(t *testing.T) {
	t.Parallel()
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

// A page of packages ends before 1 MB of JSON, with a next_cursor from
// where it stopped, for the plain list and a search alike: 100 packages
// whose strings JSON escapes six-fold would make 1.4 MB.
func TestListPagesAreBoundedInBytes(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		const n = 100
		for i := range n {
			doc := packDoc(fmt.Sprintf("big %03d", i), "1.0.0", "description: '"+strings.Repeat("<", 2000)+"'\n",
				"scheme: '"+strings.Repeat(">", 200)+"'\n")
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		for _, query := range []string{"limit=100", "limit=100&q=big", "limit=100&owner=alice"} {
			seen := map[string]bool{}
			pages := 0
			for cursor := ""; ; {
				pages++
				path := "/api/packages?" + query
				if cursor != "" {
					path += "&cursor=" + url.QueryEscape(cursor)
				}
				resp := env.API.Get(path)
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				if len(resp.Body) > 1_000_000 {
					t.Errorf("%s: page %d is %d bytes, over 1 MB", query, pages, len(resp.Body))
				}
				page := resp.JSON(t)
				for _, p := range page["packages"].([]any) {
					slug := p.(map[string]any)["pack_slug"].(string)
					if seen[slug] {
						t.Fatalf("%s: %s listed twice", query, slug)
					}
					seen[slug] = true
				}
				next, _ := page["next_cursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			if len(seen) != n || pages < 2 {
				t.Errorf("%s: %d packages in %d pages, want %d in more than one", query, len(seen), pages, n)
			}
		}
	})
}
