package httpx

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/internal/syncbuf"
)

// A client that hangs up while its request is being answered cancels the
// work under way (a database read, say). That is not a server error: the
// request is logged and counted as 499, without the ERROR line an operator
// is paged for. Work cancelled while the client is still there stays a 500.
func TestClientThatHangsUpIsNotAServerError(t *testing.T) {
	var logs, requests syncbuf.Buffer
	sh := NewShared(slog.New(slog.NewJSONHandler(&logs, nil)), "http://pact.invalid", nil, 1<<20, time.Second)
	sh.RequestLog = &requests
	e := sh.NewEngine()
	started, answered := make(chan struct{}), make(chan struct{})
	e.GET("/slow", func(c *gin.Context) {
		close(started)
		<-c.Request.Context().Done() // the read, cancelled with the request
		sh.Fail(c, fmt.Errorf("sqlstore: read version: %w", c.Request.Context().Err()))
		close(answered)
	})
	e.GET("/cancelled-inside", func(c *gin.Context) {
		sh.Fail(c, fmt.Errorf("sqlstore: read version: %w", context.Canceled))
	})
	ts := httptest.NewServer(e)
	defer ts.Close()

	ctx, hangUp := context.WithCancel(context.Background())
	go func() { <-started; hangUp() }()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the request was answered (%s) although the client hung up", resp.Status)
	}
	<-answered

	resp, err := http.Get(ts.URL + "/cancelled-inside")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("work cancelled with the client still there: %s, want 500", resp.Status)
	}

	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(requests.String(), `"path":"/slow"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if line := lineWith(requests.String(), `"path":"/slow"`); !strings.Contains(line, `"status":499`) {
		t.Errorf("request log for the hung-up request: %q, want status 499", line)
	}
	if strings.Contains(logs.String(), `"path":"/slow"`) {
		t.Errorf("the hung-up request was logged as an error:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `"path":"/cancelled-inside"`) {
		t.Errorf("work cancelled inside the server was not logged as an error:\n%s", logs.String())
	}
	rec := httptest.NewRecorder()
	sh.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if want := `pact_http_requests_total{method="GET",route="/slow",status="499"} 1`; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("metrics lack %s:\n%s", want, lineWith(rec.Body.String(), `route="/slow"`))
	}
}

func lineWith(text, part string) string {
	for line := range strings.Lines(text) {
		if strings.Contains(line, part) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}
