package sshsign

import (
	"crypto/rsa"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// MinRSABits is the shortest RSA modulus pact accepts.
const MinRSABits = 2048

// KeyError says why ParseAuthorizedKey refused a key. It wraps one of
// ErrKeyUnparsable, ErrKeyTypeUnsupported or ErrKeyTooShort.
type KeyError struct {
	Kind   error  // one of the ErrKey* sentinels
	Type   string // key type, when it could be read
	Bits   int    // RSA modulus length, for ErrKeyTooShort
	Reason string // detail for ErrKeyUnparsable
}

func (e *KeyError) Error() string {
	switch e.Kind {
	case ErrKeyTypeUnsupported:
		return fmt.Sprintf("public key type %q is not supported: use ssh-ed25519, or ssh-rsa of at least %d bits", e.Type, MinRSABits)
	case ErrKeyTooShort:
		return fmt.Sprintf("RSA public key of %d bits is too short: at least %d bits are required", e.Bits, MinRSABits)
	default:
		if e.Reason == "" {
			return e.Kind.Error()
		}
		return e.Kind.Error() + ": " + e.Reason
	}
}

func (e *KeyError) Unwrap() error { return e.Kind }

// Fingerprint returns the key's SHA-256 fingerprint as `ssh-keygen -lf`
// prints it: "SHA256:" and unpadded base64.
func Fingerprint(pub ssh.PublicKey) string {
	return ssh.FingerprintSHA256(pub)
}

// MarshalPublicKey returns the key as "type base64", without comment or newline.
func MarshalPublicKey(pub ssh.PublicKey) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
}

// ParseAuthorizedKey parses one authorized_keys line, "type base64 [comment]",
// and returns the key and its comment. It accepts ssh-ed25519 keys and ssh-rsa
// keys of at least MinRSABits bits. Several lines and lines with an options
// prefix are refused. Every error is a *KeyError.
func ParseAuthorizedKey(line string) (pub ssh.PublicKey, comment string, err error) {
	line = strings.TrimSpace(line)
	switch {
	case line == "":
		return nil, "", &KeyError{Kind: ErrKeyUnparsable, Reason: "the line is empty"}
	case strings.ContainsAny(line, "\r\n"):
		return nil, "", &KeyError{Kind: ErrKeyUnparsable, Reason: "expected one line, got several"}
	}
	pub, comment, options, _, err := ssh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		if typ, ok := unknownKeyType(line); ok {
			return nil, "", &KeyError{Kind: ErrKeyTypeUnsupported, Type: typ}
		}
		return nil, "", &KeyError{Kind: ErrKeyUnparsable, Reason: "expected \"type base64 [comment]\""}
	}
	if len(options) > 0 {
		return nil, "", &KeyError{Kind: ErrKeyUnparsable, Reason: "options before the key type are not accepted"}
	}
	switch pub.Type() {
	case ssh.KeyAlgoED25519:
	case ssh.KeyAlgoRSA:
		if bits := rsaBits(pub); bits < MinRSABits {
			return nil, "", &KeyError{Kind: ErrKeyTooShort, Type: pub.Type(), Bits: bits}
		}
	default:
		return nil, "", &KeyError{Kind: ErrKeyTypeUnsupported, Type: pub.Type()}
	}
	return pub, comment, nil
}

// rsaBits returns the modulus length of an ssh-rsa key, 0 if it has none.
func rsaBits(pub ssh.PublicKey) int {
	cryptoKey, ok := pub.(ssh.CryptoPublicKey)
	if !ok {
		return 0
	}
	rsaKey, ok := cryptoKey.CryptoPublicKey().(*rsa.PublicKey)
	if !ok {
		return 0
	}
	return rsaKey.N.BitLen()
}

// unknownKeyType recognises a well-formed line of a key type x/crypto does not
// know: the base64 blob begins with the same type name the line declares. Such
// a key is unsupported rather than garbage, and saying so helps the user more.
func unknownKeyType(line string) (string, bool) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "", false
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil || len(blob) < 4 {
		return "", false
	}
	n := binary.BigEndian.Uint32(blob)
	if n == 0 || uint64(n) > uint64(len(blob)-4) || string(blob[4:4+n]) != fields[0] {
		return "", false
	}
	return fields[0], true
}
