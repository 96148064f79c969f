package api

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/pact-registry/pact/server/registry"
)

// Caching headers: every Cache-Control value the API and the log send, and
// the raw documents' ETags (docs/protocol.md, Raw documents and Tree,
// checkpoints and tiles). The pages set theirs in server/web.

const (
	// cacheLatest: a latest version may change with the next publish.
	cacheLatest = "public, max-age=60"
	// cachePinned: a version, or a full log tile, never changes.
	cachePinned = "public, max-age=31536000, immutable"
	// cacheCheckpoint: a client asks for the newest checkpoint each time.
	cacheCheckpoint = "no-cache"
	// cachePartialTile: a partial tile is replaced by a wider one as the
	// log grows.
	cachePartialTile = "public, max-age=60"
	// cacheSecret: an answer that holds a secret (a device login's codes
	// and token) is kept nowhere, as RFC 6749 (section 5.1) asks.
	cacheSecret = "no-store"
)

// The raw path's Cache-Control values, made once: a header map holds
// []string, and net/http never changes a value in place.
var (
	cacheLatestValue = []string{cacheLatest}
	cachePinnedValue = []string{cachePinned}
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
	size := int64(len(v.Content))
	if registry.InBlobStore(v) {
		size = v.Size
	}
	b = strconv.AppendInt(b, size, 10)
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
