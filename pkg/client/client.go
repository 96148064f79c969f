// Package client is a typed Go client of the pact registry's REST interface.
//
// Every call takes a context, runs under a per-attempt timeout, and answers
// failures of the server as *APIError values; a host that answers an API
// route in words no registry uses gives *NotRegistryError, and a plain-HTTP
// server at an https:// address *PlainHTTPError. Requests that are safe to
// repeat (every GET, and publishes, since re-publishing identical content
// is a no-op) are retried with exponential backoff and jitter on 429
// (honouring Retry-After), 5xx and connection errors, except those that
// a retry cannot fix: a host name that does not exist, a server that does
// not speak TLS, a certificate that does not verify. Redirects are followed
// only within the registry's origin (scheme, host and port): one that leaves
// it is refused before anything is sent, as *RedirectError.
//
//	c, err := client.New("https://pact.example.com", client.WithToken(token))
//	res, err := c.Publish(ctx, client.PublishRequest{Content: doc})
//	fmt.Println(res.Package.URL)
package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/routes"
)

// DefaultTimeout bounds each attempt of a request.
const DefaultTimeout = 30 * time.Second

// maxResponseBytes bounds what the client reads of a response body; raw
// documents are at most a few MiB on any sane server.
const maxResponseBytes = 64 << 20

// RetryPolicy says how often and how patiently retryable requests are repeated.
type RetryPolicy struct {
	// MaxAttempts counts the first try too; 1 disables retries.
	MaxAttempts int
	// BaseDelay is the wait before the second attempt; it doubles each time.
	BaseDelay time.Duration
	// MaxDelay caps the backoff between two attempts.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; a 429
	// asking for more is returned to the caller at once.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is what New uses unless told otherwise.
var DefaultRetryPolicy = RetryPolicy{
	MaxAttempts:   4,
	BaseDelay:     250 * time.Millisecond,
	MaxDelay:      5 * time.Second,
	MaxRetryAfter: 60 * time.Second,
}

// Client talks to one pact server. It is safe for concurrent use.
type Client struct {
	baseURL    string // no trailing slash
	token      string
	userAgent  string
	httpClient *http.Client
	retry      RetryPolicy

	// notify hears of every attempt about to be repeated (WithRetryNotify).
	notify func(Retry)
	// onWait hears of an attempt without an answer after waitAfter
	// (WithWaitNotify).
	onWait    func(Waiting)
	waitAfter time.Duration

	// Seams for tests: the clock, the pause between attempts and the
	// randomness of the jitter.
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(d time.Duration) time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithToken sets the API token sent on the routes that need one.
func WithToken(token string) Option { return func(c *Client) { c.token = token } }

// WithVersion sets the User-Agent to "pact/<version>".
func WithVersion(version string) Option {
	return func(c *Client) { c.userAgent = "pact/" + version }
}

// WithHTTPClient replaces the HTTP client (and with it the default timeout);
// the client still refuses redirects to another origin.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.httpClient = hc } }

// WithTimeout sets the timeout of each attempt.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) {
		hc := *c.httpClient
		hc.Timeout = d
		c.httpClient = &hc
	}
}

// Retry describes a failed attempt that is about to be repeated, so that a
// program can say why it waits.
type Retry struct {
	// Attempt is the attempt about to be made (2 for the first repeat) of
	// MaxAttempts.
	Attempt, MaxAttempts int
	// Wait is the pause before it.
	Wait time.Duration
	// Status is the HTTP status of a 429 or 5xx answer; 0 when the server
	// did not answer (Err says what happened).
	Status int
	Err    error
}

// WithRetryNotify calls notify before each pause between two attempts.
func WithRetryNotify(notify func(Retry)) Option { return func(c *Client) { c.notify = notify } }

// Waiting describes an attempt that has had no complete answer for a while,
// so that a program can say it waits rather than hang silently.
type Waiting struct {
	// Method and Path name the request (Path without the query).
	Method, Path string
	// After is how long the attempt has waited.
	After time.Duration
	// Attempt is the attempt waiting, 1 for the first.
	Attempt int
}

// WithWaitNotify calls notify once for each attempt that has had no
// complete answer (status, headers and body) after d. It is called from
// another goroutine, before the attempt returns.
func WithWaitNotify(d time.Duration, notify func(Waiting)) Option {
	return func(c *Client) { c.onWait, c.waitAfter = notify, d }
}

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// New returns a client of the server at baseURL ("http://localhost:8080").
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid server address %q: want http://host[:port] or https://host[:port]", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("invalid server address %q: it must not carry a query or fragment", baseURL)
	}
	c := &Client{
		baseURL:    strings.TrimRight(u.String(), "/"),
		userAgent:  "pact/dev",
		httpClient: &http.Client{Timeout: DefaultTimeout},
		retry:      DefaultRetryPolicy,
		now:        time.Now,
		sleep:      sleepContext,
		jitter:     equalJitter,
	}
	for _, opt := range opts {
		opt(c)
	}
	if c.retry.MaxAttempts < 1 {
		c.retry.MaxAttempts = 1
	}
	// Whatever HTTP client it was given, a redirect never takes the token
	// or a body to another origin (redirect.go).
	c.httpClient = sameOriginOnly(c.httpClient)
	return c, nil
}

