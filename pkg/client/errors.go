package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/pact-registry/pact/pkg/wire"
)

// APIError is a response of the server with a status of 400 or more.
type APIError struct {
	StatusCode int
	// Message is the server's {"ok":false,"error":...} text, or the status
	// text when the body was not such an object.
	Message string
	// Code is the answer's code, on the few refusals a client acts on
	// without reading Message (wire.Error.Code): a device login's poll.
	// Empty on every other error.
	Code string
	// Method and Path name the request answered (Path without the query),
	// BaseURL the registry it went to (Client.BaseURL); empty for errors
	// built by hand.
	Method  string
	Path    string
	BaseURL string
}

// Error is the server's message alone, as a user reads it; Detail adds
// the status and the request for debugging.
func (e *APIError) Error() string {
	return e.Message
}

// Detail names the status and the request, e.g. "HTTP 409 from POST /api/publish".
func (e *APIError) Detail() string {
	if e.Method == "" {
		return fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("HTTP %d from %s %s", e.StatusCode, e.Method, e.Path)
}

// StatusCode returns the HTTP status of an *APIError in err's chain, or 0.
func StatusCode(err error) int {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is a 404 answer.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsUnauthorized reports whether err is a 401 answer.
func IsUnauthorized(err error) bool { return StatusCode(err) == http.StatusUnauthorized }

// newAPIError builds the error for a failed response from its body.
func newAPIError(status int, body []byte) *APIError {
	var envelope wire.Error
	if json.Unmarshal(body, &envelope) == nil && envelope.Error != "" {
		return &APIError{StatusCode: status, Message: envelope.Error, Code: envelope.Code}
	}
	msg := http.StatusText(status)
	if msg == "" {
		msg = "unexpected status"
	}
	return &APIError{StatusCode: status, Message: strings.ToLower(msg)}
}

// TooLargeError is an answer longer than the bound the client sets for its
// route (the log's checkpoint, tiles, entry bundles).
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the answer of GET %s is larger than %d bytes", e.Path, e.Limit)
}

// PlainHTTPError is an https:// address whose server answered in plain
// HTTP: it wants the http:// address, which no retry changes.
type PlainHTTPError struct {
	// Host is the host[:port] that answered; HTTPAddress is the client's
	// address with http:// for https://.
	Host, HTTPAddress string
	// Err is the failed request (a *url.Error).
	Err error
}

func (e *PlainHTTPError) Error() string {
	return fmt.Sprintf("%s answers in plain HTTP, not HTTPS: use %s", e.Host, e.HTTPAddress)
}

func (e *PlainHTTPError) Unwrap() error { return e.Err }

// NotRegistryError is an answer to a route of pact's API that no pact
// registry gives: a refusal without the {"ok":false,"error":...} body, or a
// success that is not JSON. The host answers, but it is something else (a
// web site, another service), so its "not found" says nothing of the
// package or file asked about.
type NotRegistryError struct {
	// Address is the client's address without its scheme: host[:port]
	// and the path prefix, if any ("example.com/pact").
	Address      string
	Method, Path string
	StatusCode   int
	// ContentType is the answer's media type, "" when it named none.
	ContentType string
}

func (e *NotRegistryError) Error() string {
	answer := strconv.Itoa(e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		answer += " " + text
	}
	if e.ContentType != "" {
		answer += " (" + e.ContentType + ")"
	}
	return fmt.Sprintf("%s does not look like a pact registry: it answered %s %s with %s, not pact's JSON",
		e.Address, e.Method, e.Path, answer)
}

// isErrorEnvelope reports whether body is pact's {"ok":false,"error":...}.
func isErrorEnvelope(body []byte) bool {
	var envelope wire.Error
	return json.Unmarshal(body, &envelope) == nil && envelope.Error != ""
}
