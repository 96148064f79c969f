package api

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

const (
	accountKey = "pact.account"
	tokenKey   = "pact.token"
)

// gate is the first handler of every API route: it finds the route's row
// in the domain's authority table (registry.Routes) and lets the request
// on only as the row's rule says (registry.Permit), so no route decides
// who may use it. A route without a row is refused, and the every-route
// test names it. An API route first passes the per-address limit (a /log route its own), so
// floods of bad tokens are limited too; a route that needs a token then
// authenticates it ("Authorization: Bearer <token>" or "X-Pact-Token:
// <token>") and passes the per-token limit.
func (s *Server) gate(c *gin.Context) {
	path := c.FullPath()
	if path == "" { // no route: the 404 and 405 answers
		c.Next()
		return
	}
	op, ok := registry.RouteOp(c.Request.Method, path)
	if !ok {
		s.shared.Fail(c, fmt.Errorf("route %s %s has no row in the authority table (registry.Routes)", c.Request.Method, path))
		return
	}
	if api, log := strings.HasPrefix(path, "/api/"), strings.HasPrefix(path, "/log/"); api || log {
		limit := s.limitIP
		if log {
			limit = s.limitLog
		}
		if ok, after := limit.allow(httpx.AddressKey(c.ClientIP()), s.svc.Now()); !ok {
			s.shared.Fail(c, httpx.TooManyRequests("from this address", after))
			return
		}
	}
	if rule, _ := registry.RuleOf(op); rule.Reach == registry.ReachPublic {
		c.Next()
		return
	}
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
	if ok, after := s.limitToken.allow(strconv.FormatInt(token.ID, 10), s.svc.Now()); !ok {
		s.shared.Fail(c, httpx.TooManyRequests("with this token", after))
		return
	}
	if err := registry.Permit(token, op, acct.Username, c.Param("owner"), c.Param("pack")); err != nil {
		s.shared.Fail(c, err)
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

// account is the account gate authenticated.
func account(c *gin.Context) *registry.Account {
	return c.MustGet(accountKey).(*registry.Account)
}

// apiToken is the token gate authenticated.
func apiToken(c *gin.Context) *registry.Token {
	return c.MustGet(tokenKey).(*registry.Token)
}
