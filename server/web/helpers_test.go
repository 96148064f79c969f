package web_test

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/registry"
)

func sessionOf(t *testing.T, env *servertest.Env, id string) (*registry.Session, error) {
	t.Helper()
	sum := sha256.Sum256([]byte(id))
	return env.Store.SessionByHash(context.Background(), sum[:], env.Clock.Now())
}

func publishDoc(t *testing.T, env *servertest.Env, u *servertest.User, doc string) *registry.Package {
	t.Helper()
	p, _, err := env.Service.Publish(context.Background(), u.Account, registry.PublishRequest{Content: []byte(doc)})
	if err != nil {
		t.Fatalf("publishing for %s: %v", u.Account.Username, err)
	}
	return p
}

// assertNoInlineCode fails when a page holds anything the CSP would have
// to block: inline scripts, event handler attributes, style elements or
// attributes, or javascript: URLs. Pages must not rely on the CSP.
func assertNoInlineCode(t *testing.T, page string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("page does not parse: %v", err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attrs := map[string]string{}
			for _, a := range n.Attr {
				attrs[strings.ToLower(a.Key)] = a.Val
				if strings.HasPrefix(strings.ToLower(a.Key), "on") {
					t.Errorf("<%s> has event handler %s", n.Data, a.Key)
				}
				if strings.EqualFold(a.Key, "style") {
					t.Errorf("<%s> has a style attribute", n.Data)
				}
				if (a.Key == "href" || a.Key == "src" || a.Key == "action") &&
					strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					t.Errorf("<%s %s=%q>", n.Data, a.Key, a.Val)
				}
			}
			switch n.Data {
			case "script":
				if attrs["src"] == "" || n.FirstChild != nil {
					t.Errorf("inline <script> in page")
				}
			case "style", "iframe", "object", "embed":
				t.Errorf("<%s> in page", n.Data)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
}

// pageMarkup is a page without its text: the elements and attributes a
// browser builds from it, serialised again. Documents show their raw HTML
// as text, so "<script" may be read on a page but never be markup there.
func pageMarkup(t *testing.T, page string) string {
	t.Helper()
	var b strings.Builder
	walkPage(t, page, func(n *html.Node) {
		if n.Type == html.ElementNode {
			b.WriteString("<" + n.Data)
			for _, a := range n.Attr {
				b.WriteString(" " + a.Key + `="` + a.Val + `"`)
			}
			b.WriteString(">")
		}
		// The text of a script or style element is code, not text.
		if n.Type == html.TextNode && n.Parent != nil && (n.Parent.Data == "script" || n.Parent.Data == "style") {
			b.WriteString(n.Data)
		}
	})
	return b.String()
}

// documentText is the text of a package page's rendered document, as a
// reader sees it (entities decoded).
func documentText(t *testing.T, page string) string {
	t.Helper()
	var b strings.Builder
	inDocument := func(n *html.Node) bool {
		for p := n.Parent; p != nil; p = p.Parent {
			for _, a := range p.Attr {
				if a.Key == "class" && a.Val == "document" {
					return true
				}
			}
		}
		return false
	}
	walkPage(t, page, func(n *html.Node) {
		if n.Type == html.TextNode && inDocument(n) {
			b.WriteString(n.Data)
		}
	})
	return b.String()
}

func walkPage(t *testing.T, page string, visit func(*html.Node)) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("page does not parse: %v", err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		visit(n)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
}
