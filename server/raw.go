package server

import (
	"net/http"
	"strconv"
	"strings"
	"unsafe"

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
		_, _ = c.Writer.Write(v.Content)
	}
}

// Header values the raw path sets on every answer, made once: a header
// map holds []string, and net/http never changes a value in place.
var (
	cacheLatestValue = []string{cacheLatest}
	cachePinnedValue = []string{cachePinned}
	markdownValue    = []string{"text/markdown; charset=utf-8"}
	nosniffValue     = []string{"nosniff"}
)

// rawHeaders are a document's ETag and Content-Length values, made in one
// allocation: the raw path is the hottest, and was the one allocating most.
type rawHeaders struct {
	value [2]string
	buf   [2 + 64 + 20]byte
}

func newRawHeaders(v *registry.Version) *rawHeaders {
	r := new(rawHeaders)
	b := append(r.buf[:0], '"')
	b = append(b, v.SHA256...)
	b = append(b, '"')
	n := len(b)
	b = strconv.AppendInt(b, int64(len(v.Content)), 10)
	if len(b) > len(r.buf) { // a SHA-256 longer than 64 characters is not one
		r.value[0], r.value[1] = string(b[:n]), string(b[n:])
		return r
	}
	// buf is never written again, so the strings are immutable as Go
	// requires.
	s := unsafe.String(&r.buf[0], len(b))
	r.value[0], r.value[1] = s[:n], s[n:]
	return r
}

func (r *rawHeaders) etag() []string   { return r.value[0:1:1] }
func (r *rawHeaders) length() []string { return r.value[1:2:2] }

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
