package render_test

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/pact-registry/pact/server/render"
)

func TestMarkdownFeatures(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string
	}{
		{"heading and prose", "# Title\n\nSome *prose*.", []string{"<h1>Title</h1>", "<em>prose</em>"}},
		{"GFM table", "| a | b |\n|---|---|\n| 1 | 2 |\n", []string{"<table>", "<th>a</th>", "<td>2</td>"}},
		{"task list", "- [x] done\n- [ ] todo\n", []string{`<input checked="" disabled="" type="checkbox"> done`, `<input disabled="" type="checkbox"> todo`}},
		{"autolink", "see https://example.com/x now", []string{`<a href="https://example.com/x" rel="nofollow noreferrer">https://example.com/x</a>`}},
		{"strikethrough", "~~gone~~", []string{"<del>gone</del>"}},
		{"highlighted yaml with classes, no inline style", "```yaml pact:pack\nname: demo\n```\n",
			[]string{`<pre class="chroma" tabindex="0"><code class="language-yaml">`, `<span class="nt">name</span>`}},
		{"unknown language stays plain and escaped", "```nosuchlang\n<b>bold?</b>\n```\n",
			[]string{`<pre><code class="language-nosuchlang">&lt;b&gt;bold?&lt;/b&gt;`}},
		{"raw HTML block shown as text", "<details><summary>More</summary>text</details>",
			[]string{`<code class="language-html">&lt;details&gt;&lt;summary&gt;More&lt;/summary&gt;text&lt;/details&gt;`}},
		{"relative link kept", "[docs](/docs)", []string{`<a href="/docs" rel="nofollow">docs</a>`}},
		{"column alignment as an attribute", "| a | n |\n|:-:|--:|\n| x | 12 |\n",
			[]string{`<th align="center">a</th>`, `<th align="right">n</th>`, `<td align="right">12</td>`}},
		{"https image: lazy, no referrer", `![a *red* box](https://img.example/box.png "Box")`,
			[]string{`<img src="https://img.example/box.png" alt="a red box" title="Box" loading="lazy" decoding="async" referrerpolicy="no-referrer">`}},
		{"image on this site", "![logo](/static/favicon.svg)",
			[]string{`<img src="/static/favicon.svg" alt="logo" loading="lazy" decoding="async" referrerpolicy="no-referrer">`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := string(render.Markdown([]byte(tc.src)))
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			assertInert(t, out)
		})
	}
}

func TestMarkdownMakesHostileInputInert(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		gone    []string // must not appear in the output, case-insensitively
		keepTxt string   // visible text that must survive, if any
	}{
		{"script tag", "hello\n\n<script>window.pwned = true</script>\n", []string{"<script", "window.pwned = true</script"}, "hello"},
		{"script inside inline HTML", "x <script>alert(1)</script> y", []string{"<script"}, "y"},
		{"img onerror", `<img src="x" onerror="alert(1)">`, []string{"onerror"}, ""},
		{"svg onload", `<svg onload="alert(1)"><circle r="1"/></svg>`, []string{"<svg", "onload"}, ""},
		{"event handler on allowed element", `<p onclick="alert(1)" onmouseover="alert(2)">click</p>`, []string{"onclick", "onmouseover"}, "click"},
		{"markdown javascript link", "[click](javascript:alert(1))", []string{"javascript:"}, "click"},
		{"mixed-case javascript href", `<a href="JaVaScRiPt:alert(1)">x</a>`, []string{"javascript:"}, "x"},
		{"entity-encoded javascript href", `<a href="&#106;avascript:alert(1)">x</a>`, []string{"javascript:", "&#106;avascript"}, "x"},
		{"javascript with leading space", `<a href=" javascript:alert(1)">x</a>`, []string{"javascript:"}, "x"},
		{"vbscript href", `<a href="vbscript:msgbox(1)">x</a>`, []string{"vbscript:"}, "x"},
		{"data URL link", `[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`, []string{"data:text/html"}, "d"},
		{"data URL image", `<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=">`, []string{"data:image"}, ""},
		{"markdown data image", `![x](data:image/png;base64,AAAA)`, []string{"data:image"}, ""},
		{"iframe", `<iframe src="https://evil.example/"></iframe>`, []string{"<iframe"}, ""},
		{"object and embed", `<object data="x.swf"></object><embed src="x.swf">`, []string{"<object", "<embed"}, ""},
		{"style attribute", `<p style="position:fixed;top:0">over</p>`, []string{"style="}, "over"},
		{"style element", "<style>body{display:none}</style>\n\ntext", []string{"<style", "display:none"}, "text"},
		{"form and button", `<form action="/logout" method="post"><button>go</button></form>`, []string{"<form", "<button"}, "go"},
		{"text input", `<input type="text" name="q" value="x">`, []string{`type="text"`, "name="}, ""},
		{"meta refresh", `<meta http-equiv="refresh" content="0;url=https://evil.example">`, []string{"<meta", "refresh"}, ""},
		{"base tag", `<base href="https://evil.example/">`, []string{"<base"}, ""},
		{"link stylesheet", `<link rel="stylesheet" href="https://evil.example/x.css">`, []string{"<link"}, ""},
		{"id that would shadow the page", `<p id="install">x</p>`, []string{"id="}, "x"},
		{"class that would borrow page styles", `<p class="site-header">x</p>`, []string{"site-header"}, "x"},
		{"spoofed chroma class on a div", `<div class="chroma">x</div>`, []string{`<div class=`, `class="chroma"`}, "x"},
		{"code language injection", "```yaml\" onmouseover=\"alert(1)\nx: 1\n```\n", []string{"onmouseover"}, ""},
		{"unclosed script", `<script>alert(1)`, []string{"<script"}, ""},
		{"noscript smuggling", `<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`, []string{"onerror"}, ""},
		{"template element", `<template><script>alert(1)</script></template>`, []string{"<template", "<script"}, ""},
		{"math and mglyph mutation", `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`, []string{"onerror", "<style"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := string(render.Markdown([]byte(tc.src)))
			// Raw HTML is shown as text, so "<script" may be read on the
			// page as "&lt;script": what must be gone is the markup.
			lower := strings.ToLower(markup(t, out))
			for _, g := range tc.gone {
				if strings.Contains(lower, strings.ToLower(g)) {
					t.Errorf("markup still holds %q:\n%s", g, out)
				}
			}
			if tc.keepTxt != "" && !strings.Contains(out, tc.keepTxt) {
				t.Errorf("visible text %q was lost:\n%s", tc.keepTxt, out)
			}
			assertInert(t, out)
		})
	}
}

