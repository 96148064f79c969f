package httpx

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pact-registry/pact/server/registry"
)

// retryError is an error answered with a Retry-After header.
type retryError struct {
	err   *registry.Error
	after time.Duration
}

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

// RetryLater wraps err so that its answer says when to try again.
func RetryLater(err *registry.Error, after time.Duration) error {
	return &retryError{err: err, after: after}
}

// TooManyRequests is the answer to a client over a rate limit; what names
// the limit ("from this address").
func TooManyRequests(what string, after time.Duration) error {
	return RetryLater(registry.Errorf(registry.RateLimited, "too many requests %s: retry later", what), after)
}

// UnavailableRetryAfter is when to retry after a 503 that gave no time of
// its own: the database does not answer (or an OpenID issuer does not), and
// a client that comes back at once only adds to the load of a recovery.
const UnavailableRetryAfter = 5 * time.Second

// RetryAfterSeconds is the Retry-After value for err, 0 when it has none:
// its own, or UnavailableRetryAfter for every other 503.
func RetryAfterSeconds(err error) int {
	var r *retryError
	if errors.As(err, &r) {
		return max(1, int(math.Ceil(r.after.Seconds())))
	}
	if Code(err) == registry.Unavailable {
		return int(UnavailableRetryAfter / time.Second)
	}
	return 0
}

// SetRetryAfter adds Retry-After to the answer of err when it has one.
func SetRetryAfter(c *gin.Context, err error) {
	if secs := RetryAfterSeconds(err); secs > 0 {
		c.Header("Retry-After", strconv.Itoa(secs))
	}
}
