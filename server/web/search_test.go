package web_test

import (
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
)

// TestSearchPageSchemeFilter: the search page filters by scheme (a select
// and a chip that removes the filter), and every scheme chip on a card or
// a package page links to the search filtered by that scheme.
func TestSearchPageSchemeFilter(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		publishDoc(t, env, alice, packDoc("Widget", "1.0.0", "scheme: tool-v1\ndescription: the widget\n"))
		env.Clock.Advance(time.Second)
		publishDoc(t, env, alice, packDoc("Widget CLI", "1.0.0", "scheme: cli-v1\ndescription: a widget for shells\n"))
		env.Clock.Advance(time.Second)
		publishDoc(t, env, alice, packDoc("Gadget", "1.0.0", "scheme: tool-v1\ndescription: no match here\n"))

		home := web.Get("/")
		servertest.WantPage(t, home, http.StatusOK, `<a class="tag" href="/?scheme=tool-v1"`, `<a class="tag" href="/?scheme=cli-v1"`)

		search := web.Get("/?q=widget")
		servertest.WantPage(t, search, http.StatusOK, "Packages matching “widget”",
			`<select id="filter-scheme" name="scheme">`, `<option value="tool-v1">tool-v1</option>`, `<option value="cli-v1">cli-v1</option>`,
			`<input type="hidden" name="q" value="widget">`, `href="/?q=widget&amp;scheme=tool-v1"`)
		// The exact slug first.
		if strings.Index(search.Body, `href="/alice/widget"`) > strings.Index(search.Body, `href="/alice/widget-cli"`) {
			t.Errorf("the exact slug is not listed first")
		}

		filtered := web.Get("/?q=widget&scheme=tool-v1")
		servertest.WantPage(t, filtered, http.StatusOK, "Packages matching “widget” of scheme tool-v1",
			`<option value="tool-v1" selected>tool-v1</option>`, `aria-label="Any scheme"`, `href="/?q=widget"`, `href="/alice/widget"`)
		if strings.Contains(filtered.Body, `href="/alice/widget-cli"`) || strings.Contains(filtered.Body, `href="/alice/gadget"`) {
			t.Errorf("the filtered search lists a package of another scheme or one that does not match")
		}

		byScheme := web.Get("/?scheme=tool-v1")
		servertest.WantPage(t, byScheme, http.StatusOK, "Packages of scheme tool-v1", `href="/alice/widget"`, `href="/alice/gadget"`)
		if strings.Contains(byScheme.Body, `href="/alice/widget-cli"`) {
			t.Errorf("the scheme's page lists a package of another scheme")
		}
		servertest.WantPage(t, web.Get("/?scheme=none-such"), http.StatusOK, "No package has this scheme.")

		page := web.Get("/alice/widget")
		servertest.WantPage(t, page, http.StatusOK, `<a class="tag" href="/?scheme=tool-v1"`)

		// The next page of a filtered search keeps q and scheme.
		for i := range 25 {
			publishDoc(t, env, alice, packDoc("Tool "+string(rune('a'+i)), "1.0.0", "scheme: tool-v1\ndescription: a widget tool\n"))
		}
		first := web.Get("/?q=widget&scheme=tool-v1")
		i := strings.Index(first.Body, `<a rel="next" href="`)
		if i < 0 {
			t.Fatalf("no next page link")
		}
		next := first.Body[i+len(`<a rel="next" href="`):]
		next = html.UnescapeString(next[:strings.Index(next, `"`)])
		if !strings.Contains(next, "q=widget") || !strings.Contains(next, "scheme=tool-v1") {
			t.Errorf("next page link %q lost the search or the filter", next)
		}
		servertest.WantPage(t, web.Get(next), http.StatusOK, "Packages matching “widget” of scheme tool-v1")
	})
}

// TestSearchPageSuggests: a search that finds little says "Did you mean"
// with links to searches for the nearest slugs; one that finds enough
// does not.
func TestSearchPageSuggests(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		for _, name := range []string{"Backup", "Postgres Backup", "Bakery", "Widget", "Widget CLI", "Widget Kit"} {
			publishDoc(t, env, alice, packDoc(name, "1.0.0", "description: a pack\n"))
			env.Clock.Advance(time.Second)
		}
		servertest.WantPage(t, web.Get("/?q=bakup"), http.StatusOK, "No package matches your search.",
			`Did you mean <a href="/?q=backup">backup</a>`)
		servertest.WantPage(t, web.Get("/?q=postgers"), http.StatusOK, `<a href="/?q=postgres-backup">postgres-backup</a>`)
		if page := web.Get("/?q=widget"); strings.Contains(page.Body, "Did you mean") {
			t.Errorf("a search that found three packages suggests others")
		}
	})
}
