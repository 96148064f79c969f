package httpx

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// Compression of answers (docs/protocol.md, Compression): JSON answers
// over MinGzipBytes, and the log's entry bundles, go out gzip-compressed
// to a client that accepts gzip, with Vary: Accept-Encoding so that caches
// keep the two forms apart. Compressing is done whole, into a buffer, so
// the answer keeps its Content-Length (the compressed one) and HEAD
// answers the length GET would send. The raw documents are never
// compressed: they are the hot path, and small.

// MinGzipBytes is the size above which an answer is compressed: below it,
// gzip's header and trailer (18 bytes) and the work outweigh what is saved.
const MinGzipBytes = 1 << 10

// gzipLevel is nginx's default (gzip_comp_level 1): on JSON it keeps most
// of what the default level saves, for a fraction of its CPU.
const gzipLevel = gzip.BestSpeed

var (
	gzipWriters = sync.Pool{New: func() any {
		w, _ := gzip.NewWriterLevel(nil, gzipLevel)
		return w
	}}
	// gzipBuffers hold compressed answers while they are written, bounded
	// as jsonBuffers are.
	gzipBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

	gzipEncoding       = []string{"gzip"}
	varyAcceptEncoding = []string{"Accept-Encoding"}
)

// addVary says the answer depends on Accept-Encoding, without an
// allocation when it is the only Vary (as on every JSON answer).
func addVary(h http.Header) {
	if _, ok := h["Vary"]; ok {
		h.Add("Vary", varyAcceptEncoding[0])
		return
	}
	h["Vary"] = varyAcceptEncoding
}

// AcceptsGzip reports whether r's Accept-Encoding accepts gzip: it names
// gzip (or x-gzip) with a q-value above 0, or, not naming it, * with one
// (RFC 9110, 12.5.3).
func AcceptsGzip(r *http.Request) bool {
	named, star := 0, 0 // 0: not sent; 1: refused (q=0); 2: accepted
	for _, v := range r.Header["Accept-Encoding"] {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(part, ";")
			verdict := 2
			if qZero(params) {
				verdict = 1
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				if named != 1 {
					named = verdict
				}
			case "*":
				star = verdict
			}
		}
	}
	if named != 0 {
		return named == 2
	}
	return star == 2
}

// qZero reports whether the parameters of an Accept-Encoding element give
// it q=0.
func qZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q <= 0
	}
	return false
}

// Gzip appends the gzip compression of body to dst.
func Gzip(dst, body []byte) []byte {
	buf := bytes.NewBuffer(dst)
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(buf)
	_, _ = zw.Write(body) // writing to a bytes.Buffer cannot fail
	_ = zw.Close()
	gzipWriters.Put(zw)
	return buf.Bytes()
}

// WriteBody answers body with contentType and its Content-Length (no body
// for HEAD), compressed when compressible is true, the body is over
// MinGzipBytes and the client accepts gzip; then it says Vary:
// Accept-Encoding whether or not this client's answer is compressed.
// Other headers (Cache-Control, ...) are the caller's, set before.
func WriteBody(c *gin.Context, status int, contentType []string, body []byte, compressible bool) {
	h := c.Writer.Header()
	h["Content-Type"] = contentType
	if compressible && len(body) > MinGzipBytes {
		addVary(h)
		if AcceptsGzip(c.Request) {
			bp := gzipBuffers.Get().(*[]byte)
			body = Gzip((*bp)[:0], body)
			defer func() {
				if cap(body) <= maxPooledJSON {
					*bp = body[:0]
					gzipBuffers.Put(bp)
				}
			}()
			h["Content-Encoding"] = gzipEncoding
		}
	}
	writeBody(c, h, status, body)
}

// WriteEncoded answers one of two forms of the same body, made ahead
// (a cached answer): gz, the gzip form, when the client accepts gzip and
// gz is not nil, plain otherwise. vary says the answer has two forms.
func WriteEncoded(c *gin.Context, status int, contentType []string, plain, gz []byte, vary bool) {
	h := c.Writer.Header()
	h["Content-Type"] = contentType
	body := plain
	if vary {
		addVary(h)
		if gz != nil && AcceptsGzip(c.Request) {
			body = gz
			h["Content-Encoding"] = gzipEncoding
		}
	}
	writeBody(c, h, status, body)
}

// writeBody sends body with its length; a HEAD gets the same headers and
// no body.
func writeBody(c *gin.Context, h http.Header, status int, body []byte) {
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	c.Status(status)
	if c.Request.Method == http.MethodHead {
		c.Writer.WriteHeaderNow()
		return
	}
	_, _ = c.Writer.Write(body)
}
