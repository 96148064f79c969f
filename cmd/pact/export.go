package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// exportJSON is the one way pact prints data for scripts (--json): indented
// JSON with the field names of the REST interface.
func exportJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONText(buf.Bytes()))
	return err
}

// plural counts things in words: "1 entry", "3 entries", "0 packages".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// pluralText is plural for a count given as text (a field of a log entry);
// text that is not a number is kept as it is.
func pluralText(n, one, many string) string {
	if count, err := strconv.ParseInt(n, 10, 64); err == nil {
		return plural(count, one, many)
	}
	return n + " " + many
}

// writeRow writes one row of a table. Every cell goes through safeText, so
// no value can add a column, a line or an escape sequence.
func writeRow(w io.Writer, cells ...string) {
	for i, cell := range cells {
		cells[i] = safeText(cell)
	}
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}

// newTable aligns columns for people reading a terminal.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// formatTime prints a timestamp compactly, in UTC.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}
