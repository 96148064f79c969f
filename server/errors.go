package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// statusOf is the one mapping from error codes to HTTP statuses: the
// registry's codes, and the few codes only HTTP knows of (httpError).
var statusOf = map[registry.Code]int{
	registry.Invalid:             http.StatusBadRequest,
	registry.Unauthorized:        http.StatusUnauthorized,
	registry.Forbidden:           http.StatusForbidden,
	registry.NotFound:            http.StatusNotFound,
	methodNotAllowed:             http.StatusMethodNotAllowed,
	registry.Conflict:            http.StatusConflict,
	registry.TooLarge:            http.StatusRequestEntityTooLarge,
	unsupportedMedia:             http.StatusUnsupportedMediaType,
	registry.RateLimited:         http.StatusTooManyRequests,
	registry.Internal:            http.StatusInternalServerError,
	registry.Unavailable:         http.StatusServiceUnavailable,
	registry.InsufficientStorage: http.StatusInsufficientStorage,
}

// Codes of answers the domain never gives: they are about the request's
// HTTP form, not about what it asks for.
const (
	methodNotAllowed registry.Code = "method_not_allowed"
	unsupportedMedia registry.Code = "unsupported_media"
)

// httpError is an error of the request's HTTP form (a method a route does
// not take, a body of a media type it does not read).
type httpError struct {
	code    registry.Code
	message string
}

func (e *httpError) Error() string { return e.message }

func httpErrorf(code registry.Code, format string, args ...any) error {
	return &httpError{code: code, message: fmt.Sprintf(format, args...)}
}

// errorCode is the code of err, of the registry or of HTTP.
func errorCode(err error) registry.Code {
	var h *httpError
	if errors.As(err, &h) {
		return h.code
	}
	return registry.ErrorCode(err)
}

// errorMessage is err's message as users may see it.
func errorMessage(err error) string {
	var h *httpError
	if errors.As(err, &h) {
		return h.message
	}
	return registry.ErrorMessage(err)
}

// errorBody is the error object of the interface: {ok:false, error}.
type errorBody struct {
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// HTTPStatus returns the status that answers err.
func HTTPStatus(err error) int {
	if st, ok := statusOf[errorCode(err)]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// fail answers a request with the error object. Internal errors are logged
// with their real text and answered with a generic message.
func (s *Server) fail(c *gin.Context, err error) {
	status := HTTPStatus(err)
	if status >= 500 {
		s.logger(c).Error("request failed", "method", c.Request.Method, "path", c.Request.URL.Path,
			"status", status, "error", err.Error())
	}
	setRetryAfter(c, err)
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="pact"`)
	}
	c.AbortWithStatusJSON(status, errorBody{OK: false, Error: errorMessage(err)})
}
