package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

const (
	cacheLatest = "public, max-age=60"
	cachePinned = "public, max-age=31536000, immutable"
)

// raw serves /raw/{owner}/{pack}.pact.md (the latest version) and
// /raw/{owner}/{pack}@{version}.pact.md (one immutable version);
// @latest is the latest version, cached as such.
func (s *Server) raw(c *gin.Context) {
	owner := c.Param("owner")
	file := c.Param("file")
	base, ok := strings.CutSuffix(file, ".pact.md")
	if !ok || base == "" {
		s.shared.Fail(c, registry.Errorf(registry.NotFound, "no such document: raw paths end in .pact.md"))
		return
	}
	pack, version, pinned := strings.Cut(base, "@")
	if pinned && version == "" {
		s.shared.Fail(c, registry.Errorf(registry.NotFound, "no such document: empty version after @"))
		return
	}
	if registry.IsLatestAlias(version) {
		version, pinned = "", false
	}
	v, err := s.svc.Document(c, owner, pack, version)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	etag := `"` + v.SHA256 + `"`
	h := c.Writer.Header()
	h.Set("ETag", etag)
	if pinned {
		h.Set("Cache-Control", cachePinned)
	} else {
		h.Set("Cache-Control", cacheLatest)
	}
	markYanked(h, v)
	if etagMatches(c.GetHeader("If-None-Match"), etag) {
		c.Status(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "text/markdown; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(v.Content)))
	h.Set("X-Content-Type-Options", "nosniff")
	c.Status(http.StatusOK)
	if c.Request.Method != http.MethodHead {
		_, _ = c.Writer.Write(v.Content)
	}
}

// etagMatches implements If-None-Match's weak comparison (RFC 9110 §13.1.2).
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, candidate := range strings.Split(header, ",") {
		candidate = strings.TrimSpace(candidate)
		if candidate == "*" || strings.TrimPrefix(candidate, "W/") == etag {
			return true
		}
	}
	return false
}
