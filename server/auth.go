package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

const (
	accountKey = "pact.account"
	tokenKey   = "pact.token"
)

// requireToken is the one auth middleware of the token routes. It accepts
// "Authorization: Bearer <token>" and "X-Pact-Token: <token>" alike.
func (s *Server) requireToken(c *gin.Context) {
	secret := tokenFromRequest(c)
	if secret == "" {
		s.shared.Fail(c, registry.Errorf(registry.Unauthorized,
			"missing API token: send Authorization: Bearer <token> or X-Pact-Token: <token>"))
		return
	}
	acct, token, err := s.svc.AuthenticateToken(c, secret)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	if ok, after := s.limitToken.allow(strconv.FormatInt(token.ID, 10), time.Now()); !ok {
		s.shared.Fail(c, httpx.TooManyRequests("with this token", after))
		return
	}
	c.Set(accountKey, acct)
	c.Set(tokenKey, token)
	c.Next()
}

func tokenFromRequest(c *gin.Context) string {
	if h := c.GetHeader("Authorization"); h != "" {
		scheme, value, ok := strings.Cut(strings.TrimSpace(h), " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(value)
		}
	}
	return strings.TrimSpace(c.GetHeader("X-Pact-Token"))
}

// account is the account requireToken authenticated.
func account(c *gin.Context) *registry.Account {
	return c.MustGet(accountKey).(*registry.Account)
}

// apiToken is the token requireToken authenticated, whose scopes
// requireScope checks.
func apiToken(c *gin.Context) *registry.Token {
	return c.MustGet(tokenKey).(*registry.Token)
}

// requireScope is the one check of a token's scopes (docs/protocol.md,
// Token scopes), for routes behind requireToken: 403 naming the scope the
// token lacks, or the pack when the route has a :pack outside the token's
// packages. A publish names its pack only in the document, so the
// registry checks that pack once the document is parsed.
func (s *Server) requireScope(scope registry.Scope) gin.HandlerFunc {
	return func(c *gin.Context) {
		holder := ""
		if a, ok := c.Get(accountKey); ok {
			holder = a.(*registry.Account).Username
		}
		if err := apiToken(c).AuthorizeIn(scope, holder, c.Param("owner"), c.Param("pack")); err != nil {
			s.shared.Fail(c, err)
			return
		}
		c.Next()
	}
}
