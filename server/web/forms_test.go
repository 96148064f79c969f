package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
)

// A form larger than any page sends is refused, and the server keeps serving.
func TestWebFormBodyIsBounded(t *testing.T) {
	t.Parallel()
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	alice := env.CreateUser(t, "alice")
	form := "login=alice&password=" + url.QueryEscape(alice.Password) + "&pad=" + strings.Repeat("x", 100<<10)
	resp, err := http.Post(env.URL+"/login", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 || len(resp.Cookies()) != 0 {
		t.Errorf("a 100 KiB login form: status %d, cookies %v; want it refused with no session", resp.StatusCode, resp.Cookies())
	}
	if h := env.API.Get("/healthz"); h.Status != http.StatusOK {
		t.Errorf("server stopped serving")
	}
}
