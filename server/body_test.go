package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server"
)

// A body of brackets is refused by its nesting, at a small depth, before
// anything decodes it; a body within the depth limit reaches the usual
// checks.
func TestDeeplyNestedJSONIsRefused(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	nested := strings.Repeat("[", 4<<20)
	for _, path := range []string{"/api/publish-signed", "/api/publish", "/api/ssh-keys"} {
		body := nested
		if path == "/api/ssh-keys" {
			body = strings.Repeat("[", 60<<10) // under this route's own size limit
		}
		resp := env.API.Post(path, "application/json", []byte(body), alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "nests arrays or objects deeper than 32 levels")
	}
	within := `{"x":` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}`
	resp := env.API.Post("/api/publish-signed", "application/json", []byte(within))
	wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "missing required field(s): content")
}

// encoding/json matches keys to fields without regard to case and keeps
// the last: "content" and "Content" in one body would let a proxy or signer
// read one document while another is published.
func TestKeysThatDifferOnlyInCaseAreDuplicates(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	for _, body := range []string{
		`{"content":` + quoteJSON(packDoc("shown", "1.0")) + `,"Content":` + quoteJSON(packDoc("smuggled", "1.0")) + `}`,
		`{"content":` + quoteJSON(packDoc("shown", "1.0")) + `,"\u0063ONTENT":` + quoteJSON(packDoc("smuggled", "1.0")) + `}`,
	} {
		resp := env.API.Post("/api/publish", "application/json", []byte(body), alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "twice")
	}
	if list := env.API.Get("/api/packages"); strings.Contains(string(list.Body), "smuggled") || strings.Contains(string(list.Body), "shown") {
		t.Errorf("a refused publish was stored: %s", list.Body)
	}
}

// holdBody starts a request whose declared body is never finished, so the
// server holds its share of the body budget until the connection closes.
func holdBody(t *testing.T, base, path string, declared int) net.Conn {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"content\":\"", path, u.Host, declared)
	return conn
}

// When request bodies fill the body budget, further bodies wait briefly
// and then get 503 with Retry-After, on the API and the web side alike;
// reads go on being answered, and once the budget frees up, bodies are
// accepted again.
func TestBodyBudgetBoundsBodiesInFlight(t *testing.T) {
	t.Parallel()
	const budget = 1 << 20
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{
		Limits: server.Limits{BodyBudget: budget, BodyBudgetWait: 200 * time.Millisecond},
	})
	alice := env.CreateUser(t, "alice")
	ok := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("first", "1.0")}, alice.Bearer())
	wantStatus(t, ok.Status, http.StatusOK, ok.Body)

	held := holdBody(t, env.URL, "/api/publish-signed", budget)
	var refused bool
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !refused; {
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("second", "1.0")}, alice.Bearer())
		switch resp.Status {
		case http.StatusServiceUnavailable:
			refused = true
			wantError(t, resp.Status, resp.JSON(t), http.StatusServiceUnavailable, "retry shortly")
			if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || secs < 1 {
				t.Errorf("Retry-After = %q, want whole seconds", resp.Header.Get("Retry-After"))
			}
		case http.StatusOK:
			// The held request may not have reached the budget yet.
		default:
			wantStatus(t, resp.Status, http.StatusServiceUnavailable, resp.Body)
		}
	}
	if !refused {
		t.Fatal("a publish was never refused while the whole budget was held")
	}
	again := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("third", "1.0")}, alice.Bearer())
	wantStatus(t, again.Status, http.StatusServiceUnavailable, again.Body)
	for _, path := range []string{"/api/packages", "/raw/alice/first.pact.md", "/api/packages/alice/first"} {
		start := time.Now()
		resp := env.API.Get(path)
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("GET %s took %s while the budget was held", path, took)
		}
	}
	form := url.Values{"username": {"alice"}, "password": {"wrong"}}
	req, _ := http.NewRequest(http.MethodPost, env.URL+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	page, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, page.Body)
	page.Body.Close()
	if page.StatusCode != http.StatusServiceUnavailable || page.Header.Get("Retry-After") == "" {
		t.Errorf("log-in form while the budget was held: status %d, Retry-After %q; want 503 with Retry-After", page.StatusCode, page.Header.Get("Retry-After"))
	}

	held.Close() // the held request fails to read its body and gives its share back
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("second", "1.0")}, alice.Bearer())
		if resp.Status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("publish after the held body was given up: status %d: %s", resp.Status, resp.Body)
		}
		wantStatus(t, resp.Status, http.StatusServiceUnavailable, resp.Body)
	}
}

// A body declared larger than the request limit is refused at once, not
// queued for the budget it could never use.
func TestOverlongDeclaredBodyIsRefusedWithoutWaiting(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{
		Limits: server.Limits{BodyBudget: 1 << 20, BodyBudgetWait: 30 * time.Second},
	})
	held := holdBody(t, env.URL, "/api/publish-signed", 1<<20)
	defer held.Close()
	u, _ := url.Parse(env.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /api/publish-signed HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", u.Host, 1<<30)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || time.Since(start) > 10*time.Second {
		t.Errorf("1 GiB declared body: status %d after %s, want 413 at once", resp.StatusCode, time.Since(start))
	}
}
