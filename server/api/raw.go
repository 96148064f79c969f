package api

import (
	"io"
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
	// A pinned version on a public blob store is answered by a redirect
	// there (--blobs-public-url; the domain says when).
	if loc, ok := s.svc.DocumentRedirect(v, pinned); ok {
		h := c.Writer.Header()
		h["Etag"] = newRawHeaders(v).etag()
		h["Cache-Control"] = noCacheValue
		h.Set("Location", loc)
		if c.Request.Method != http.MethodHead {
			s.svc.CountDownload(v)
		}
		c.Status(http.StatusTemporaryRedirect)
		return
	}
	// A document on the blob store is opened, and checked against its
	// name, before any header goes out: a missing or damaged blob is a 500
	// like any other fault, never a 200 with the wrong bytes.
	var blob io.ReadSeekCloser
	if registry.InBlobStore(v) && !(c.Request.Method == http.MethodHead) {
		if blob, err = s.svc.OpenDocument(c, v); err != nil {
			s.shared.Fail(c, err)
			return
		}
		defer blob.Close()
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
		if blob != nil {
			sendBlob(c, blob)
			return
		}
		c.Writer.Write(v.Content)
	}
}

// sendBlob writes the body of a raw answer whose headers are set. The
// bytes go to the connection's own writer, whose ReadFrom sends an
// *os.File (the directory engine's) with sendfile: gin's writer has no
// ReadFrom, and would copy every byte through a buffer. It is
// http.ServeContent's copy without its Range, Last-Modified and
// Accept-Ranges, which the raw path's contract does not have.
func sendBlob(c *gin.Context, blob io.Reader) {
	c.Writer.WriteHeaderNow()
	var w http.ResponseWriter = c.Writer
	for {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	io.Copy(w, blob)
}

// Header values the raw path sets on every answer, made once: a header
// map holds []string, and net/http never changes a value in place.
var (
	markdownValue = []string{"text/markdown; charset=utf-8"}
	nosniffValue  = []string{"nosniff"}
	// noCacheValue keeps a redirect from being reused unasked: the next
	// request sees a yank, which is not redirected.
	noCacheValue = []string{"no-cache"}
)
