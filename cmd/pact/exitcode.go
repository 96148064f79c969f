package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/pact-registry/pact/pkg/client"
)

// Exit codes of pact, for scripts (docs/protocol.md, The pact CLI).
const (
	exitOK       = 0
	exitError    = 1 // anything else: local failures, network, server faults
	exitUsage    = 2 // bad flags or arguments
	exitAuth     = 3 // the server refused the credentials (401)
	exitNotFound = 4 // the server has no such thing (404)
	exitRejected = 5 // the server refused the request (other 4xx)
	exitVerify   = 6 // what the registry served does not verify against its transparency log
)

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// silentError carries an exit code for a failure the command has already
// reported in detail (validate lists every invalid file).
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitStatus is the one place that turns an error into an exit code and the
// message shown to the user. Messages never carry the token: the client
// never puts it in an error, and mainRun redacts it as a last guard.
func exitStatus(err error) (code int, message string) {
	var usage *usageError
	var silent *silentError
	var apiErr *client.APIError
	var urlErr *url.Error
	var verifyErr *client.VerificationError
	switch {
	case err == nil:
		return exitOK, ""
	case errors.As(err, &silent):
		return silent.code, ""
	case errors.As(err, &usage):
		return exitUsage, usage.msg
	case errors.As(err, &verifyErr):
		return exitVerify, err.Error()
	case errors.Is(err, context.Canceled):
		return exitError, "interrupted"
	case errors.As(err, &apiErr):
		switch {
		case apiErr.StatusCode == http.StatusUnauthorized:
			// Keep the context the error was wrapped in (which file, say).
			msg := strings.Replace(err.Error(), apiErr.Error(), "authentication failed: "+apiErr.Message, 1)
			return exitAuth, msg + "; run 'pact login' or set PACT_TOKEN"
		case apiErr.StatusCode == http.StatusNotFound:
			return exitNotFound, err.Error()
		case apiErr.StatusCode >= 400 && apiErr.StatusCode < 500:
			return exitRejected, err.Error()
		default:
			return exitError, err.Error()
		}
	case errors.As(err, &urlErr):
		return exitError, fmt.Sprintf("cannot reach the registry (%s %s): %v", urlErr.Op, urlErr.URL, urlErr.Err)
	default:
		return exitError, err.Error()
	}
}
