package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
)

// The package page charts the last 90 days of downloads as inline SVG, a
// bar a day, today's the last and the tallest here, within a 390 px phone's
// width; the list shows each package's total.
func TestBrowserPackageDownloadsChart(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	publishDoc(t, env, alice, longDoc("1.0.0"))
	download := func(n int) {
		for range n {
			resp, err := http.Get(env.URL + "/raw/alice/widget-guide.pact.md")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	download(2)
	env.Clock.Advance(24 * time.Hour)
	download(5)
	if err := env.Service.FlushDownloads(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := tab{t: t, ctx: ctx}
	b.do("emulating a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
	b.open(env.URL + "/alice/widget-guide")
	if n := evaluate[int](b, `document.querySelectorAll("svg.downloads-chart rect").length`); n != 90 {
		t.Fatalf("the chart has %d bars, want 90", n)
	}
	heights := evaluate[[]float64](b, `Array.from(document.querySelectorAll("svg.downloads-chart rect")).map(r => r.getBoundingClientRect().height)`)
	if last, before := heights[89], heights[88]; !(last > before && before > 0) || heights[0] != 0 {
		t.Errorf("bar heights: first %.1f, the day before today %.1f, today %.1f; want 0 < yesterday's < today's", heights[0], before, last)
	}
	if title := b.text(".downloads h2"); title != "Downloads 7 downloads" {
		t.Errorf("downloads heading %q", title)
	}
	chart := b.box("svg.downloads-chart")
	if chart.Left < 0 || chart.Right > 390 || chart.Bottom-chart.Top < 20 {
		t.Errorf("the chart is at %.0f-%.0f px wide, %.0f px high: want within 390 px and visible", chart.Left, chart.Right, chart.Bottom-chart.Top)
	}
	if wide := evaluate[bool](b, `document.documentElement.scrollWidth > document.documentElement.clientWidth`); wide {
		t.Errorf("the package page scrolls sideways on a 390px screen; sticking out: %q", evaluate[[]string](b, overflowing))
	}
	if n := evaluate[int](b, `document.scripts.length`); n > 1 {
		t.Errorf("the page has %d scripts", n)
	}
	b.screenshot(screenshotDir(t), "package-downloads-phone")

	b.open(env.URL + "/")
	if got := b.text(".package-list .downloads"); got != "7 downloads" {
		t.Errorf("the list says %q, want 7 downloads", got)
	}
}
