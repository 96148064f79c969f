package httpx

import "crypto/rand"

const (
	requestIDLength = 20
	requestIDChars  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// newRequestID returns 20 random base62 characters, drawing the randomness
// in one read: the id is made for every request, so it must cost little.
func newRequestID() string {
	var id [requestIDLength]byte
	var random [requestIDLength * 2]byte
	n := 0
	for n < len(id) {
		rand.Read(random[:]) // never fails (crypto/rand, Go ≥ 1.24)
		for _, b := range random {
			// Bytes ≥ 248 are skipped so that every character is equally likely.
			if b < 248 && n < len(id) {
				id[n] = requestIDChars[b%62]
				n++
			}
		}
	}
	return string(id[:])
}
