// Package render turns pack documents, which are untrusted markdown, into
// HTML that is safe to put in a page: goldmark renders it (GFM tables, task
// lists, autolinks, strikethrough; code blocks highlighted by chroma with CSS
// classes, never inline styles), then bluemonday keeps only an allow-list of
// elements and attributes, so scripts, event handlers, javascript: and data:
// URLs, iframes, forms and style attributes never reach the browser.
package render

import (
	"bytes"
	"crypto/sha256"
	"html/template"
	"regexp"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// MaxHighlightBytes is the largest code block that is highlighted; larger
// ones are shown plain, so a hostile document cannot make every page view
// run the lexers' regular expressions over a megabyte.
const MaxHighlightBytes = 64 << 10

// highlightStyle is the chroma style whose colours HighlightCSS emits.
const highlightStyle = "github"

var (
	// Raw HTML is let through goldmark on purpose: the sanitiser below is
	// the one gate, and it keeps harmless markup such as <details> or <kbd>.
	markdown = goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(
			html.WithUnsafe(),
			renderer.WithNodeRenderers(util.Prioritized(codeBlockRenderer{}, 100)),
		),
	)
	policy = newPolicy()
)

// Markdown renders a markdown document to sanitised HTML.
func Markdown(src []byte) template.HTML {
	var buf bytes.Buffer
	if err := markdown.Convert(src, &buf); err != nil {
		// Convert fails only when writing fails, which a buffer never does;
		// show the text rather than nothing if it ever happens.
		return template.HTML("<pre>" + template.HTMLEscapeString(string(src)) + "</pre>")
	}
	return template.HTML(policy.SanitizeBytes(buf.Bytes()))
}

// Cache remembers rendered documents by the SHA-256 of their text:
// published versions never change, so a popular page is rendered once.
type Cache struct {
	mu      sync.Mutex
	max     int
	entries map[[sha256.Size]byte]template.HTML
}

// NewCache returns a cache that holds at most max documents.
func NewCache(max int) *Cache {
	return &Cache{max: max, entries: make(map[[sha256.Size]byte]template.HTML)}
}

// Markdown is render.Markdown through the cache.
func (c *Cache) Markdown(src []byte) template.HTML {
	key := sha256.Sum256(src)
	c.mu.Lock()
	out, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return out
	}
	out = Markdown(src)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		// Forget an arbitrary entry: cheap, and good enough for a cache
		// whose misses cost one render.
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = out
	return out
}

// HighlightCSS is the stylesheet for the classes of highlighted code.
func HighlightCSS() []byte {
	var buf bytes.Buffer
	if err := chromahtml.New(chromahtml.WithClasses(true)).WriteCSS(&buf, styles.Get(highlightStyle)); err != nil {
		return nil
	}
	return buf.Bytes()
}

var languagePattern = regexp.MustCompile(`^[A-Za-z0-9+#._-]{1,32}$`)

// codeBlockRenderer renders fenced code blocks with chroma. Blocks without
// a known language, or too large, are rendered plain.
type codeBlockRenderer struct{}

func (codeBlockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
}

func renderFencedCode(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
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
	if language != "" && code.Len() <= MaxHighlightBytes {
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
	p.AllowImages() // img-src in the CSP keeps them to this site anyway

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
