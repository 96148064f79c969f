package hooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
	"time"
)

func TestSignAndVerify(t *testing.T) {
	now := time.Unix(1767225600, 0)
	body := []byte(`{"event":"publish"}`)
	header := Sign("s3cret-s3cret-s3cret", now, body)
	// The header is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">,
	// as a receiver computes it with nothing but the standard library.
	m := hmac.New(sha256.New, []byte("s3cret-s3cret-s3cret"))
	m.Write([]byte("1767225600." + string(body)))
	if want := "t=1767225600,v1=" + hex.EncodeToString(m.Sum(nil)); header != want {
		t.Fatalf("Sign = %q, want %q", header, want)
	}
	other := Sign("another-secret-here", now, body)
	for _, c := range []struct {
		name, header, secret string
		body                 []byte
		at                   time.Time
		want                 error
	}{
		{"good", header, "s3cret-s3cret-s3cret", body, now, nil},
		{"within the tolerance", header, "s3cret-s3cret-s3cret", body, now.Add(4 * time.Minute), nil},
		{"two signatures, one good (a secret rotated)", other + ",v1=" + header[len("t=1767225600,v1="):], "s3cret-s3cret-s3cret", body, now, nil},
		{"another body", header, "s3cret-s3cret-s3cret", []byte(`{"event":"yank"}`), now, ErrMismatch},
		{"another secret", header, "wrong-secret-wrong", body, now, ErrMismatch},
		{"too old", header, "s3cret-s3cret-s3cret", body, now.Add(6 * time.Minute), ErrTooOld},
		{"from the future", header, "s3cret-s3cret-s3cret", body, now.Add(-6 * time.Minute), ErrTooOld},
		{"no time", "v1=00", "s3cret-s3cret-s3cret", body, now, ErrMalformed},
		{"no signature", "t=1767225600", "s3cret-s3cret-s3cret", body, now, ErrMalformed},
		{"not hex", "t=1767225600,v1=zz", "s3cret-s3cret-s3cret", body, now, ErrMalformed},
		{"empty", "", "s3cret-s3cret-s3cret", body, now, ErrMalformed},
	} {
		if _, err := Verify(c.header, c.secret, c.body, c.at, 5*time.Minute); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
}
