package client

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
)

func TestRetryDelay(t *testing.T) {
	c, err := New("http://127.0.0.1:1", WithRetryPolicy(RetryPolicy{
		MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: 30 * time.Second,
	}))
	if err != nil {
		t.Fatal(err)
	}
	c.jitter = func(d time.Duration) time.Duration { return d } // the upper bound

	apiErr := func(status int, retryAfter time.Duration) error {
		e := newAPIError(status, []byte(`{"ok":false,"error":"x"}`))
		if status == http.StatusTooManyRequests || status >= 500 {
			return &retryableAPIError{APIError: e, retryAfter: retryAfter}
		}
		return e
	}
	connRefused := &transportError{err: errors.New("connection refused")}

	tests := []struct {
		name      string
		attempt   int
		err       error
		wantRetry bool
		wantWait  time.Duration
	}{
		{"connection error, first retry", 1, connRefused, true, 100 * time.Millisecond},
		{"connection error, backoff doubles", 3, connRefused, true, 400 * time.Millisecond},
		{"backoff is capped", 10, connRefused, true, time.Second},
		{"503 backs off", 2, apiErr(503, 0), true, 200 * time.Millisecond},
		{"429 waits for Retry-After", 1, apiErr(429, 3*time.Second), true, 3 * time.Second},
		{"429 with a short Retry-After still backs off", 3, apiErr(429, time.Millisecond), true, 400 * time.Millisecond},
		{"429 asking too long is returned", 1, apiErr(429, time.Minute), false, 0},
		{"400 is final", 1, apiErr(400, 0), false, 0},
		{"401 is final", 1, apiErr(401, 0), false, 0},
		{"409 is final", 1, apiErr(409, 0), false, 0},
		{"other errors are final", 1, errors.New("building the body failed"), false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wait, retry := c.retryDelay(tc.attempt, tc.err)
			if retry != tc.wantRetry || (retry && wait != tc.wantWait) {
				t.Errorf("retryDelay = %v, %v; want %v, %v", wait, retry, tc.wantWait, tc.wantRetry)
			}
		})
	}
}

