// Package render turns pack documents, which are untrusted markdown, into
// HTML that is safe to put in a page: goldmark renders it (GFM tables, task
// lists, autolinks, strikethrough; code blocks highlighted by chroma with CSS
// classes, never inline styles), then bluemonday keeps only an allow-list of
// elements and attributes, so scripts, event handlers, javascript: and data:
// URLs, iframes, forms and style attributes never reach the browser.
package render

import (
	"bytes"
	"html/template"
	"regexp"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// MaxHighlightBytes is how much code of one document is highlighted: the
// blocks that fit in it, in order; the others are shown plain. Highlighting
// costs microseconds and tens of output bytes per input byte, so a hostile
// document cannot make a page view run the lexers over a megabyte.
const MaxHighlightBytes = 64 << 10

// highlightStyle is the chroma style whose colours HighlightCSS emits.
const highlightStyle = "github"

var (
	// GFM spelled out rather than added as goldmark's extension, so that
	// tables are bounded (tableGuard) and every node renderer stops at the
	// output cap (guarded). Raw HTML never reaches the browser as markup:
	// it is shown as text (rawHTMLRenderer). The sanitiser stays as a
	// second gate behind goldmark's own.
	markdown = goldmark.New(
		goldmark.WithParserOptions(
			parser.WithInlineParsers(
				util.Prioritized(extension.NewLinkifyParser(), 999),
				util.Prioritized(extension.NewStrikethroughParser(), 500),
				util.Prioritized(extension.NewTaskCheckBoxParser(), 0),
			),
			parser.WithParagraphTransformers(util.Prioritized(tableGuard{}, 200)),
			parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
		),
		goldmark.WithRenderer(renderer.NewRenderer(renderer.WithNodeRenderers(
			guarded(html.NewRenderer(), 1000),
			// Column alignment as the align attribute: the CSP forbids
			// style attributes, which goldmark would write otherwise.
			guarded(extension.NewTableHTMLRenderer(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)), 500),
			guarded(extension.NewStrikethroughHTMLRenderer(), 500),
			guarded(extension.NewTaskCheckBoxHTMLRenderer(), 500),
			guarded(codeBlockRenderer{}, 100),
			guarded(rawHTMLRenderer{}, 100),
			guarded(imageRenderer{}, 100),
		))),
	)
	policy = newPolicy()
)

// Markdown renders a markdown document to sanitised HTML. A document over
// one of the caps (MaxNesting, MaxTableColumns, MaxTableCells,
// MaxOutputBytes) is
// shown as escaped text under a note that names the cap.
func Markdown(src []byte) template.HTML {
	if err := nestingLimit(src); err != nil {
		return fallback(src, err)
	}
	pc := parser.NewContext()
	doc := markdown.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	if err := parseLimit(pc); err != nil {
		return fallback(src, err)
	}
	w := &cappedWriter{max: MaxOutputBytes}
	err := markdown.Renderer().Render(w, src, doc)
	switch {
	case w.err != nil:
		return fallback(src, w.err)
	case err != nil:
		// Rendering into memory fails only on a cap; show the text rather
		// than nothing if anything else ever happens.
		return fallback(src, &limitError{"it could not be rendered"})
	}
	return template.HTML(policy.SanitizeBytes(w.buf.Bytes()))
}

// highlightDarkStyle is the style HighlightCSS uses for a dark colour
// scheme.
const highlightDarkStyle = "github-dark"

// HighlightCSS is the stylesheet for the classes of highlighted code: the
// light style, and the dark one for browsers that prefer a dark scheme.
func HighlightCSS() []byte {
	var buf bytes.Buffer
	formatter := chromahtml.New(chromahtml.WithClasses(true))
	if err := formatter.WriteCSS(&buf, styles.Get(highlightStyle)); err != nil {
		return nil
	}
	buf.WriteString("@media (prefers-color-scheme: dark) {\n")
	if err := formatter.WriteCSS(&buf, styles.Get(highlightDarkStyle)); err != nil {
		return nil
	}
	buf.WriteString("}\n")
	return buf.Bytes()
}

var languagePattern = regexp.MustCompile(`^[A-Za-z0-9+#._-]{1,32}$`)

// codeBlockRenderer renders fenced code blocks with chroma. Blocks without
// a known language, or past the document's MaxHighlightBytes, are rendered
// plain.
type codeBlockRenderer struct{}

func (codeBlockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
}

