package sshsign

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// nonceAlphabet is every character a nonce may hold.
const nonceAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

const (
	minNonceLen = 16
	maxNonceLen = 128
	// newNonceLen gives 32 × log2(65) ≈ 192 bits of randomness.
	newNonceLen = 32
)

// Message returns the six lines a publish signature covers, each followed by
// "\n": the header, the timestamp in Unix seconds, the nonce, the lowercase hex
// SHA-256 of content, the name and the description. An absent name or
// description is an empty line. A field holding \r or \n is refused with an
// error wrapping ErrMultilineField, because it would shift the lines.
func Message(timestamp int64, nonce string, content []byte, name, description string) ([]byte, error) {
	digest := sha256.Sum256(content)
	return MessageForDigest(timestamp, nonce, hex.EncodeToString(digest[:]), name, description)
}

// MessageForDigest is Message for a document known by its lowercase hex
// SHA-256, as a version's record keeps it (the transparency log writes the
// signed lines of versions from it).
func MessageForDigest(timestamp int64, nonce, sha256Hex, name, description string) ([]byte, error) {
	for _, field := range []struct{ label, value string }{
		{"nonce", nonce}, {"name", name}, {"description", description},
	} {
		if strings.ContainsAny(field.value, "\r\n") {
			return nil, fmt.Errorf("%s %w", field.label, ErrMultilineField)
		}
	}
	var b strings.Builder
	b.Grow(len(MessageHeader) + 20 + len(nonce) + len(sha256Hex) + len(name) + len(description) + 6)
	for _, line := range []string{
		MessageHeader,
		strconv.FormatInt(timestamp, 10),
		nonce,
		sha256Hex,
		name,
		description,
	} {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}

// ValidNonce reports whether nonce is 16 to 128 characters of [A-Za-z0-9._-].
func ValidNonce(nonce string) bool {
	if len(nonce) < minNonceLen || len(nonce) > maxNonceLen {
		return false
	}
	for i := 0; i < len(nonce); i++ {
		if strings.IndexByte(nonceAlphabet, nonce[i]) < 0 {
			return false
		}
	}
	return true
}

// NewNonce returns 32 random characters of [A-Za-z0-9._-] from crypto/rand.
func NewNonce() string {
	nonce, err := newNonce(rand.Reader)
	if err != nil {
		// crypto/rand does not fail on supported platforms; if it does, no
		// safe nonce can be made.
		panic("sshsign: reading random bytes: " + err.Error())
	}
	return nonce
}

// newNonce draws characters from random by rejection sampling, so every
// character of the alphabet is equally likely.
func newNonce(random io.Reader) (string, error) {
	// The largest multiple of the alphabet's size that fits in a byte.
	limit := 256 - 256%len(nonceAlphabet)
	nonce := make([]byte, 0, newNonceLen)
	buf := make([]byte, newNonceLen*2)
	for len(nonce) < newNonceLen {
		if _, err := io.ReadFull(random, buf); err != nil {
			return "", err
		}
		for _, b := range buf {
			if int(b) < limit && len(nonce) < newNonceLen {
				nonce = append(nonce, nonceAlphabet[int(b)%len(nonceAlphabet)])
			}
		}
	}
	return string(nonce), nil
}
