package httpx

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// JSON answers carry exactly the bytes gin's c.JSON wrote before (the wire
// format is a contract), with a Content-Length, for GET and HEAD alike.
func TestJSONWritesWhatGinWrote(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	values := []any{
		map[string]any{"ok": true},
		map[string]any{"html": "<script>&</script>", "sep": "a\u2028b\u2029c", "bad": "\xff", "quote": `"\`},
		map[string]any{"packages": strings.Split(strings.Repeat("pack,", 5000), ",")}, // past the pool's bound
	}
	for i, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			for round := range 2 { // the second round reuses a pooled buffer
				w := httptest.NewRecorder()
				c, _ := gin.CreateTestContext(w)
				c.Request = httptest.NewRequest(method, "/", nil)
				JSON(c, http.StatusCreated, v)
				if w.Code != http.StatusCreated {
					t.Fatalf("value %d %s: status %d", i, method, w.Code)
				}
				if got := w.Header().Get("Content-Type"); got != "application/json; charset=utf-8" {
					t.Errorf("value %d: Content-Type %q", i, got)
				}
				if got := w.Header().Get("Content-Length"); got != strconv.Itoa(len(want)) {
					t.Errorf("value %d %s round %d: Content-Length %s, want %d", i, method, round, got, len(want))
				}
				body := w.Body.String()
				if method == http.MethodHead {
					if body != "" {
						t.Errorf("value %d: HEAD answered a body", i)
					}
					continue
				}
				if body != string(want) {
					t.Errorf("value %d round %d: body\n%.200s\nwant\n%.200s", i, round, body, want)
				}
			}
		}
	}
}
