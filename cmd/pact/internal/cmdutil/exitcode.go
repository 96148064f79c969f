package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/pact-registry/pact/pkg/client"
)

// Exit codes of pact, for scripts (docs/protocol.md, The pact CLI).
const (
	ExitOK       = 0
	ExitError    = 1 // anything else: local failures, network, server faults
	ExitUsage    = 2 // bad flags or arguments
	ExitAuth     = 3 // the server refused the credentials (401)
	exitNotFound = 4 // the server has no such thing (404)
	exitRejected = 5 // the server refused the request (other 4xx)
	exitVerify   = 6 // what the registry served does not verify against its transparency log
)

// UsageError is a mistake in the command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func UsageErrorf(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// SilentError carries an exit code for a failure the command has already
// reported in detail (validate lists every invalid file).
// NotFoundError is a thing pact learnt does not exist without a 404 of its
// own (a version missing from a package's list): exit 4, with its words.
type NotFoundError struct{ Msg string }

func (e *NotFoundError) Error() string { return e.Msg }

type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitStatus is the one place that turns an error into an exit code and the
// message shown to the user. Messages never carry the token: the client
// never puts it in an error, and mainRun redacts it as a last guard.
func ExitStatus(err error) (code int, message string) {
	var usage *UsageError
	var silent *SilentError
	var apiErr *client.APIError
	var urlErr *url.Error
	var verifyErr *client.VerificationError
	var unregistered *KeyNotRegisteredError
	var notLoggedIn *NotLoggedInError
	var plainHTTP *client.PlainHTTPError
	var notRegistry *client.NotRegistryError
	var redirect *client.RedirectError
	var notFound *NotFoundError
	var givenRefused *givenTokenRefusedError
	switch {
	case errors.As(err, &notFound):
		return exitNotFound, err.Error()
	case err == nil:
		return ExitOK, ""
	case errors.As(err, &silent):
		return silent.Code, ""
	case errors.As(err, &usage):
		return ExitUsage, usage.Msg
	case errors.As(err, &notLoggedIn), errors.As(err, &givenRefused):
		return ExitAuth, err.Error()
	case errors.As(err, &verifyErr):
		return exitVerify, err.Error()
	case errors.Is(err, context.Canceled):
		return ExitError, "interrupted"
	case errors.As(err, &redirect) && !redirect.Downgrade():
		// A registry that moved (to https://, say) is what a user most
		// likely meets: say how to follow it on purpose.
		return ExitError, err.Error() + "; if the registry has moved there, use --host " + redirect.ToOrigin()
	case errors.As(err, &plainHTTP), errors.As(err, &notRegistry), errors.As(err, &redirect):
		return ExitError, err.Error()
	case errors.As(err, &apiErr):
		switch {
		case apiErr.StatusCode == http.StatusUnauthorized && strings.HasPrefix(apiErr.Message, "missing API token"):
			// The registry's words name headers; a user needs what to run.
			msg := strings.Replace(err.Error(), apiErr.Error(), "not logged in: no API token is configured", 1)
			return ExitAuth, msg + "; run 'pact login' or set PACT_TOKEN"
		case apiErr.StatusCode == http.StatusUnauthorized:
			// A token was sent and refused (unknown, revoked, expired):
			// name the registry that refused it, since tokens are kept
			// per registry, and how to log in to that one again. Keep
			// the context the error was wrapped in (which file, say).
			return ExitAuth, refusedToken(err, apiErr)
		case apiErr.StatusCode == http.StatusNotFound:
			return exitNotFound, err.Error()
		case apiErr.StatusCode >= 400 && apiErr.StatusCode < 500:
			return exitRejected, err.Error()
		default:
			return ExitError, err.Error()
		}
	case errors.As(err, &urlErr):
		msg := fmt.Sprintf("cannot reach the registry at %s: %s", urlHost(urlErr.URL), NetworkReason(urlErr))
		if noSuchHost(urlErr) {
			msg += "; check the address"
		}
		return ExitError, msg
	case errors.As(err, &unregistered):
		return ExitAuth, err.Error()
	default:
		return ExitError, err.Error()
	}
}

