package registry

import (
	"errors"
	"fmt"
)

// Code classifies an Error. Exactly one place in the server maps codes to
// HTTP statuses; everything below HTTP speaks only in codes.
type Code string

const (
	Invalid      Code = "invalid"      // 400
	Unauthorized Code = "unauthorized" // 401
	Forbidden    Code = "forbidden"    // 403
	NotFound     Code = "not_found"    // 404
	Conflict     Code = "conflict"     // 409
	TooLarge     Code = "too_large"    // 413
	RateLimited  Code = "rate_limited" // 429
	Internal     Code = "internal"     // 500
	Unavailable  Code = "unavailable"  // 503
	// InsufficientStorage: the database is out of disk space; nothing was
	// written, and the same request succeeds once space is freed.
	InsufficientStorage Code = "insufficient_storage" // 507
)

// Error is the one error type of pact. Message is safe to show to users: it
// never holds SQL, stack traces or secrets.
type Error struct {
	Code    Code
	Message string
	// Reason is a short stable label for metrics, e.g. "nonce_reused";
	// empty for most errors.
	Reason string
	// Public says the answer carries Reason as its code, for clients that
	// act on it without reading the message (the device login's, as RFC
	// 8628 names them).
	Public bool
}

func (e *Error) Error() string { return e.Message }

// Errorf builds an *Error with a formatted user-facing message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, Internal for errors that are not *Error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err == nil {
		return ""
	}
	return Internal
}

// ErrorMessage returns the user-facing message of err. Errors that are not
// *Error are internal: their text may hold SQL or paths, so it is hidden.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// ErrorReason returns the Reason of err, "" when it has none.
func ErrorReason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// PublicReason returns the Reason of err when the answer carries it
// (Error.Public), "" otherwise.
func PublicReason(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Public {
		return e.Reason
	}
	return ""
}

// IsCode reports whether err carries code.
func IsCode(err error, code Code) bool { return ErrorCode(err) == code }

// Errors the stores return so the domain and tests can recognise them.
var (
	// ErrStoreUnreachable is the fault of a store that cannot reach its
	// database (a connection refused or lost, a server shutting down): it
	// says so once when the outage starts, so callers need not log it for
	// every request it fails.
	ErrStoreUnreachable = &Error{Code: Unavailable, Message: "the database is unavailable"}
	ErrNonceReused      = &Error{Code: Invalid, Message: "nonce was already used with this key", Reason: "nonce_reused"}
)

// VersionConflict is returned when a version exists with different content.
func VersionConflict(owner, pack, version string) *Error {
	return Errorf(Conflict, "version %s of %s/%s already exists with different content", version, owner, pack)
}
