package render

import (
	"html/template"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// imageSource is what an image's src may be: an https URL, or a path on
// this site. No http (it would be mixed content, and readable on the way),
// no data:, no javascript:, no protocol-relative //host.
var imageSource = regexp.MustCompile(`^(https://[^\s]+|/[^/\s][^\s]*|/)$`)

// imageRenderer writes a markdown image so that it tells its host no more
// than needed (docs/design.md, Images in documents): the browser fetches it
// only when it scrolls near (loading=lazy) and sends no Referer naming the
// page that shows it (referrerpolicy=no-referrer). An image whose address
// is not https or a path on this site is shown as a link to it instead,
// with its alt text, so a reader sees it exists and fetches it only by
// choice; the sanitiser still drops javascript: and data: links.
type imageRenderer struct{}

func (imageRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindImage, renderImage)
}

func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.Image)
	dest := string(util.URLEscape(n.Destination, true))
	alt := altText(n, source)
	if !imageSource.MatchString(dest) || strings.HasPrefix(dest, "//") {
		label := alt
		if label == "" {
			label = "image"
		}
		_, _ = w.WriteString(`<a href="` + template.HTMLEscapeString(dest) + `">` + template.HTMLEscapeString(label) + `</a>`)
		return ast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString(`<img src="` + template.HTMLEscapeString(dest) + `" alt="` + template.HTMLEscapeString(alt) + `"`)
	if n.Title != nil {
		_, _ = w.WriteString(` title="` + template.HTMLEscapeString(string(n.Title)) + `"`)
	}
	_, _ = w.WriteString(` loading="lazy" decoding="async" referrerpolicy="no-referrer">`)
	return ast.WalkSkipChildren, nil
}

// altText is the plain text of an image's description.
func altText(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Value(source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
