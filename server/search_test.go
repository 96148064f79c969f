package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// TestSearch: q matches words of owners, slugs, names and descriptions, the
// last one as a prefix; the exact slug comes first, then matches in the
// name, then the rest, each by relevance; next_cursor walks across the
// ranks (docs/protocol.md, "Search"). Both engines rank these alike.
func TestSearch(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		users := map[string]*servertest.User{}
		publish := func(owner, name, extra string) {
			t.Helper()
			if users[owner] == nil {
				users[owner] = env.CreateUser(t, owner)
			}
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc(name, "1.0.0", extra)}, users[owner].Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		// Oldest first.
		publish("alice", "Widget", "description: the first widget\nscheme: tool-v1\n")
		publish("bob", "Widget CLI", "description: command line\nscheme: cli-v1\n")
		publish("carol", "My Widget", "description: another one\nscheme: tool-v1\n")
		publish("bob", "Widget", "description: bob's own\nscheme: cli-v1\n")
		publish("alice", "Gadget", "description: works with a Widget\nscheme: tool-v1\n")
		publish("carol", "Widgets", "description: many\n")
		publish("widget", "Tools", "description: by the account named widget\nscheme: tool-v1\n")
		publish("alice", "Widget A", "description: alpha\nscheme: tool-v1\n")
		publish("dave", "Unrelated", "description: nothing 100% _plain_\n")
		publish("ed", "Kit", "description: small\n")

		search := func(query string) []string {
			t.Helper()
			var all []string
			cursor := ""
			for pages := 0; ; pages++ {
				if pages > 20 {
					t.Fatalf("%s: the walk does not end", query)
				}
				path := "/api/packages?limit=2&" + query
				if cursor != "" {
					path += "&cursor=" + url.QueryEscape(cursor)
				}
				resp := env.API.Get(path)
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				var page listPage
				resp.Decode(t, &page)
				for _, p := range page.Packages {
					all = append(all, p.OwnerSlug+"/"+p.PackSlug)
				}
				if page.NextCursor == nil {
					return all
				}
				cursor = *page.NextCursor
			}
		}
		cases := []struct {
			query string
			want  []string
		}{
			{"q=widget", []string{"bob/widget", "alice/widget", "carol/widgets", "alice/widget-a", "carol/my-widget",
				"bob/widget-cli", "widget/tools", "alice/gadget"}},
			{"q=Widget+CLI", []string{"bob/widget-cli"}},
			{"q=command", []string{"bob/widget-cli"}},    // description
			{"q=my+widget", []string{"carol/my-widget"}}, // name, and the slug exactly
			{"q=ice%2Fwid", nil},                         // part of an owner's name is no owner
			{"q=alice%2Fwidget", []string{"alice/widget", "alice/widget-a", "alice/gadget"}},
			{"q=alice%2F", []string{"alice/gadget", "alice/widget", "alice/widget-a"}},
			{"q=bob%2Fwidget-cli", []string{"bob/widget-cli"}},
			{"q=ed%2Fk", []string{"ed/kit"}}, // a short owner, a prefix
			{"q=zed%2Fkit", nil},             // no such owner
			{"q=ED", []string{"ed/kit"}},     // an owner's name
			{"q=zz", nil},                    // no such owner
			{"q=dave", []string{"dave/unrelated"}},
			{"q=widget+works", []string{"alice/gadget"}},
			{"q=100%25", []string{"dave/unrelated"}},
			{"q=_pl", []string{"dave/unrelated"}},
			{"q=%25", nil},
			{"q=wi", []string{"carol/widgets", "bob/widget", "alice/widget", "alice/widget-a", "carol/my-widget",
				"bob/widget-cli", "widget/tools", "alice/gadget"}},
			{"q=widget&scheme=tool-v1", []string{"alice/widget", "alice/widget-a", "carol/my-widget", "widget/tools", "alice/gadget"}},
			{"q=widget&owner=bob", []string{"bob/widget", "bob/widget-cli"}},
		}
		for _, c := range cases {
			if got := search(c.query); !slices.Equal(got, c.want) {
				t.Errorf("%s: got %q\nwant %q", c.query, got, c.want)
			}
		}

		t.Run("a search that finds little suggests slugs", func(t *testing.T) {
			for q, want := range map[string][]string{"wigdet": {"widget"}, "widget+cly": {"widget-cli"}, "gadgte": {"gadget"}} {
				resp := env.API.Get("/api/packages?q=" + q)
				wantStatus(t, resp.Status, http.StatusOK, resp.Body)
				var page listPage
				resp.Decode(t, &page)
				if len(page.Suggestions) == 0 || page.Suggestions[0] != want[0] {
					t.Errorf("q=%s: suggestions %q, want %q first", q, page.Suggestions, want[0])
				}
			}
			// Enough found, or the package the query names: no
			// suggestions, not even an empty list.
			for _, q := range []string{"widget", "bob%2Fwidget-cli", "my-widget"} {
				resp := env.API.Get("/api/packages?q=" + q)
				if body := resp.JSON(t); body["suggestions"] != nil {
					t.Errorf("q=%s: suggestions %v", q, body["suggestions"])
				}
			}
		})

		t.Run("a cursor belongs to its search", func(t *testing.T) {
			resp := env.API.Get("/api/packages?limit=1&q=widget")
			var page listPage
			resp.Decode(t, &page)
			if page.NextCursor == nil {
				t.Fatal("no next_cursor")
			}
			other := env.API.Get("/api/packages?limit=1&q=gadget&cursor=" + url.QueryEscape(*page.NextCursor))
			wantError(t, other.Status, other.JSON(t), http.StatusBadRequest, "another search")
			// So does a plain list's: its position is in another order.
			plain := env.API.Get("/api/packages?limit=1")
			plain.Decode(t, &page)
			resp = env.API.Get("/api/packages?q=widget&cursor=" + url.QueryEscape(*page.NextCursor))
			wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "another search")
		})

		t.Run("bounds", func(t *testing.T) {
			for _, c := range []struct{ q, msg string }{
				{strings.Repeat("a", 201), "at most 200 bytes"},
				{strings.Repeat("é", 101), "at most 200 bytes"},
				{strings.Repeat("w ", 17), "at most 16 words"},
				{"bad\xff", "UTF-8"},
				{"nul\x00", "NUL"},
			} {
				resp := env.API.Get("/api/packages?q=" + url.QueryEscape(c.q))
				wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, c.msg)
			}
			resp := env.API.Get("/api/packages?q=" + url.QueryEscape(strings.Repeat("a", 200)))
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		})
	})
}