func renderFencedCode(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if exhausted(w) {
		return ast.WalkSkipChildren, nil
	}
	block := node.(*ast.FencedCodeBlock)
	var code bytes.Buffer
	lines := block.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		code.Write(seg.Value(source))
	}
	language := string(block.Language(source))
	if !languagePattern.MatchString(language) {
		language = ""
	}
	if language != "" && takeHighlightBudget(w, code.Len()) {
		if lexer := lexers.Get(language); lexer != nil {
			if err := highlight(w, lexer, language, code.String()); err == nil {
				return ast.WalkSkipChildren, nil
			}
		}
	}
	_, _ = w.WriteString("<pre><code")
	if language != "" {
		_, _ = w.WriteString(` class="language-` + language + `"`)
	}
	_, _ = w.WriteString(">")
	_, _ = w.WriteString(template.HTMLEscapeString(code.String()))
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

func highlight(w util.BufWriter, lexer chroma.Lexer, language, code string) error {
	tokens, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	formatter := chromahtml.New(chromahtml.WithClasses(true), chromahtml.WithPreWrapper(preWrapper{language}))
	if err := formatter.Format(&buf, styles.Get(highlightStyle), tokens); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// preWrapper wraps highlighted code as <pre class="chroma"><code
// class="language-x">, the shape the sanitiser lets through.
type preWrapper struct{ language string }

func (p preWrapper) Start(code bool, _ string) string {
	if !code {
		return `<pre class="chroma" tabindex="0">`
	}
	return `<pre class="chroma" tabindex="0"><code class="language-` + p.language + `">`
}

func (p preWrapper) End(code bool) string {
	if !code {
		return "</pre>\n"
	}
	return "</code></pre>\n"
}

// newPolicy is an allow-list for user documents. It is bluemonday's UGC
// policy without "id" (user ids could shadow the page's own elements), with
// chroma's classes on code and with the disabled checkboxes of task lists.
func newPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowAttrs("dir").Matching(bluemonday.Direction).Globally()
	p.AllowAttrs("lang").Matching(regexp.MustCompile(`^[a-zA-Z]{2,20}(-[a-zA-Z0-9]{1,8})*$`)).Globally()
	p.AllowAttrs("title").Matching(bluemonday.Paragraph).Globally()

	// Only http, https, mailto and relative URLs: no javascript:, no data:.
	p.AllowStandardURLs()
	p.RequireNoReferrerOnFullyQualifiedLinks(true)

	p.AllowElements("article", "aside", "figure", "figcaption", "section", "summary", "hgroup",
		"h1", "h2", "h3", "h4", "h5", "h6", "br", "div", "hr", "p", "span", "wbr",
		"abbr", "cite", "code", "dfn", "em", "kbd", "mark", "s", "samp", "strong", "sub", "sup", "var",
		"b", "i", "pre", "small", "strike", "u", "del", "ins", "rp", "rt", "ruby")
	p.AllowAttrs("open").Matching(regexp.MustCompile(`(?i)^(|open)$`)).OnElements("details")
	p.AllowElements("details")
	p.AllowAttrs("cite").OnElements("blockquote", "q")
	p.AllowElements("blockquote", "q")
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("datetime").Matching(bluemonday.ISO8601).OnElements("time", "del", "ins")
	p.AllowLists()
	p.AllowTables()
	// Images: https or relative only, each fetched lazily and without a
	// Referer (imageRenderer; docs/design.md, Images in documents).
	p.AllowAttrs("alt").Matching(bluemonday.Paragraph).OnElements("img")
	p.AllowAttrs("src").Matching(imageSource).OnElements("img")
	p.AllowAttrs("loading").Matching(regexp.MustCompile(`^lazy$`)).OnElements("img")
	p.AllowAttrs("referrerpolicy").Matching(regexp.MustCompile(`^no-referrer$`)).OnElements("img")
	p.AllowAttrs("decoding").Matching(regexp.MustCompile(`^async$`)).OnElements("img")
	p.AllowElements("img")

	// Highlighted code: chroma's token classes, one per span.
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^chroma$`)).OnElements("pre")
	p.AllowAttrs("tabindex").Matching(regexp.MustCompile(`^0$`)).OnElements("pre")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[A-Za-z0-9+#._-]{1,32}$`)).OnElements("code")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^(line|cl|[a-z][a-z0-9]{0,3})$`)).OnElements("span")

	// Task lists: goldmark renders <input checked="" disabled="" type="checkbox">.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^$|^(checked|disabled)$`)).OnElements("input")
	return p
}
