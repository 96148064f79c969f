package sshsign

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func TestNewNonceSkipsBytesThatWouldBiasTheAlphabet(t *testing.T) {
	// 195 is the first byte past the largest multiple of 65 that fits in a
	// byte: bytes from there on must be dropped, not folded onto the alphabet.
	random := bytes.NewReader(append(bytes.Repeat([]byte{255, 195}, 32), countingBytes(64)...))
	got, err := newNonce(random)
	if err != nil {
		t.Fatal(err)
	}
	if want := nonceAlphabet[:32]; got != want {
		t.Errorf("newNonce = %q, want %q", got, want)
	}
}

func TestNewNonceMapsBytesModuloTheAlphabet(t *testing.T) {
	got, err := newNonce(bytes.NewReader(append([]byte{65, 129, 194}, bytes.Repeat([]byte{0}, 61)...)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "A" + "-" + "-" + strings.Repeat("A", 29); got != want {
		t.Errorf("newNonce = %q, want %q", got, want)
	}
}

func TestNewNonceReportsAFailingSource(t *testing.T) {
	broken := errors.New("no entropy")
	if _, err := newNonce(iotest.ErrReader(broken)); !errors.Is(err, broken) {
		t.Errorf("newNonce error = %v, want %v", err, broken)
	}
}

func countingBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}