// refusedToken is the message of err, whose apiErr is a registry's 401 to
// a token it was sent: "https://pact.example.com refused the token (401):
// missing or invalid API token; log in again with 'pact login --host
// https://pact.example.com'".
func refusedToken(err error, apiErr *client.APIError) string {
	host, login := "the registry", "pact login"
	if apiErr.BaseURL != "" {
		host = HostKey(apiErr.BaseURL)
		login = "pact login --host " + host
	}
	what := fmt.Sprintf("%s refused the token (%d): %s", host, apiErr.StatusCode, apiErr.Message)
	return strings.Replace(err.Error(), apiErr.Error(), what, 1) + "; log in again with '" + login + "'"
}

// WrappedError replaces the message of err, which it still wraps.
type WrappedError struct {
	Msg string
	Err error
}

func (e *WrappedError) Error() string { return e.Msg }
func (e *WrappedError) Unwrap() error { return e.Err }

// NotLoggedInError is a registry's refusal of a request without a token,
// sent none because pact stores tokens for other registries only.
type NotLoggedInError struct {
	Msg string
	err error
}

func (e *NotLoggedInError) Error() string { return e.Msg }
func (e *NotLoggedInError) Unwrap() error { return e.err }

// givenTokenRefusedError is a registry's 401 to a token given with
// --token or PACT_TOKEN: logging in again changes nothing while it is
// given, so the message names where it comes from.
type givenTokenRefusedError struct {
	msg string
	err error
}

func (e *givenTokenRefusedError) Error() string { return e.msg }
func (e *givenTokenRefusedError) Unwrap() error { return e.err }

// refusedGivenToken is the message of err, a registry's 401 (apiErr) to
// the token of PACT_TOKEN or --token (source): "https://pact.example.com
// refused the token in PACT_TOKEN (401): missing or invalid API token; set
// PACT_TOKEN to a valid token for https://pact.example.com, or unset it to
// use the one stored for it by 'pact login'".
func refusedGivenToken(err error, apiErr *client.APIError, source string, stored bool) error {
	host := HostKey(apiErr.BaseURL)
	where, fix := "in PACT_TOKEN", "set PACT_TOKEN to a valid token for "+host
	if source == "--token" {
		where, fix = "given with --token", "pass a valid token for "+host+" with --token"
	}
	drop := "leave it out"
	if source == "PACT_TOKEN" {
		drop = "unset it"
	}
	if stored {
		fix += ", or " + drop + " to use the one stored for it by 'pact login'"
	} else {
		fix += ", or " + drop + " and run 'pact login --host " + host + "'"
	}
	what := fmt.Sprintf("%s refused the token %s (%d): %s", host, where, apiErr.StatusCode, apiErr.Message)
	return &givenTokenRefusedError{msg: strings.Replace(err.Error(), apiErr.Error(), what, 1) + "; " + fix, err: err}
}

// KeyNotRegisteredError is a signing key the registry does not know; it
// exits like a refused token (exit 3).
type KeyNotRegisteredError struct{ Msg string }

func (e *KeyNotRegisteredError) Error() string { return e.Msg }

// DebugDetails is what --debug adds under the error line: the status and
// request of a refusal, the full chain of a network failure.
func DebugDetails(err error) []string {
	var lines []string
	var apiErr *client.APIError
	if errors.As(err, &apiErr) {
		lines = append(lines, apiErr.Detail())
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		lines = append(lines, urlErr.Error())
	}
	return lines
}

// urlHost is the host[:port] of an address, or the address itself.
func urlHost(address string) string {
	if u, err := url.Parse(address); err == nil && u.Host != "" {
		return u.Host
	}
	return address
}

// noSuchHost reports a host name that the DNS says does not exist.
func noSuchHost(err error) bool {
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr) && dnsErr.IsNotFound
}

// NetworkReason says in a few words why a request got no answer.
func NetworkReason(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case noSuchHost(err):
		return "no such host"
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("no answer within %s", client.DefaultTimeout.Round(time.Second))
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err.Error()
	}
	return err.Error()
}
