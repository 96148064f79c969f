package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pact-registry/pact/server/render"
)

// table is a GFM table of cols columns: a header, the delimiter row and
// rows body rows of one cell each, which GFM pads to the header's width.
func table(cols, rows int) string {
	var b strings.Builder
	for i := range cols {
		fmt.Fprintf(&b, "| h%d ", i)
	}
	b.WriteString("|\n" + strings.Repeat("|---", cols) + "|\n")
	for i := range rows {
		fmt.Fprintf(&b, "| r%d |\n", i)
	}
	return b.String()
}

const fallbackNote = `<p class="render-note" role="note"><strong>Shown as plain text:</strong>`

func TestRenderingCaps(t *testing.T) {
	longURL := "https://example.com/" + strings.Repeat("x", 400<<10)
	cases := []struct {
		name     string
		src      string
		fallback string // the note's reason, or "" when the document renders
	}{
		{"small table", "# T\n\n" + table(3, 2), ""},
		{"table at the column cap", table(render.MaxTableColumns, 3), ""},
		{"table over the column cap", table(render.MaxTableColumns+1, 3), fmt.Sprintf("a table has %d columns", render.MaxTableColumns+1)},
		{"2,000 columns by 2,000 rows", table(2000, 2000), "a table has 2000 columns"},
		{"4,000 columns by 4,000 rows", table(4000, 4000), "a table has 4000 columns"},
		{"tables at the cell cap", table(100, render.MaxTableCells/100/2-1) + "\n" + table(100, render.MaxTableCells/100/2-1), ""},
		{"tables over the cell cap together", table(100, render.MaxTableCells/100/2) + "\n" + table(100, render.MaxTableCells/100/2), "more than the 200000 cells"},
		{"a reference link repeated past the output cap", "[a]: " + longURL + "\n\n" + strings.Repeat("[a] ", 100), "more than 8 MiB of HTML"},
		{"block quotes nested at the cap", strings.Repeat("> ", render.MaxNesting) + "deep\n", ""},
		{"lists and quotes nested at the cap", strings.Repeat("- > 1. ", render.MaxNesting/3) + "deep\n", ""},
		{"a thematic break of many stars", strings.Repeat("* ", 200) + "\n\ntext\n", ""},
		{"a megabyte of nested block quotes", strings.Repeat(">", 1<<20), "a line nests 1048576 block quotes or list items"},
		{"a megabyte of nested list items", strings.Repeat("* ", 1<<19) + "x", "a line nests 524288 block quotes or list items"},
		{"nested ordered lists and quotes", strings.Repeat("1. > ", 1000) + "x", "a line nests 2000 block quotes"},
		{"a reference link repeated below the output cap", "[a]: " + longURL + "\n\n" + strings.Repeat("[a] ", 10), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := string(render.Markdown([]byte(tc.src)))
			assertInert(t, out)
			if tc.fallback == "" {
				if strings.Contains(out, fallbackNote) {
					t.Fatalf("an ordinary document fell back to text: %.300s", out)
				}
				if strings.Contains(tc.src, "|---") && !strings.Contains(out, "<table>") {
					t.Errorf("the table was not rendered as one: %.300s", out)
				}
				return
			}
			if !strings.HasPrefix(out, fallbackNote) || !strings.Contains(out, tc.fallback) {
				t.Fatalf("want the fallback note saying %q, got: %.300s", tc.fallback, out)
			}
			if strings.Contains(out, "<table") || strings.Contains(out, "<a ") {
				t.Errorf("the fallback holds rendered markup: %.300s", out)
			}
			// The whole document is there, as text.
			if got := text(t, out); !strings.Contains(got, tc.src) {
				t.Errorf("the fallback does not show the document's text (%d of %d bytes)", len(got), len(tc.src))
			}
			if len(out) > 5*len(tc.src)+1024 { // &#34; is the longest escape
				t.Errorf("the fallback is %d bytes for a %d-byte document", len(out), len(tc.src))
			}
		})
	}
}

func TestFallbackEscapesTheDocument(t *testing.T) {
	src := "<script>alert(1)</script>\n<img src=x onerror=alert(2)>\n\n" + table(render.MaxTableColumns+1, 1)
	out := string(render.Markdown([]byte(src)))
	if !strings.HasPrefix(out, fallbackNote) {
		t.Fatalf("no fallback: %.300s", out)
	}
	assertInert(t, out)
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the script is not shown escaped: %.300s", out)
	}
}

func TestHighlightingIsBoundedPerDocument(t *testing.T) {
	block := "```yaml\n" + strings.Repeat("key: value\n", (render.MaxHighlightBytes/2)/11) + "```\n\n"
	out := string(render.Markdown([]byte(block + block + block)))
	if n := strings.Count(out, `<pre class="chroma"`); n != 2 {
		t.Errorf("%d of 3 blocks of %d bytes each highlighted, want the 2 that fit in %d bytes", n, len(block), render.MaxHighlightBytes)
	}
	if n := strings.Count(out, `<pre><code class="language-yaml">`); n != 1 {
		t.Errorf("%d blocks shown plain, want 1", n)
	}
}

// Text a reader cannot see on the page must not be in the document: raw
// HTML and comments are shown as text, everything after them still shows.
func TestRawHTMLIsShownAsText(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		visible []string // in the text a reader sees
	}{
		{"comment", "before\n\n<!-- hidden instruction -->\n\nafter", []string{"<!-- hidden instruction -->", "before", "after"}},
		{"inline comment", "before <!-- hidden inline --> after", []string{"<!-- hidden inline -->", "before", "after"}},
		{"unclosed script", "# Top\n\n<script>\nsecret = 1\n\n## Later heading\n\nLater *prose*.\n",
			[]string{"<script>", "secret = 1", "## Later heading", "Later *prose*."}},
		{"closed script", "<script>steal()</script>\n\nafter", []string{"<script>steal()</script>", "after"}},
		{"div block", "<div hidden>\ninvisible words\n</div>\n\nafter", []string{"<div hidden>", "invisible words", "</div>", "after"}},
		{"style hiding text", `<span style="display:none">tiny print</span> visible`, []string{`<span style="display:none">`, "tiny print", "visible"}},
		{"template", "<template>\nnever shown\n</template>\n", []string{"<template>", "never shown"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := string(render.Markdown([]byte(tc.src)))
			assertInert(t, out)
			seen := text(t, out)
			for _, v := range tc.visible {
				if !strings.Contains(seen, v) {
					t.Errorf("a reader does not see %q; the page's text:\n%s\nHTML:\n%s", v, seen, out)
				}
			}
			if m := markup(t, out); strings.Contains(m, "<div") || strings.Contains(m, "<span") || strings.Contains(m, "hidden") {
				t.Errorf("raw HTML became markup: %s", m)
			}
		})
	}
}
