package server_test

import (
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/servertest"
)

// webClient is a browser stand-in: it keeps cookies, does not follow
// redirects (tests check them), and marks its form posts same-origin, as
// browsers do with Sec-Fetch-Site.
type webClient struct {
	t    *testing.T
	base string
	http *http.Client
}

type webResponse struct {
	Status int
	Header http.Header
	Body   string
}

func newWebClient(t *testing.T, base string) *webClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &webClient{t: t, base: base, http: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (c *webClient) do(req *http.Request) webResponse {
	c.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("reading %s: %v", req.URL, err)
	}
	return webResponse{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

func (c *webClient) get(path string) webResponse {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.do(req)
}

// post sends a form as a page of this site would; headers may override
// Sec-Fetch-Site or add Origin to play another site.
func (c *webClient) post(path string, form url.Values, headers ...string) webResponse {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.do(req)
}

// cookie returns the value of the session cookie the jar holds, "" if none.
func (c *webClient) cookie(name string) string {
	u, _ := url.Parse(c.base)
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

func (c *webClient) login(user *servertest.User) {
	c.t.Helper()
	r := c.post("/login", url.Values{"login": {user.Account.Username}, "password": {user.Password}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/dashboard" {
		c.t.Fatalf("log-in as %s: status %d, location %q; body:\n%s", user.Account.Username, r.Status, r.Header.Get("Location"), r.Body)
	}
}

func wantPage(t *testing.T, r webResponse, status int, contains ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body:\n%s", r.Status, status, r.Body)
	}
	// html/template writes some characters as entities (+ as &#43;), so a
	// text is looked for in the page as sent and as a browser decodes it.
	decoded := html.UnescapeString(r.Body)
	for _, s := range contains {
		if !strings.Contains(r.Body, s) && !strings.Contains(decoded, s) {
			t.Errorf("page lacks %q; body:\n%s", s, r.Body)
		}
	}
}

func wantRedirect(t *testing.T, r webResponse, location string) {
	t.Helper()
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != location {
		t.Fatalf("got %d to %q, want 303 to %q; body:\n%s", r.Status, r.Header.Get("Location"), location, r.Body)
	}
}

// setCookie finds the Set-Cookie header that names name.
func setCookie(r webResponse, name string) *http.Cookie {
	for _, ck := range (&http.Response{Header: r.Header}).Cookies() {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

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