// BaseURL is the server address the client talks to, without trailing slash.
func (c *Client) BaseURL() string { return c.baseURL }

// Host is the host[:port] of BaseURL, for messages.
func (c *Client) Host() string {
	if u, err := url.Parse(c.baseURL); err == nil {
		return u.Host
	}
	return c.baseURL
}

// request describes one logical call; body is rebuilt for every attempt so
// retries (and fresh signatures) are possible.
type request struct {
	method string
	path   string // already escaped
	query  url.Values
	header http.Header
	// body returns a fresh body and its content type; nil for none.
	body      func(ctx context.Context) (io.Reader, string, error)
	withToken bool
	// repeatable marks requests that are safe to send more than once.
	repeatable bool
	// maxBytes bounds the answer's body when not 0 (else maxResponseBytes);
	// a longer answer is an error, not a truncated body.
	maxBytes int64
	// accept replaces the Accept header (application/json).
	accept string
}

// response is a completed exchange with a status below 400 (or 304).
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends r, retrying when r is repeatable and the failure is transient.
func (c *Client) do(ctx context.Context, r request) (*response, error) {
	attempts := 1
	if r.repeatable {
		attempts = c.retry.MaxAttempts
	}
	for attempt := 1; ; attempt++ {
		stopWatch := c.watchWait(r, attempt)
		resp, err := c.once(ctx, r)
		stopWatch()
		if err == nil {
			return resp, nil
		}
		if attempt >= attempts || ctx.Err() != nil {
			return nil, unwrapRetryable(err)
		}
		wait, retry := c.retryDelay(attempt, err)
		if !retry {
			return nil, unwrapRetryable(err)
		}
		if deadline, ok := ctx.Deadline(); ok && c.now().Add(wait).After(deadline) {
			return nil, unwrapRetryable(err) // no time left for another attempt
		}
		if c.notify != nil {
			c.notify(Retry{Attempt: attempt + 1, MaxAttempts: attempts, Wait: wait, Status: StatusCode(err), Err: unwrapRetryable(err)})
		}
		if c.sleep(ctx, wait) != nil {
			return nil, unwrapRetryable(err)
		}
	}
}