func TestEqualJitterStaysInTheUpperHalf(t *testing.T) {
	for range 1000 {
		if d := equalJitter(time.Second); d < 500*time.Millisecond || d > time.Second {
			t.Fatalf("equalJitter(1s) = %v", d)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name, header string
		want         time.Duration
	}{
		{"absent", "", 0},
		{"seconds", "7", 7 * time.Second},
		{"negative", "-3", 0},
		{"http date", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"garbage", "soon", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseRetryAfter(tc.header, now); got != tc.want {
				t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func TestNewAPIError(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"error envelope", 409, `{"ok":false,"error":"version 1.0.0 of a/b already exists with different content"}`, "version 1.0.0 of a/b already exists with different content"},
		{"html from a proxy", 502, `<html><body>Bad Gateway</body></html>`, "bad gateway"},
		{"empty body", 503, ``, "service unavailable"},
		{"JSON without error", 400, `{"ok":false}`, "bad request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newAPIError(tc.status, []byte(tc.body))
			if e.StatusCode != tc.status || e.Message != tc.want {
				t.Errorf("newAPIError = %+v, want %d %q", e, tc.status, tc.want)
			}
		})
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestRetriesUntilTheServerComesUp(t *testing.T) {
	addr := freeAddr(t)
	dir := t.TempDir()
	var srv *pactdtest.Server
	t.Cleanup(func() {
		if srv != nil {
			srv.Stop()
		}
	})

	c, err := New("http://"+addr, WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	// The first attempt meets a closed port; pactd starts during the pause.
	var pauses int
	c.sleep = func(ctx context.Context, d time.Duration) error {
		pauses++
		if srv == nil {
			var err error
			if srv, err = pactdtest.StartAt(pactdBin, dir, addr); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	}
	if err := c.Health(context.Background()); err == nil {
		t.Fatal("Health succeeded before pactd started; is something else on " + addr + "?")
	}
	if pauses != 0 {
		t.Fatalf("Health, a probe, was retried %d times", pauses)
	}

	list, err := c.ListPackages(context.Background(), ListOptions{})
	if err != nil {
		t.Fatalf("ListPackages after a retry: %v", err)
	}
	if pauses != 1 || len(list.Packages) != 0 {
		t.Errorf("pauses = %d, packages = %d; want one retry and the new server's empty list", pauses, len(list.Packages))
	}
}

func TestHonoursRetryAfterOfARateLimitedServer(t *testing.T) {
	// One request per token, then one every two seconds.
	srv, err := pactdtest.Start(pactdBin, t.TempDir(), "--rate-token", "0.5", "--rate-token-burst", "1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	token, err := srv.CreateUserWithToken("limited")
	if err != nil {
		t.Fatal(err)
	}

	var notices []Retry
	newLimitedClient := func(policy RetryPolicy) (*Client, *[]time.Duration) {
		c, err := New(srv.URL, WithToken(token), WithRetryPolicy(policy), WithRetryNotify(func(r Retry) { notices = append(notices, r) }))
		if err != nil {
			t.Fatal(err)
		}
		var waits []time.Duration
		c.sleep = func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return sleepContext(ctx, d) // really wait: the server's bucket must refill
		}
		return c, &waits
	}

	c, waits := newLimitedClient(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: 10 * time.Second})
	for i := range 2 {
		if _, err := c.Me(context.Background()); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	if len(*waits) != 1 || (*waits)[0] < time.Second {
		t.Errorf("waits before retrying = %v, want one of at least the server's Retry-After (whole seconds, so >= 1s)", *waits)
	}
	// The wait was announced before it began: why, how long, which attempt.
	if len(notices) != 1 || notices[0].Status != http.StatusTooManyRequests || notices[0].Attempt != 2 ||
		notices[0].MaxAttempts != 3 || len(*waits) != 1 || notices[0].Wait != (*waits)[0] {
		t.Errorf("notices = %+v, want one of a 429 before attempt 2/3 announcing the wait %v", notices, *waits)
	}
	notices = nil

	// A caller unwilling to wait that long gets the 429 at once.
	impatient, waits := newLimitedClient(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxRetryAfter: time.Millisecond})
	_, err = impatient.Me(context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests || len(*waits) != 0 {
		t.Errorf("err = %v after waits %v, want a 429 without waiting", err, *waits)
	}
	if len(notices) != 0 {
		t.Errorf("notices = %+v for a request not retried", notices)
	}
	// The message is the server's alone; the status and request are details.
	if strings.Contains(apiErr.Error(), "HTTP") || apiErr.Detail() != "HTTP 429 from GET /api/me" {
		t.Errorf("Error() = %q, Detail() = %q", apiErr.Error(), apiErr.Detail())
	}
}

func TestRetryLimits(t *testing.T) {
	closed := "http://" + freeAddr(t)
	tests := []struct {
		name       string
		call       func(c *Client) error
		wantPauses int
	}{
		{"GET is repeated", func(c *Client) error { _, err := c.Me(context.Background()); return err }, 3},
		{"publish is repeated", func(c *Client) error {
			_, err := c.Publish(context.Background(), PublishRequest{Content: []byte("x")})
			return err
		}, 3},
		{"adding a key is not", func(c *Client) error { _, err := c.AddKey(context.Background(), "ssh-ed25519 AAAA", ""); return err }, 0},
		{"deleting a key is not", func(c *Client) error { return c.DeleteKey(context.Background(), 1) }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(closed, WithRetryPolicy(RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
			if err != nil {
				t.Fatal(err)
			}
			pauses := 0
			c.sleep = func(context.Context, time.Duration) error { pauses++; return nil }
			err = tc.call(c)
			var terr *transportError
			if !errors.As(err, &terr) {
				t.Fatalf("error = %v, want a connection error", err)
			}
			if pauses != tc.wantPauses {
				t.Errorf("retried %d times, want %d", pauses, tc.wantPauses)
			}
		})
	}
}

func TestSignedPublishSignsAFreshMessageEachAttempt(t *testing.T) {
	c, err := New("http://"+freeAddr(t), WithRetryPolicy(RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(context.Context, time.Duration) error { return nil }
	var messages [][]byte
	_, err = c.PublishSigned(context.Background(), SignedPublishRequest{
		Content: []byte("doc"), Fingerprint: "SHA256:x",
		Sign: func(_ context.Context, msg []byte) (string, error) {
			messages = append(messages, msg)
			return "sig", nil
		},
	})
	if err == nil {
		t.Fatal("publish to a closed port succeeded")
	}
	if len(messages) != 3 {
		t.Fatalf("signed %d times for 3 attempts", len(messages))
	}
	nonces := map[string]bool{}
	for _, m := range messages {
		lines := bytes.Split(m, []byte("\n"))
		if string(lines[0]) != "pact-publish-v1" {
			t.Fatalf("message %q", m)
		}
		nonces[string(lines[2])] = true
	}
	if len(nonces) != 3 {
		t.Errorf("nonces of 3 attempts: %d distinct, want 3", len(nonces))
	}
}

func TestCancelledContextStopsRetrying(t *testing.T) {
	c, err := New("http://" + freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pauses := 0
	c.sleep = func(ctx context.Context, d time.Duration) error {
		pauses++
		cancel()
		return ctx.Err()
	}
	_, err = c.ListPackages(ctx, ListOptions{})
	if err == nil || pauses != 1 {
		t.Errorf("err %v after %d pauses; want an error after the one pause that was cancelled", err, pauses)
	}
}

// TestErrorsARetryCannotFixAreNotRetried: an https:// address of a
// plain-HTTP server and a host name that does not exist fail at once, the
// first with the http:// address to use.
func TestErrorsARetryCannotFixAreNotRetried(t *testing.T) {
	plain := sharedPactd.URL // pactd serves plain HTTP
	tests := []struct {
		name    string
		address string
		check   func(t *testing.T, err error)
	}{
		{"https to a plain-HTTP server", strings.Replace(plain, "http://", "https://", 1), func(t *testing.T, err error) {
			var plainErr *PlainHTTPError
			if !errors.As(err, &plainErr) || plainErr.HTTPAddress != plain {
				t.Fatalf("error = %v (%T), want a *PlainHTTPError suggesting %s", err, err, plain)
			}
			if want := strings.TrimPrefix(plain, "http://") + " answers in plain HTTP, not HTTPS: use " + plain; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		}},
		{"a host name that does not exist", "https://nosuch.invalid", func(t *testing.T, err error) {
			var dnsErr *net.DNSError
			if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
				t.Fatalf("error = %v (%T), want a DNS error saying the name does not exist", err, err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var notices []Retry
			c, err := New(tc.address, WithRetryNotify(func(r Retry) { notices = append(notices, r) }))
			if err != nil {
				t.Fatal(err)
			}
			pauses := 0
			c.sleep = func(context.Context, time.Duration) error { pauses++; return nil }
			_, err = c.ListPackages(context.Background(), ListOptions{})
			tc.check(t, err)
			if pauses != 0 || len(notices) != 0 {
				t.Errorf("retried %d times (notices %+v), want none", pauses, notices)
			}
		})
	}
}
