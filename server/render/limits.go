package render

import (
	"bytes"
	"fmt"
	"html/template"
	"regexp"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Rendering is bounded because one anonymous page view must not cost more
// than the page is worth. GFM pads every table row to the header's width,
// so a few kilobytes of pipes can ask for millions of cells; link
// references can repeat one long URL thousands of times. The caps below sit
// far above what a legitimate document (at most 1 MiB) produces, and are
// checked while the document is parsed and rendered, never on a finished
// result. A document that hits one is shown as escaped text with a note.
const (
	// MaxTableColumns is the widest table a page shows.
	MaxTableColumns = 128
	// MaxTableCells is the number of table cells, padded ones included,
	// that a page shows across all its tables.
	MaxTableCells = 200_000
	// MaxOutputBytes is the most HTML one document may render to.
	MaxOutputBytes = 8 << 20
	// MaxNesting is the most block quotes and list items one line may
	// open ("> > - 1. x"): goldmark's work grows with the square of it.
	// Publishing refuses deeper nesting already (pkg/packfmt); this keeps
	// documents stored before that rule, and any other caller, bounded.
	MaxNesting = 100
)

// limitError says which cap a document hit, in words for the page.
type limitError struct{ reason string }

func (e *limitError) Error() string { return e.reason }

var errOutputTooLarge = &limitError{fmt.Sprintf("it would render to more than %d MiB of HTML", MaxOutputBytes>>20)}

// fallback shows a document that hit a cap as what it is: its text,
// escaped, under a note that says why it is not rendered.
func fallback(src []byte, cause error) template.HTML {
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/8 + 256)
	b.WriteString(`<p class="render-note" role="note"><strong>Shown as plain text:</strong> `)
	template.HTMLEscape(&b, []byte(cause.Error()))
	b.WriteString(`. The document is unchanged; this page shows it without formatting.</p>` + "\n")
	b.WriteString(`<pre class="render-fallback"><code>`)
	template.HTMLEscape(&b, bytes.ToValidUTF8(src, []byte(string(utf8.RuneError))))
	b.WriteString("</code></pre>\n")
	return template.HTML(b.String())
}

// nestingLimit returns the cap hit by a line of src that opens more than
// MaxNesting containers, or nil. It reads every line once, before parsing.
func nestingLimit(src []byte) error {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if depth := lineNesting(line); depth > MaxNesting {
			return &limitError{fmt.Sprintf("a line nests %d block quotes or list items, more than the %d a page shows", depth, MaxNesting)}
		}
	}
	return nil
}

// lineNesting counts the container markers that start line: ">", a bullet
// ("-", "+", "*") or an ordered item ("1." or "1)") followed by a space.
// A thematic break such as "* * *" opens nothing and counts 0.
func lineNesting(line []byte) int {
	if isThematicBreak(line) {
		return 0
	}
	depth := 0
	for i := 0; ; {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		switch {
		case i < len(line) && line[i] == '>':
			i++
		case i+1 < len(line) && (line[i] == '-' || line[i] == '+' || line[i] == '*') && (line[i+1] == ' ' || line[i+1] == '\t'):
			i += 2
		default:
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j == i || j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return depth
			}
			i = j + 2
		}
		depth++
	}
}

func isThematicBreak(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) < 3 || (line[0] != '-' && line[0] != '*' && line[0] != '_') {
		return false
	}
	for _, c := range line {
		if c != line[0] && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

var (
	tableCellsKey = parser.NewContextKey()
	limitKey      = parser.NewContextKey()
	tables        = extension.NewTableParagraphTransformer()
)

// parseLimit is the cap a parse hit, or nil.
func parseLimit(pc parser.Context) error {
	if err, ok := pc.Get(limitKey).(error); ok {
		return err
	}
	return nil
}

type tableGuard struct{}

// Transform finds the delimiter row the way goldmark's table transformer
// does: the table it would build has that row's number of columns, and
// one row for the header and for each line after the delimiter.
func (tableGuard) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	if parseLimit(pc) != nil {
		return // the document is shown as text anyway
	}
	lines := node.Lines()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		columns := delimiterColumns(seg.Value(reader.Source()))
		if columns == 0 {
			continue
		}
		if columns > MaxTableColumns {
			pc.Set(limitKey, &limitError{fmt.Sprintf("a table has %d columns, more than the %d a page shows", columns, MaxTableColumns)})
			return
		}
		cells, _ := pc.Get(tableCellsKey).(int)
		cells += columns * (lines.Len() - i)
		if cells > MaxTableCells {
			pc.Set(limitKey, &limitError{fmt.Sprintf("its tables have more than the %d cells a page shows", MaxTableCells)})
			return
		}
		pc.Set(tableCellsKey, cells)
		break
	}
	tables.Transform(node, reader, pc)
}

