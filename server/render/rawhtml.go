package render

import (
	"html/template"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// rawHTMLRenderer shows the HTML written in a document as text instead of
// passing it to the browser. Pack documents are read by people and by
// programs alike, and a page must not hide what the raw file holds: a
// comment, a dropped <script> or an unclosed one would otherwise make text
// vanish from the page that a program reading the file still obeys.
type rawHTMLRenderer struct{}

// rawHTMLTitle is the tooltip of HTML shown as text.
const rawHTMLTitle = "HTML in the document, shown as text"

func (rawHTMLRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
}

func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.HTMLBlock)
	_, _ = w.WriteString(`<pre title="` + rawHTMLTitle + `"><code class="language-html">`)
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		template.HTMLEscape(w, seg.Value(source))
	}
	if n.HasClosure() {
		template.HTMLEscape(w, n.ClosureLine.Value(source))
	}
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	_, _ = w.WriteString(`<code class="language-html" title="` + rawHTMLTitle + `">`)
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		template.HTMLEscape(w, seg.Value(source))
	}
	_, _ = w.WriteString("</code>")
	return ast.WalkSkipChildren, nil
}
