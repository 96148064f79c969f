// Package sshsign builds the message a pact publish signature covers and
// signs and verifies it as an SSHSIG, the format `ssh-keygen -Y sign` writes.
//
// The package is pure: it reads no files and no environment. The wire format
// of SSHSIG is left to github.com/hiddeco/sshsig.
package sshsign

import (
	"errors"
	"time"
)

const (
	// Namespace is the SSHSIG namespace of every pact signature, so that a
	// signature made for git or another tool is never accepted as a publish.
	Namespace = "pact"
	// MessageHeader is the first line of the signed message.
	MessageHeader = "pact-publish-v1"
	// MaxSkew is how far a signed timestamp may lie from the server's clock.
	MaxSkew = 300 * time.Second
)

// Errors of Message.
var (
	// ErrMultilineField is wrapped when a message field holds \r or \n, which
	// would let one field pose as several lines of the message.
	ErrMultilineField = errors.New("must be a single line without \\r or \\n")
)

// Errors of ParseAuthorizedKey. Each is wrapped in a *KeyError that says more.
var (
	ErrKeyUnparsable      = errors.New("public key is not one authorized_keys line")
	ErrKeyTypeUnsupported = errors.New("public key type is not supported")
	ErrKeyTooShort        = errors.New("RSA public key is too short")
	ErrKeyTooLong         = errors.New("RSA public key is too long")
	ErrKeyExponent        = errors.New("RSA public exponent is not accepted")
)

// Errors of Verify, one per check, so a caller can say which check failed.
var (
	// ErrSignatureMalformed: the text is not an armored SSHSIG or does not parse.
	ErrSignatureMalformed = errors.New("signature is not an armored SSH signature")
	// ErrSignatureKeyMismatch: the public key inside the signature is not the registered key.
	ErrSignatureKeyMismatch = errors.New("signature was not made with the registered key")
	// ErrSignatureNamespace: the signature was made for another namespace than "pact".
	ErrSignatureNamespace = errors.New(`signature namespace is not "pact"`)
	// ErrSignatureInvalid: the signature does not verify over the exact message.
	ErrSignatureInvalid = errors.New("signature does not verify over the signed message")
)
