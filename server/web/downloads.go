package web

import (
	"strconv"

	"github.com/pact-registry/pact/server/registry"
)

// The package page's chart of downloads (docs/protocol.md, Download
// counts): inline SVG bars, one a day for the last 90 days, drawn by the
// server; no script.

// Chart geometry, in the SVG's own units: the chart scales to its box.
const (
	chartBarWidth  = 2
	chartBarStep   = 3
	chartHeight    = 40
	chartMinHeight = 1 // a day with any download shows
)

type downloadsChart struct {
	Total, Recent int64 // every download; those of the days charted
	Width, Height int
	Bars          []chartBar
}

type chartBar struct {
	X, Y, Width, Height int
	Date                string
	Count               int64
}

func newDownloadsChart(d *registry.Downloads) *downloadsChart {
	c := &downloadsChart{Total: d.Total, Width: len(d.Days) * chartBarStep, Height: chartHeight,
		Bars: make([]chartBar, len(d.Days))}
	var most int64
	for _, day := range d.Days {
		c.Recent += day.Count
		most = max(most, day.Count)
	}
	for i, day := range d.Days {
		h := 0
		if day.Count > 0 {
			h = max(chartMinHeight, int(day.Count*chartHeight/most))
		}
		c.Bars[i] = chartBar{X: i * chartBarStep, Y: chartHeight - h, Width: chartBarWidth, Height: h,
			Date: day.Day.String(), Count: day.Count}
	}
	return c
}

// countOf is n things: "1 download", "1,234 downloads".
func countOf(n int64, one, many string) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n == 1 {
		return s + " " + one
	}
	return s + " " + many
}
