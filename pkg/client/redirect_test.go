package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/pact-registry/pact/pkg/client"
)

// arrival is what a server that should never be reached received.
type arrival struct {
	method, path string
	credentials  bool // an Authorization or X-Pact-Token header
	bodyBytes    int
}

func (a arrival) String() string {
	return fmt.Sprintf("%s %s (credentials: %v, body: %d bytes)", a.method, a.path, a.credentials, a.bodyBytes)
}

// catcher is a plain HTTP server on its own listener that records every
// request and answers like a registry, so that a client following a
// redirect to it would succeed.
type catcher struct {
	*httptest.Server
	mu       sync.Mutex
	arrivals []arrival
}

func newCatcher(t *testing.T, ln net.Listener) *catcher {
	t.Helper()
	c := &catcher{}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.arrivals = append(c.arrivals, arrival{method: r.Method, path: r.URL.Path,
			credentials: r.Header.Get("Authorization") != "" || r.Header.Get("X-Pact-Token") != "",
			bodyBytes:   len(body)})
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"user":{"id":1,"username":"mallory"}}`)
	}))
	if ln != nil {
		c.Listener.Close()
		c.Listener = ln
	}
	c.Start()
	t.Cleanup(c.Close)
	return c
}

func (c *catcher) received() []arrival {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]arrival(nil), c.arrivals...)
}

// redirector answers every request with status and a Location at target
// plus the request's path, counting the requests it got.
func redirector(status int, target string, requests *int, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		*requests++
		mu.Unlock()
		http.Redirect(w, r, target+r.URL.Path, status)
	})
}

// sameHostOtherPort listens on 127.0.0.2 at the port of ln (another host,
// same port), or skips when that port is taken there.
func sameHostOtherPort(t *testing.T, port string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.2", port))
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2:%s: %v", port, err)
	}
	return ln
}

// TestRedirectsToAnotherOriginAreRefused: a registry address answering a
// redirect to another port, another host or another scheme gets an error
// naming both addresses, and the other address receives nothing: no
// token, no replayed publish, not even a request. The same holds for the
// device login and the transparency log's routes.
func TestRedirectsToAnotherOriginAreRefused(t *testing.T) {
	t.Parallel()
	doc := packDoc("name: moved\nversion: 1.0.0")
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, change := range []string{"port", "host", "scheme"} {
			t.Run(fmt.Sprintf("%d/%s", status, change), func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				var requests int
				var front *httptest.Server
				var target *catcher
				var opts []client.Option
				switch change {
				case "port": // http://127.0.0.1:A -> http://127.0.0.1:B
					target = newCatcher(t, nil)
					front = httptest.NewServer(redirector(status, target.URL, &requests, &mu))
				case "host": // http://127.0.0.1:P -> http://127.0.0.2:P
					ln, err := net.Listen("tcp", "127.0.0.1:0")
					if err != nil {
						t.Fatal(err)
					}
					_, port, _ := net.SplitHostPort(ln.Addr().String())
					target = newCatcher(t, sameHostOtherPort(t, port))
					front = httptest.NewUnstartedServer(redirector(status, target.URL, &requests, &mu))
					front.Listener.Close()
					front.Listener = ln
					front.Start()
				case "scheme": // https://127.0.0.1:A -> http://127.0.0.1:B
					target = newCatcher(t, nil)
					front = httptest.NewTLSServer(redirector(status, target.URL, &requests, &mu))
					opts = append(opts, client.WithHTTPClient(front.Client()))
				}
				t.Cleanup(front.Close)
				c, err := client.New(front.URL, append(opts, client.WithToken("pact_secret_never_elsewhere"))...)
				if err != nil {
					t.Fatal(err)
				}

				ctx := context.Background()
				_, meErr := c.Me(ctx)
				_, pubErr := c.Publish(ctx, client.PublishRequest{Content: doc})
				_, deviceErr := c.StartDeviceLogin(ctx, "laptop")
				_, logErr := c.LogKey(ctx)
				for what, err := range map[string]error{"GET /api/me": meErr, "POST /api/publish": pubErr,
					"POST /api/login/device": deviceErr, "GET /log/key": logErr} {
					var redirect *client.RedirectError
					if !errors.As(err, &redirect) {
						t.Errorf("%s: error = %v (%T), want a *RedirectError", what, err, err)
						continue
					}
					method, path, _ := strings.Cut(what, " ")
					if redirect.From != front.URL || redirect.To != target.URL+path || redirect.Method != method || redirect.Path != path {
						t.Errorf("%s: %+v, want from %s to %s%s", what, redirect, front.URL, target.URL, path)
					}
					msg := err.Error()
					if !strings.Contains(msg, front.URL) || !strings.Contains(msg, target.URL) || !strings.Contains(msg, "refused") {
						t.Errorf("%s: message %q names not both addresses", what, msg)
					}
					if change == "scheme" && !strings.Contains(msg, "never follows HTTPS to plain HTTP") {
						t.Errorf("%s: message %q does not say HTTPS to HTTP is never followed", what, msg)
					}
					if strings.Contains(msg, "pact_secret") {
						t.Errorf("%s: message %q shows the token", what, msg)
					}
				}
				if got := target.received(); len(got) != 0 {
					t.Errorf("the other address received %v, want nothing", got)
				}
				mu.Lock()
				defer mu.Unlock()
				if requests != 4 {
					t.Errorf("the registry's address got %d requests, want 4 (a refused redirect is not retried)", requests)
				}
			})
		}
	}
}

// TestRedirectsWithinTheOriginAreFollowed: a registry that moved under
// its own address (here /v1/... answering 308 to /...) keeps working,
// publishes included: the token and the body follow within the origin.
func TestRedirectsWithinTheOriginAreFollowed(t *testing.T) {
	t.Parallel()
	_, username := newAccount(t)
	token, err := client.SharedPactd().CreateToken(username)
	if err != nil {
		t.Fatal(err)
	}
	pactd, err := url.Parse(client.SharedPactd().URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(pactd)
	var mu sync.Mutex
	var redirected []string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rest, ok := strings.CutPrefix(r.URL.Path, "/v1/"); ok {
			mu.Lock()
			redirected = append(redirected, r.Method+" "+r.URL.Path)
			mu.Unlock()
			http.Redirect(w, r, "/"+rest, http.StatusPermanentRedirect)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	c, err := client.New(front.URL+"/v1", client.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	me, err := c.Me(context.Background())
	if err != nil || me.Username != username {
		t.Fatalf("Me through a same-origin redirect = %+v, %v; want %s", me, err, username)
	}
	res, err := c.Publish(context.Background(), client.PublishRequest{Content: packDoc("name: moved\nversion: 1.0.0")})
	if err != nil {
		t.Fatalf("publish through a same-origin redirect: %v", err)
	}
	if res.Package.OwnerSlug != username || res.Package.Version != "1.0.0" || !res.Created {
		t.Fatalf("published %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"GET /v1/api/me", "POST /v1/api/publish"}; fmt.Sprint(redirected) != fmt.Sprint(want) {
		t.Fatalf("redirected %v, want %v", redirected, want)
	}
}
