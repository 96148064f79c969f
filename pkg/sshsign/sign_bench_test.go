package sshsign_test

import (
	"testing"

	"github.com/pact-registry/pact/pkg/sshsign"
)

// BenchmarkVerifyRSA is the slower of the two accepted key types, at the
// size ssh-keygen makes by default.
func BenchmarkVerifyRSA(b *testing.B) { benchmarkVerify(b, "rsa", 3072) }

func benchmarkVerify(b *testing.B, typ string, bits int) {
	key := newKey(b, b.TempDir(), typ, bits)
	msg := testMessage(b, "bench")
	sig, err := sshsign.Sign(key.signer, msg)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := sshsign.Verify(sig, msg, key.pub); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignEd25519 is what `pact publish --sign` and the load generator
// of go run ./bench pay per signed publish.
func BenchmarkSignEd25519(b *testing.B) {
	key := newKey(b, b.TempDir(), "ed25519", 0)
	msg := testMessage(b, "bench")
	for b.Loop() {
		if _, err := sshsign.Sign(key.signer, msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseAuthorizedKey is the registered key parsed again for every
// signed publish.
func BenchmarkParseAuthorizedKey(b *testing.B) {
	key := newKey(b, b.TempDir(), "ed25519", 0)
	line := sshsign.MarshalPublicKey(key.pub)
	for b.Loop() {
		if _, _, err := sshsign.ParseAuthorizedKey(line); err != nil {
			b.Fatal(err)
		}
	}
}
