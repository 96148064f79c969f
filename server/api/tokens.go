package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// maxTokenBodyBytes bounds POST /api/tokens: a name, four scopes and
// twenty short globs fit in well under 4 KB.
const maxTokenBodyBytes = 16 << 10

func (s *Server) listTokens(c *gin.Context) {
	q := registry.TokenQuery{Cursor: c.Query("cursor")}
	if l, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > registry.MaxListLimit {
			s.shared.Fail(c, registry.Errorf(registry.Invalid, "limit must be a whole number between 1 and %d", registry.MaxListLimit))
			return
		}
		q.Limit = n
	}
	if all, ok := c.GetQuery("all"); ok {
		switch all {
		case "true":
			q.All = true
		case "false":
		default:
			s.shared.Fail(c, registry.Errorf(registry.Invalid, "all must be true or false"))
			return
		}
	}
	tokens, next, err := s.svc.ListTokens(c, account(c).ID, q)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	out := make([]wire.Token, len(tokens))
	for i := range tokens {
		out[i] = presentToken(&tokens[i])
	}
	var nextCursor *string
	if next != "" {
		nextCursor = &next
	}
	httpx.JSON(c, http.StatusOK, wire.TokenList{OK: true, Tokens: out, NextCursor: nextCursor})
}

func (s *Server) createToken(c *gin.Context) {
	body, err := s.decodeTokenRequest(c)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	spec := registry.TokenSpec{Name: deref(body.Name), ExpiresInDays: body.ExpiresInDays}
	if body.Scopes != nil {
		spec.Scopes = *body.Scopes
		if spec.Scopes == nil { // "scopes": [] decodes to an empty list, never nil
			spec.Scopes = []string{}
		}
	}
	if body.Packages != nil {
		spec.Packages = *body.Packages
		if spec.Packages == nil {
			spec.Packages = []string{}
		}
	}
	secret, t, err := s.svc.IssueToken(c, account(c).ID, apiToken(c), spec)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusCreated, presentCreatedToken(t, secret))
}

// decodeTokenRequest is decodeJSONBodyLimited that also refuses fields
// it does not know: a misspelt "scope" must not make a token of every
// scope.
func (s *Server) decodeTokenRequest(c *gin.Context) (wire.TokenRequest, error) {
	var body wire.TokenRequest
	if mt, _ := mediaType(c); mt != "application/json" {
		return body, httpx.Errorf(httpx.UnsupportedMedia, "Content-Type must be application/json")
	}
	release, err := s.reserveBody(c, maxTokenBodyBytes)
	if err != nil {
		return body, err
	}
	defer release()
	raw, err := readBody(c.Writer, c.Request, maxTokenBodyBytes)
	if err != nil {
		return body, err
	}
	if err := decodeJSON(raw, &body); err != nil {
		return body, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return body, jsonError(err)
	}
	for name := range fields {
		if !slices.ContainsFunc(wire.TokenRequestFields, func(f string) bool { return foldKey(f) == foldKey(name) }) {
			return body, registry.Errorf(registry.Invalid, "field %q is not known: a token request has name, scopes, packages and expires_in_days", name)
		}
	}
	return body, nil
}

func (s *Server) revokeToken(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		s.shared.Fail(c, registry.Errorf(registry.NotFound, "no token with id %q", c.Param("id")))
		return
	}
	if err := s.svc.RevokeToken(c, account(c).ID, id); err != nil {
		s.shared.Fail(c, err)
		return
	}
	httpx.JSON(c, http.StatusOK, wire.OK{OK: true})
}