var (
	tableDelimiterCell = regexp.MustCompile(`^\s*:?-+:?\s*$`)
	tableDelimiterLine = regexp.MustCompile(`^[ \t|:-]*$`)
)

// delimiterColumns is the number of columns a GFM delimiter row such as
// "|---|:-:|" declares, or 0 when line is not one.
func delimiterColumns(line []byte) int {
	line = bytes.TrimRight(line, "\r\n")
	if w, _ := util.IndentWidth(line, 0); w > 3 || !tableDelimiterLine.Match(line) || !bytes.ContainsAny(line, "|:") {
		return 0
	}
	cols := bytes.Split(line, []byte{'|'})
	if util.IsBlank(cols[0]) {
		cols = cols[1:]
	}
	if len(cols) > 0 && util.IsBlank(cols[len(cols)-1]) {
		cols = cols[:len(cols)-1]
	}
	for _, c := range cols {
		if !tableDelimiterCell.Match(c) {
			return 0
		}
	}
	return len(cols)
}

// cappedWriter is the buffer goldmark renders into. Once a document has
// written MaxOutputBytes it accepts nothing more, so a hostile document
// costs at most that much memory; the caller then shows the fallback.
type cappedWriter struct {
	buf         bytes.Buffer
	max         int
	err         error
	highlighted int // bytes of code highlighted so far
}

// takeHighlightBudget reports whether n more bytes of code may be
// highlighted in the document w renders, and counts them if so.
func takeHighlightBudget(w util.BufWriter, n int) bool {
	cw, ok := w.(*cappedWriter)
	if !ok {
		return n <= MaxHighlightBytes
	}
	if cw.highlighted+n > MaxHighlightBytes {
		return false
	}
	cw.highlighted += n
	return true
}

func (w *cappedWriter) room(n int) bool {
	if w.err != nil {
		return false
	}
	if w.buf.Len()+n > w.max {
		w.err = errOutputTooLarge
		return false
	}
	return true
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	if !w.room(len(p)) {
		return 0, w.err
	}
	return w.buf.Write(p)
}

func (w *cappedWriter) WriteString(s string) (int, error) {
	if !w.room(len(s)) {
		return 0, w.err
	}
	return w.buf.WriteString(s)
}

func (w *cappedWriter) WriteByte(c byte) error {
	if !w.room(1) {
		return w.err
	}
	return w.buf.WriteByte(c)
}

func (w *cappedWriter) WriteRune(r rune) (int, error) {
	if !w.room(utf8.RuneLen(r)) {
		return 0, w.err
	}
	return w.buf.WriteRune(r)
}

func (w *cappedWriter) Available() int { return max(w.max-w.buf.Len(), 0) }
func (w *cappedWriter) Buffered() int  { return 0 }
func (w *cappedWriter) Flush() error   { return w.err }

// exhausted reports whether w writes nothing more, so renderers can skip
// work whose output would be thrown away.
func exhausted(w util.BufWriter) bool {
	cw, ok := w.(*cappedWriter)
	return ok && cw.err != nil
}

// guarded wraps a node renderer so that rendering stops at the first node
// after the output cap is hit. Capping the writes alone is not enough:
// a link renders its destination, which a reference definition can make
// half a megabyte long, before writing it, once per use of the reference.
func guarded(nr renderer.NodeRenderer, priority int) util.PrioritizedValue {
	return util.Prioritized(guardedRenderer{nr}, priority)
}

type guardedRenderer struct{ renderer.NodeRenderer }

func (g guardedRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	g.NodeRenderer.RegisterFuncs(guardingRegisterer{reg})
}

// SetOption passes goldmark's renderer options on to the wrapped renderer.
func (g guardedRenderer) SetOption(name renderer.OptionName, value any) {
	if so, ok := g.NodeRenderer.(renderer.SetOptioner); ok {
		so.SetOption(name, value)
	}
}

type guardingRegisterer struct {
	renderer.NodeRendererFuncRegisterer
}

func (r guardingRegisterer) Register(kind ast.NodeKind, f renderer.NodeRendererFunc) {
	r.NodeRendererFuncRegisterer.Register(kind, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if exhausted(w) {
			return ast.WalkStop, errOutputTooLarge
		}
		return f(w, source, n, entering)
	})
}
