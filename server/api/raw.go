package api

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
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
	v, err := s.svc.RawDocument(c, owner, pack, version)
	if err != nil {
		s.shared.Fail(c, err)
		return
	}
	etag := newRawHeaders(v)
	h := c.Writer.Header()
	h["Etag"] = etag.etag()
	if pinned {
		h["Cache-Control"] = cachePinnedValue
	} else {
		h["Cache-Control"] = cacheLatestValue
	}
	markYanked(h, v)
	if inm := c.Request.Header["If-None-Match"]; len(inm) > 0 && etagMatches(strings.Join(inm, ","), etag.value[0]) {
		c.Status(http.StatusNotModified)
		return
	}
	h["Content-Type"] = markdownValue
	h["Content-Length"] = etag.length()
	h["X-Content-Type-Options"] = nosniffValue
	c.Status(http.StatusOK)
	if c.Request.Method != http.MethodHead {
		// A download: a GET answered with the document (docs/protocol.md,
		// Download counts); neither HEAD nor a 304 above counts. Counted
		// before the body goes out, so that a client that has read it
		// knows it is counted (a flush after that includes it).
		s.svc.CountDownload(v)
		c.Writer.Write(v.Content)
	}
}

// Header values the raw path sets on every answer, made once: a header
// map holds []string, and net/http never changes a value in place.
var (
	markdownValue = []string{"text/markdown; charset=utf-8"}
	nosniffValue  = []string{"nosniff"}
)
