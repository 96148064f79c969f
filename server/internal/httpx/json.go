package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
)

// jsonBuffers hold the encoding of one answer while it is made. An answer
// used to be encoded by json.Marshal, whose buffer grows by doubling: a
// page of 20 packages (13 KB) allocated about 30 KB before it was
// written. Buffers that grew past maxPooledJSON are left to the collector,
// so one large answer does not stay resident.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledJSON = 256 << 10

var jsonContentType = []string{"application/json; charset=utf-8"}

// JSON writes v as the answer, byte for byte what gin's c.JSON writes
// (encoding/json, HTML characters escaped), with a Content-Length, so a
// large answer goes out in one piece rather than chunked.
func JSON(c *gin.Context, status int, v any) {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledJSON {
			jsonBuffers.Put(buf)
		}
	}()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		// Only a value encoding/json cannot encode gets here: a bug.
		_ = c.Error(err)
		c.AbortWithStatus(http.StatusInternalServerError)
		return
	}
	writeJSONBody(c, status, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})) // Encode ends with a newline, Marshal does not
}

// writeJSONBody answers body, JSON, with its length (no body for HEAD),
// compressed for clients that accept gzip when it is large (gzip.go).
func writeJSONBody(c *gin.Context, status int, body []byte) {
	WriteBody(c, status, jsonContentType, body, true)
}

// JSONContentType is the Content-Type of JSON answers.
func JSONContentType() []string { return jsonContentType }

// appendBuffers are JSONBytes's buffers, bounded as jsonBuffers are.
var appendBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// JSONBytes writes the JSON that appendTo appends to an empty slice as the
// answer, as JSON does, for answers encoded by hand (their tests compare
// them with encoding/json's bytes).
func JSONBytes(c *gin.Context, status int, appendTo func([]byte) []byte) {
	bp := appendBuffers.Get().(*[]byte)
	body := appendTo((*bp)[:0])
	writeJSONBody(c, status, body)
	if cap(body) <= maxPooledJSON {
		*bp = body[:0] // the grown array serves the next answer
		appendBuffers.Put(bp)
	}
}
