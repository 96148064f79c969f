package sshtest

import (
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// The 8192-bit RSA key, the largest pact accepts, was made once with
// `ssh-keygen -t rsa -b 8192`: making one takes up to a minute of CPU, too
// long for every test run. It protects nothing; tests only.
var (
	//go:embed keys/rsa8192
	rsa8192Private []byte
	//go:embed keys/rsa8192.pub
	rsa8192Public []byte
)

// RSA8192 writes the 8192-bit test key pair made by ssh-keygen into dir and
// returns the paths of its private and public halves, like GenerateKey. Its
// comment is "pact-test-rsa".
func RSA8192(tb testing.TB, dir string) (privPath, pubPath string) {
	tb.Helper()
	privPath = filepath.Join(dir, "id_rsa_8192")
	if err := os.WriteFile(privPath, rsa8192Private, 0o600); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(privPath+".pub", rsa8192Public, 0o644); err != nil {
		tb.Fatal(err)
	}
	return privPath, privPath + ".pub"
}

// RSAPublicKeyLine builds the authorized_keys line of an ssh-rsa public key
// with exponent e and a random odd modulus of exactly bits bits, written
// byte by byte in the wire format (RFC 4253 §6.6), so that keys no tool would
// make (huge or even exponents, moduli over 16384 bits) can be offered too.
// Nobody holds its private half.
func RSAPublicKeyLine(tb testing.TB, e *big.Int, bits int, comment string) string {
	tb.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), uint(bits)))
	if err != nil {
		tb.Fatal(err)
	}
	n.SetBit(n, bits-1, 1)
	n.SetBit(n, 0, 1)
	blob := ssh.Marshal(struct {
		Type string
		E    *big.Int
		N    *big.Int
	}{ssh.KeyAlgoRSA, e, n})
	line := ssh.KeyAlgoRSA + " " + base64.StdEncoding.EncodeToString(blob)
	if comment != "" {
		line += " " + comment
	}
	return line
}

// ForgedSignature returns an armored SSHSIG in the namespace "pact" that
// names the key of publicKeyLine as its signer and carries random bytes of
// the modulus' length as an rsa-sha2-512 signature: what an attacker sends to
// make a server run the RSA verification without holding any private key.
func ForgedSignature(tb testing.TB, publicKeyLine string) string {
	tb.Helper()
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(publicKeyLine))
	if err != nil {
		tb.Fatalf("parsing the key to forge a signature for: %v", err)
	}
	size := 256
	if key, ok := pub.(ssh.CryptoPublicKey); ok {
		if n, ok := key.CryptoPublicKey().(interface{ Size() int }); ok {
			size = n.Size()
		}
	}
	blob := make([]byte, size)
	if _, err := rand.Read(blob); err != nil {
		tb.Fatal(err)
	}
	blob[0] = 0 // below the modulus, so the verifier does the whole computation
	return string(sshsig.Armor(&sshsig.Signature{
		Version:       1,
		PublicKey:     pub,
		Namespace:     "pact",
		HashAlgorithm: sshsig.HashSHA512,
		Signature:     &ssh.Signature{Format: ssh.KeyAlgoRSASHA512, Blob: blob},
	}))
}