// watchWait calls onWait if the attempt has not returned after waitAfter;
// the returned stop ends the watch, and returns only once a notice begun
// has ended, so that nothing is printed after the attempt's own output.
func (c *Client) watchWait(r request, attempt int) (stop func()) {
	if c.onWait == nil || c.waitAfter <= 0 {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTimer(c.waitAfter)
		defer t.Stop()
		select {
		case <-t.C:
			c.onWait(Waiting{Method: r.method, Path: r.path, After: c.waitAfter, Attempt: attempt})
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// retryDelay decides whether a failed attempt is worth repeating and how
// long to wait first.
func (c *Client) retryDelay(attempt int, err error) (time.Duration, bool) {
	backoff := c.retry.BaseDelay << (attempt - 1)
	if backoff > c.retry.MaxDelay || backoff <= 0 {
		backoff = c.retry.MaxDelay
	}
	backoff = c.jitter(backoff)

	var apiErr *retryableAPIError
	if errors.As(err, &apiErr) {
		if apiErr.retryAfter > c.retry.MaxRetryAfter {
			return 0, false
		}
		return max(backoff, apiErr.retryAfter), true
	}
	var terr *transportError
	if errors.As(err, &terr) {
		return backoff, !unfixable(terr.err)
	}
	return 0, false
}

// unfixable reports failures to reach a server that the same request
// meets again at once: a host name that does not exist, a server that
// does not speak TLS on an https:// address, a certificate that does not
// verify. A retry only makes the user wait for the same error.
func unfixable(err error) bool {
	var dnsErr *net.DNSError
	var recordErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	return (errors.As(err, &dnsErr) && dnsErr.IsNotFound) ||
		errors.Is(err, http.ErrSchemeMismatch) ||
		errors.As(err, &recordErr) ||
		errors.As(err, &certErr)
}

// once performs a single attempt. Failures of the server come back as
// *APIError; transient ones are wrapped so do can recognise them.
func (c *Client) once(ctx context.Context, r request) (*response, error) {
	var body io.Reader
	var contentType string
	if r.body != nil {
		var err error
		body, contentType, err = r.body(ctx)
		if err != nil {
			return nil, err
		}
	}
	u := c.baseURL + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return nil, err
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	req.Header.Set("User-Agent", c.userAgent)
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	} else {
		req.Header.Set("Accept", "application/json")
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if r.withToken && c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}

	res, err := c.httpClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if redirect, ok := redirectError(err); ok {
			return nil, redirect // not retried: the registry would say the same
		}
		if rest, ok := strings.CutPrefix(c.baseURL, "https://"); ok && errors.Is(err, http.ErrSchemeMismatch) {
			return nil, &PlainHTTPError{Host: c.Host(), HTTPAddress: "http://" + rest, Err: err}
		}
		return nil, &transportError{err: err}
	}
	defer res.Body.Close()
	limit := int64(maxResponseBytes)
	if r.maxBytes > 0 {
		limit = r.maxBytes
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &transportError{err: fmt.Errorf("reading the response of %s %s: %w", r.method, r.path, err)}
	}
	if int64(len(data)) > limit {
		if r.maxBytes == 0 {
			data = data[:limit] // the documented cut of ordinary answers
		} else if res.StatusCode < 400 {
			return nil, &TooLargeError{Path: r.path, Limit: limit}
		}
	}
	if res.StatusCode >= 400 {
		if notPactRefusal(r.path, res.StatusCode, data) {
			return nil, c.notRegistry(r, res.StatusCode, res.Header)
		}
		apiErr := newAPIError(res.StatusCode, data)
		apiErr.Method, apiErr.Path, apiErr.BaseURL = r.method, r.path, c.baseURL
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
			return nil, &retryableAPIError{APIError: apiErr, retryAfter: parseRetryAfter(res.Header.Get("Retry-After"), c.now())}
		}
		return nil, apiErr
	}
	return &response{status: res.StatusCode, header: res.Header, body: data}, nil
}

// transportError marks a failure to reach the server or read its answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// retryableAPIError carries a 429/5xx answer through the retry loop; callers
// see it as the *APIError it wraps.
type retryableAPIError struct {
	*APIError
	retryAfter time.Duration
}

func (e *retryableAPIError) Unwrap() error { return e.APIError }

// doJSON runs a request and decodes the {ok:true,...} envelope into out.
func (c *Client) doJSON(ctx context.Context, r request, out any) error {
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.body, out); err != nil {
		if isAPIRoute(r.path) && !json.Valid(resp.body) {
			return c.notRegistry(r, resp.status, resp.header)
		}
		return fmt.Errorf("unexpected answer from %s %s: %w", r.method, r.path, err)
	}
	return nil
}

// isAPIRoute says whether pact's JSON API serves path, so that a registry
// answers it with JSON, its refusals with the {"ok":false,"error":...}
// body. Other paths (the log's tiles, raw documents) may be served by
// anything.
func isAPIRoute(path string) bool { return strings.HasPrefix(path, routes.APIPrefix) }

// notPactRefusal reports a refusal of an API route without pact's error
// body: the host is not a registry. Statuses that a proxy or load
// balancer in front of a registry gives in its own words (a timeout, a
// body too large, rate limiting, any 5xx) say nothing of what is behind
// it, and stay *APIError.
func notPactRefusal(path string, status int, body []byte) bool {
	switch {
	case !isAPIRoute(path), status >= 500,
		status == http.StatusRequestTimeout, status == http.StatusRequestEntityTooLarge, status == http.StatusTooManyRequests:
		return false
	}
	return !isErrorEnvelope(body)
}

func (c *Client) notRegistry(r request, status int, header http.Header) *NotRegistryError {
	_, address, _ := strings.Cut(c.baseURL, "://")
	return &NotRegistryError{Address: address, Method: r.method, Path: r.path, StatusCode: status,
		ContentType: mediaType(header.Get("Content-Type"))}
}

// mediaType is a Content-Type without its parameters ("text/html").
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// unwrapRetryable hands callers the plain *APIError.
func unwrapRetryable(err error) error {
	var r *retryableAPIError
	if errors.As(err, &r) {
		return r.APIError
	}
	return err
}

// jsonBody encodes v once; each attempt reads it anew.
func jsonBody(v any) (func(context.Context) (io.Reader, string, error), error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return func(context.Context) (io.Reader, string, error) {
		return bytes.NewReader(data), "application/json", nil
	}, nil
}

// parseRetryAfter reads delta-seconds or an HTTP date; 0 when absent.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// equalJitter spreads retries of many clients over [d/2, d].
func equalJitter(d time.Duration) time.Duration {
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
