package servertest

import (
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// WebClient is a browser stand-in: it keeps cookies, does not follow
// redirects (tests check them), and marks its form posts same-origin, as
// browsers do with Sec-Fetch-Site.
type WebClient struct {
	t    *testing.T
	base string
	http *http.Client
}

type WebResponse struct {
	Status int
	Header http.Header
	Body   string
}

// NewWebClient returns a browser stand-in for the server at base.
func NewWebClient(t *testing.T, base string) *WebClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &WebClient{t: t, base: base, http: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// From returns a client that shares c's cookies (its session) and
// connects from the loopback address addr (any of 127.0.0.0/8), as the
// same browser seen from another address.
func (c *WebClient) From(addr string) *WebClient {
	c.t.Helper()
	ip := net.ParseIP(addr)
	if ip == nil || !ip.IsLoopback() {
		c.t.Fatalf("From(%q): not a loopback address", addr)
	}
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	transport := &http.Transport{DialContext: dialer.DialContext}
	c.t.Cleanup(transport.CloseIdleConnections)
	return &WebClient{t: c.t, base: c.base, http: &http.Client{
		Jar:           c.http.Jar,
		Transport:     transport,
		CheckRedirect: c.http.CheckRedirect,
	}}
}

// Do sends req and reads the whole answer.
func (c *WebClient) Do(req *http.Request) WebResponse {
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
	return WebResponse{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}
}

// Get fetches path.
func (c *WebClient) Get(path string) WebResponse {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.Do(req)
}

// Post sends a form as a page of this site would; headers may override
// Sec-Fetch-Site or add Origin to play another site.
func (c *WebClient) Post(path string, form url.Values, headers ...string) WebResponse {
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
	return c.Do(req)
}

// Cookie returns the value of the session cookie the jar holds, "" if none.
func (c *WebClient) Cookie(name string) string {
	u, _ := url.Parse(c.base)
	for _, ck := range c.http.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// Login logs user in through the log-in form.
func (c *WebClient) Login(user *User) {
	c.t.Helper()
	r := c.Post("/login", url.Values{"login": {user.Account.Username}, "password": {user.Password}})
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/dashboard" {
		c.t.Fatalf("log-in as %s: status %d, location %q; body:\n%s", user.Account.Username, r.Status, r.Header.Get("Location"), r.Body)
	}
}

// WantPage fails t unless r has status and holds every text of contains.
func WantPage(t *testing.T, r WebResponse, status int, contains ...string) {
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

// WantRedirect fails t unless r is a 303 to location.
func WantRedirect(t *testing.T, r WebResponse, location string) {
	t.Helper()
	if r.Status != http.StatusSeeOther || r.Header.Get("Location") != location {
		t.Fatalf("got %d to %q, want 303 to %q; body:\n%s", r.Status, r.Header.Get("Location"), location, r.Body)
	}
}

// SetCookie finds the Set-Cookie header that names name.
func SetCookie(r WebResponse, name string) *http.Cookie {
	for _, ck := range (&http.Response{Header: r.Header}).Cookies() {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

// AddCookies puts cookies into the jar as if the server had set them.
func (c *WebClient) AddCookies(cookies ...*http.Cookie) {
	u, err := url.Parse(c.base)
	if err != nil {
		c.t.Fatal(err)
	}
	c.http.Jar.SetCookies(u, cookies)
}

// URL is the address of path on the server.
func (c *WebClient) URL(path string) string { return c.base + path }

// T is the test the client reports to.
func (c *WebClient) T() *testing.T { return c.t }

// ApproveDevice approves the login of the command line that userCode names,
// through the page /login/device as a person does: it types the code,
// then sends the token's fields (name, scope, expires_in_days, packages)
// with Approve. The client must be logged in.
func (c *WebClient) ApproveDevice(userCode string, fields url.Values) {
	c.t.Helper()
	WantPage(c.t, c.Post("/login/device", url.Values{"code": {userCode}}), http.StatusOK, "Approve")
	form := url.Values{"code": {userCode}, "decision": {"approve"}}
	for k, v := range fields {
		form[k] = v
	}
	WantRedirect(c.t, c.Post("/login/device/decide", form), "/login/device?done=approved")
}
