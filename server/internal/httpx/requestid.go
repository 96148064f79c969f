package httpx

import (
	"math/rand/v2"
	"unsafe"
)

const (
	requestIDLength = 20
	requestIDChars  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// requestID is a request id and the one-element header value holding it,
// made in one allocation.
type requestID struct {
	value [1]string
	chars [requestIDLength]byte
}

// newRequestID returns 20 random base62 characters as a header value. The
// id is made for every request, so it costs one allocation and no system
// call: it needs to be unique, not secret, so it comes from math/rand/v2's
// per-thread generator (ChaCha8, seeded by the runtime).
func newRequestID() []string {
	id := new(requestID)
	n := 0
	for n < requestIDLength {
		r := rand.Uint64()
		for range 10 { // ten 6-bit draws from 64 bits
			// Six bits at a time; 62 and 63 are skipped so that every
			// character is equally likely.
			if b := r & 63; b < 62 && n < requestIDLength {
				id.chars[n] = requestIDChars[b]
				n++
			}
			r >>= 6
		}
	}
	// The bytes are never written again: the string is immutable as Go
	// requires.
	id.value[0] = unsafe.String(&id.chars[0], requestIDLength)
	return id.value[:1:1]
}
