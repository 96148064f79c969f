package httpx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/registry"
)

// statusOf is the one mapping from error codes to HTTP statuses, for the
// API and the pages alike: the registry's codes, and the few codes only
// HTTP knows of.
var statusOf = map[registry.Code]int{
	registry.Invalid:             http.StatusBadRequest,
	registry.Unauthorized:        http.StatusUnauthorized,
	registry.Forbidden:           http.StatusForbidden,
	registry.NotFound:            http.StatusNotFound,
	MethodNotAllowed:             http.StatusMethodNotAllowed,
	registry.Conflict:            http.StatusConflict,
	registry.TooLarge:            http.StatusRequestEntityTooLarge,
	UnsupportedMedia:             http.StatusUnsupportedMediaType,
	registry.RateLimited:         http.StatusTooManyRequests,
	registry.Internal:            http.StatusInternalServerError,
	registry.Unavailable:         http.StatusServiceUnavailable,
	registry.InsufficientStorage: http.StatusInsufficientStorage,
}

// Codes of answers the domain never gives: they are about the request's
// HTTP form, not about what it asks for.
const (
	MethodNotAllowed registry.Code = "method_not_allowed"
	UnsupportedMedia registry.Code = "unsupported_media"
)

// httpError is an error of the request's HTTP form (a method a route does
// not take, a body of a media type it does not read).
type httpError struct {
	code    registry.Code
	message string
}

func (e *httpError) Error() string { return e.message }

// Errorf makes an error of the request's HTTP form, with one of the codes
// above and a message users may see.
func Errorf(code registry.Code, format string, args ...any) error {
	return &httpError{code: code, message: fmt.Sprintf(format, args...)}
}

// Code is the code of err, of the registry or of HTTP.
func Code(err error) registry.Code {
	var h *httpError
	if errors.As(err, &h) {
		return h.code
	}
	return registry.ErrorCode(err)
}

// Message is err's message as users may see it.
func Message(err error) string {
	var h *httpError
	if errors.As(err, &h) {
		return h.message
	}
	return registry.ErrorMessage(err)
}

// Status returns the status that answers err.
func Status(err error) int {
	if st, ok := statusOf[Code(err)]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// StatusClientClosedRequest is the status the request log and metrics
// give a request whose client hung up before its answer.
const StatusClientClosedRequest = 499

// Fail answers a request with the error object. Internal errors are logged
// with their real text and answered with a generic message.
func (sh *Shared) Fail(c *gin.Context, err error) {
	if errors.Is(err, context.Canceled) && c.Request.Context().Err() != nil {
		// The client hung up, which cancelled the work: nobody reads this
		// answer, and nothing failed on the server's side. The request log
		// and metrics say 499 (nginx's "client closed request"), and no
		// error line is logged (docs/operations.md, Logs).
		c.AbortWithStatus(StatusClientClosedRequest)
		return
	}
	status := Status(err)
	sh.LogFailure(c, "request failed", status, err)
	SetRetryAfter(c, err)
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="pact"`)
	}
	c.AbortWithStatusJSON(status, wire.Error{OK: false, Error: Message(err), Code: registry.PublicReason(err)})
}

// LogFailure logs a request that failed on the server's side (status 500
// and above) with its real error. A database that cannot be reached is
// logged by the store once per outage, with its cause, so each request
// it fails is logged at debug only (docs/operations.md, Logs).
func (sh *Shared) LogFailure(c *gin.Context, msg string, status int, err error) {
	if status < 500 {
		return
	}
	level := slog.LevelError
	if errors.Is(err, registry.ErrStoreUnreachable) {
		level = slog.LevelDebug
	}
	sh.Logger(c).Log(c, level, msg, "method", c.Request.Method, "path", c.Request.URL.Path, "status", status, "error", err.Error())
}