// walkHTML parses out as a browser would parse a fragment of a page and
// calls visit on every node, depth first.
func walkHTML(t *testing.T, out string, visit func(n *html.Node)) {
	t.Helper()
	nodes, err := html.ParseFragment(strings.NewReader(out), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		t.Fatalf("output does not parse: %v", err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		visit(n)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
}

// markup is out without its text: the elements and attributes a browser
// would build from it, serialised again.
func markup(t *testing.T, out string) string {
	t.Helper()
	var b strings.Builder
	walkHTML(t, out, func(n *html.Node) {
		if n.Type == html.ElementNode {
			b.WriteString("<" + n.Data)
			for _, a := range n.Attr {
				b.WriteString(" " + a.Key + `="` + a.Val + `"`)
			}
			b.WriteString(">")
		}
	})
	return b.String()
}

// text is what a reader sees of out: its text, entities decoded.
func text(t *testing.T, out string) string {
	t.Helper()
	var b strings.Builder
	walkHTML(t, out, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	})
	return b.String()
}

// assertInert parses HTML as a browser would and fails on anything that
// could run code, load a frame or restyle the page.
func assertInert(t *testing.T, out string) {
	t.Helper()
	forbiddenElements := map[string]bool{
		"script": true, "iframe": true, "frame": true, "object": true, "embed": true, "style": true,
		"link": true, "meta": true, "base": true, "form": true, "svg": true, "math": true, "template": true,
		"button": true, "textarea": true, "select": true,
	}
	walkHTML(t, out, func(n *html.Node) {
		if n.Type == html.ElementNode {
			if forbiddenElements[n.Data] {
				t.Errorf("element <%s> survived:\n%s", n.Data, out)
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				val := strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(key, "on"):
					t.Errorf("event handler %s=%q survived on <%s>", a.Key, a.Val, n.Data)
				case key == "style" || key == "id" || key == "srcdoc" || key == "formaction":
					t.Errorf("attribute %s survived on <%s>", a.Key, n.Data)
				case key == "href" || key == "src" || key == "cite" || key == "action":
					for _, scheme := range []string{"javascript:", "data:", "vbscript:"} {
						if strings.HasPrefix(val, scheme) {
							t.Errorf("%s URL survived in %s on <%s>", scheme, a.Key, n.Data)
						}
					}
				}
			}
		}
	})
}

// Only https images and this site's own are fetched; every other image
// is at most a link named by its alt text, and never a javascript: or
// data: one.
func TestMarkdownImagesOtherThanHTTPSAreNotFetched(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // in the output
		gone      []string
	}{
		{"http", "![plain](http://img.example/p.png)", `<a href="http://img.example/p.png" rel="nofollow noreferrer">plain</a>`, []string{"<img"}},
		{"protocol-relative", "![pr](//img.example/p.png)", ">pr</a>", []string{"<img"}},
		{"data", "![inline](data:image/png;base64,iVBORw0KGgo=)", "inline", []string{"<img", "data:"}},
		{"svg data", "![svg](data:image/svg+xml;base64,PHN2Zy8+)", "svg", []string{"<img", "data:"}},
		{"javascript", "![js](javascript:alert(1))", "js", []string{"<img", "javascript:"}},
		{"mixed-case javascript", "![js](JaVaScRiPt:alert(1))", "js", []string{"<img", "javascript:"}},
		{"entity javascript", "![js](&#106;avascript:alert(1))", "js", []string{"<img", "javascript:"}},
		{"ftp", "![f](ftp://img.example/p.png)", "f", []string{"<img", "ftp:"}},
		{"raw HTML img", `<img src="https://img.example/p.png">`, "&lt;img", []string{"<img"}},
		{"reference image over http", "![ref][r]\n\n[r]: http://img.example/r.png", ">ref</a>", []string{"<img"}},
		{"no alt", "![](http://img.example/p.png)", ">image</a>", []string{"<img"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := string(render.Markdown([]byte(tc.src)))
			if !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out)
			}
			for _, g := range tc.gone {
				if strings.Contains(strings.ToLower(out), strings.ToLower(g)) {
					t.Errorf("output holds %q:\n%s", g, out)
				}
			}
			assertInert(t, out)
		})
	}
}

func TestHighlightCSSUsesClasses(t *testing.T) {
	css := string(render.HighlightCSS())
	for _, w := range []string{".chroma", ".chroma .nt"} {
		if !strings.Contains(css, w) {
			t.Errorf("stylesheet lacks %q", w)
		}
	}
}
