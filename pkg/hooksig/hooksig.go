// Package hooksig signs and verifies the Pact-Signature header of webhook
// deliveries (docs/protocol.md, Webhooks): t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<body>" under the hook's secret>, as Stripe signs
// its events. The time is signed with the body, so a receiver that refuses
// old times refuses replays of old deliveries.
package hooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Sign answers the Pact-Signature header of body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors of Verify.
var (
	ErrMalformed = errors.New("Pact-Signature is not t=<unix seconds>,v1=<hex>")
	ErrMismatch  = errors.New("no v1 signature of Pact-Signature matches the body under the secret")
	ErrTooOld    = errors.New("Pact-Signature's time is outside the tolerance")
)

// Verify checks header against body under secret: one of its v1 values
// must be the HMAC of its t and body, and t within tolerance of now (0:
// any time). It answers the signed time.
func Verify(header, secret string, body []byte, now time.Time, tolerance time.Duration) (time.Time, error) {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return time.Time{}, ErrMalformed
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sig, err := hex.DecodeString(v)
			if err != nil {
				return time.Time{}, ErrMalformed
			}
			sigs = append(sigs, sig)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return time.Time{}, ErrMalformed
	}
	t := time.Unix(sec, 0)
	want := mac(secret, ts, body)
	ok := false
	for _, sig := range sigs {
		ok = ok || hmac.Equal(sig, want)
	}
	if !ok {
		return t, ErrMismatch
	}
	if tolerance > 0 && (now.Sub(t) > tolerance || t.Sub(now) > tolerance) {
		return t, ErrTooOld
	}
	return t, nil
}
