package server

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/registry"
)

// statusOf is the one mapping from registry error codes to HTTP statuses.
var statusOf = map[registry.Code]int{
	registry.Invalid:             http.StatusBadRequest,
	registry.Unauthorized:        http.StatusUnauthorized,
	registry.Forbidden:           http.StatusForbidden,
	registry.NotFound:            http.StatusNotFound,
	registry.MethodNotAllowed:    http.StatusMethodNotAllowed,
	registry.Conflict:            http.StatusConflict,
	registry.TooLarge:            http.StatusRequestEntityTooLarge,
	registry.UnsupportedMedia:    http.StatusUnsupportedMediaType,
	registry.RateLimited:         http.StatusTooManyRequests,
	registry.Internal:            http.StatusInternalServerError,
	registry.Unavailable:         http.StatusServiceUnavailable,
	registry.InsufficientStorage: http.StatusInsufficientStorage,
}

// HTTPStatus returns the status that answers err.
func HTTPStatus(err error) int {
	if st, ok := statusOf[registry.ErrorCode(err)]; ok {
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
	c.AbortWithStatusJSON(status, wire.Error{OK: false, Error: registry.ErrorMessage(err)})
}
