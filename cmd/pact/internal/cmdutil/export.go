package cmdutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

// ExportJSON is the one way pact prints data for scripts (--json): indented
// JSON with the field names of the REST interface.
func ExportJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(text.EscapeJSON(buf.Bytes()))
	return err
}

// WriteRow writes one row of a table. Every cell goes through text.Safe, so
// no value can add a column, a line or an escape sequence.
func WriteRow(w io.Writer, cells ...string) {
	for i, cell := range cells {
		cells[i] = text.Safe(cell)
	}
	fmt.Fprintln(w, strings.Join(cells, "\t"))
}

// NewTable aligns columns for people reading a terminal.
func NewTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}
