package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// requireScope checks the :pack of a route against the token's packages,
// as it will on the yank, un-yank and deprecate routes
// (docs/protocol.md, Token scopes).
func TestRequireScopeChecksTheRoutesPack(t *testing.T) {
	s := &Server{shared: httpx.NewShared(slog.New(slog.NewTextHandler(io.Discard, nil)), "http://pact.test", nil, 0, 0)}
	e := s.shared.NewEngine()
	var token *registry.Token
	withToken := func(c *gin.Context) {
		c.Set(tokenKey, token)
		c.Set(accountKey, &registry.Account{Username: "alice"})
		c.Next()
	}
	e.POST("/api/packages/:owner/:pack/deprecate", withToken, s.requireScope(registry.ScopeYank), func(c *gin.Context) {
		c.String(http.StatusOK, "deprecated")
	})
	cases := []struct {
		name   string
		token  *registry.Token
		pack   string
		status int
		msg    string
	}{
		{"full power", &registry.Token{}, "anything", 200, "deprecated"},
		{"yank on a matching pack", &registry.Token{Scopes: []registry.Scope{registry.ScopeYank}, Packages: []string{"widget-*"}}, "widget-a", 200, "deprecated"},
		{"yank on another pack", &registry.Token{Scopes: []registry.Scope{registry.ScopeYank}, Packages: []string{"widget-*"}}, "other", 403, `\"other\" is not one of them`},
		{"publish only", &registry.Token{Scopes: []registry.Scope{registry.ScopePublish}}, "widget-a", 403, `lacks the \"yank\" scope`},
		// An organisation's pack matches only org/ globs (docs/protocol.md, Token scopes).
		{"an organisation's pack", &registry.Token{Scopes: []registry.Scope{registry.ScopeYank}, Packages: []string{"acme/widget-*"}}, "acme/widget-a", 200, "deprecated"},
		{"an organisation's pack by a glob of one's own", &registry.Token{Scopes: []registry.Scope{registry.ScopeYank}, Packages: []string{"widget-*"}}, "acme/widget-a", 403, `\"acme/widget-a\" is not one of them`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			token = c.token
			w := httptest.NewRecorder()
			path := "alice/" + c.pack
			if strings.Contains(c.pack, "/") {
				path = c.pack // owner/pack
			}
			e.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/api/packages/"+path+"/deprecate", nil))
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.msg) {
				t.Errorf("status %d, body %s; want %d mentioning %s", w.Code, w.Body, c.status, c.msg)
			}
		})
	}
}
