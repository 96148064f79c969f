package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Redirects: the client follows a redirect only within the origin it was
// asked to talk to (scheme, host and port). Go's own policy keeps the
// Authorization header when the host name stays the same whatever the port
// or the scheme, and keeps every other header (X-Pact-Token) everywhere;
// and it replays a POST's body on 307 and 308. A registry's address is
// where the user chose to send a token and documents, so a redirect that
// leaves it is refused before anything is sent: a token never reaches
// another port or plain HTTP, and a publish is never replayed elsewhere.

// maxRedirects is Go's default bound on a chain of redirects.
const maxRedirects = 10

// RedirectError is a redirect to another origin, refused before anything
// was sent there.
type RedirectError struct {
	// From is the origin asked ("https://pact.example.com"), To the address
	// it redirected to, without its query ("http://pact.example.com/api/me").
	From, To string
	// Method and Path name the request that was redirected, as it was asked.
	Method, Path string
}

// Downgrade says whether the redirect went from HTTPS to plain HTTP.
func (e *RedirectError) Downgrade() bool {
	return strings.HasPrefix(e.From, "https://") && strings.HasPrefix(e.To, "http://")
}

// ToOrigin is the origin of To ("http://pact.example.com").
func (e *RedirectError) ToOrigin() string {
	u, err := url.Parse(e.To)
	if err != nil {
		return e.To
	}
	return origin(u)
}

func (e *RedirectError) Error() string {
	head := fmt.Sprintf("%s redirected %s %s to %s", e.From, e.Method, e.Path, e.To)
	if e.Downgrade() {
		return head + ": refused, pact never follows HTTPS to plain HTTP (the token and any document would travel in clear text)"
	}
	return head + ": refused, pact follows redirects only within one address (scheme, host and port), " +
		"so the token and any document stay with " + e.From
}

// CheckSameOrigin is an http.Client's CheckRedirect that refuses, with a
// *RedirectError, a redirect out of the first request's origin, and stops
// after 10 redirects as Go's default does. Every HTTP client of pact uses it.
func CheckSameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first := via[0]
	if origin(req.URL) != origin(first.URL) {
		to := *req.URL
		to.RawQuery, to.ForceQuery, to.Fragment, to.User = "", false, "", nil
		return &RedirectError{From: origin(first.URL), To: to.String(), Method: first.Method, Path: first.URL.Path}
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// origin is scheme://host[:port] in lower case, without the scheme's
// default port, so that http://Example.com and http://example.com:80 agree.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6
	}
	return scheme + "://" + host
}

// sameOriginOnly returns a copy of hc whose redirects stay within their
// origin; a policy hc already had still applies within it.
func sameOriginOnly(hc *http.Client) *http.Client {
	out := *hc
	own := hc.CheckRedirect
	out.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := CheckSameOrigin(req, via); err != nil {
			return err
		}
		if own != nil {
			return own(req, via)
		}
		return nil
	}
	return &out
}

// redirectError finds a refused redirect in the error of an http.Client.
func redirectError(err error) (*RedirectError, bool) {
	var r *RedirectError
	ok := errors.As(err, &r)
	return r, ok
}
