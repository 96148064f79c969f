package sshsign

import (
	"crypto/rsa"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/big"
	"strings"

	"golang.org/x/crypto/ssh"
)

// The RSA keys pact accepts. Anyone can register a key and then make the
// server verify signatures with it without any other credential, so the cost
// of one verification is bounded: it grows with the square of the modulus
// length and with the length of the exponent. 8192 bits with e = 65537 cost
// about 1.5 ms; OpenSSH's largest, 16384 bits with e = 2^24-1, cost 12 times
// that. ssh-keygen has always made keys with e = 65537.
const (
	MinRSABits     = 2048
	MaxRSABits     = 8192
	MaxRSAExponent = 65537
)

// KeyError says why ParseAuthorizedKey refused a key. It wraps one of
// ErrKeyUnparsable, ErrKeyTypeUnsupported, ErrKeyTooShort, ErrKeyTooLong or
// ErrKeyExponent.
type KeyError struct {
	Kind     error  // one of the ErrKey* sentinels
	Type     string // key type, when it could be read
	Bits     int    // RSA modulus length, for ErrKeyTooShort and ErrKeyTooLong
	Exponent string // RSA public exponent in decimal, for ErrKeyExponent
	Reason   string // detail for ErrKeyUnparsable
}

func (e *KeyError) Error() string {
	switch e.Kind {
	case ErrKeyTypeUnsupported:
		return fmt.Sprintf("public key type %q is not supported: use ssh-ed25519, or ssh-rsa of %d to %d bits", e.Type, MinRSABits, MaxRSABits)
	case ErrKeyTooShort:
		return fmt.Sprintf("RSA public key of %d bits is too short: RSA keys must have %d to %d bits", e.Bits, MinRSABits, MaxRSABits)
	case ErrKeyTooLong:
		return fmt.Sprintf("RSA public key of %d bits is too long: RSA keys must have %d to %d bits (ssh-keygen -t rsa -b 4096, or use ssh-ed25519)", e.Bits, MinRSABits, MaxRSABits)
	case ErrKeyExponent:
		exp := e.Exponent
		if len(exp) > 20 {
			exp = exp[:20] + "…"
		}
		return fmt.Sprintf("RSA public exponent %s is not accepted: it must be odd and between 3 and %d (ssh-keygen uses 65537)", exp, MaxRSAExponent)
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
// keys of MinRSABits to MaxRSABits bits with an odd exponent of at most
// MaxRSAExponent. Several lines and lines with an options prefix are
// refused. Every error is a *KeyError.
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
		if typ, blob, ok := unknownKeyType(line); ok {
			// x/crypto refuses some RSA keys itself (moduli over 16384 bits,
			// exponents over 2^24 or even): say what is wrong with them
			// rather than calling ssh-rsa unsupported.
			if typ == ssh.KeyAlgoRSA {
				if e, n, ok := rsaWire(blob); ok {
					if err := checkRSA(e, n); err != nil {
						return nil, "", err
					}
				}
				return nil, "", &KeyError{Kind: ErrKeyUnparsable, Type: typ, Reason: "the ssh-rsa key is malformed"}
			}
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
		key := rsaKey(pub)
		if key == nil {
			return nil, "", &KeyError{Kind: ErrKeyUnparsable, Type: pub.Type(), Reason: "the ssh-rsa key is malformed"}
		}
		if err := checkRSA(big.NewInt(int64(key.E)), key.N); err != nil {
			return nil, "", err
		}
	default:
		return nil, "", &KeyError{Kind: ErrKeyTypeUnsupported, Type: pub.Type()}
	}
	return pub, comment, nil
}

// rsaKey returns the RSA key inside an ssh-rsa key, nil if it has none.
func rsaKey(pub ssh.PublicKey) *rsa.PublicKey {
	cryptoKey, ok := pub.(ssh.CryptoPublicKey)
	if !ok {
		return nil
	}
	key, _ := cryptoKey.CryptoPublicKey().(*rsa.PublicKey)
	return key
}

// checkRSA applies the bounds on an RSA key's modulus n and exponent e.
func checkRSA(e, n *big.Int) *KeyError {
	switch bits := n.BitLen(); {
	case bits < MinRSABits:
		return &KeyError{Kind: ErrKeyTooShort, Type: ssh.KeyAlgoRSA, Bits: bits}
	case bits > MaxRSABits:
		return &KeyError{Kind: ErrKeyTooLong, Type: ssh.KeyAlgoRSA, Bits: bits}
	}
	if e.Cmp(big.NewInt(3)) < 0 || e.Cmp(big.NewInt(MaxRSAExponent)) > 0 || e.Bit(0) == 0 {
		return &KeyError{Kind: ErrKeyExponent, Type: ssh.KeyAlgoRSA, Exponent: e.String()}
	}
	return nil
}

// rsaWire reads the exponent and modulus of an ssh-rsa key blob (RFC 4253
// §6.6) without the bounds x/crypto applies, so a refusal can name them.
func rsaWire(blob []byte) (e, n *big.Int, ok bool) {
	var w struct {
		Type string
		E    *big.Int
		N    *big.Int
		Rest []byte `ssh:"rest"`
	}
	if err := ssh.Unmarshal(blob, &w); err != nil || w.Type != ssh.KeyAlgoRSA || len(w.Rest) != 0 {
		return nil, nil, false
	}
	return w.E, w.N, true
}

// unknownKeyType recognises a well-formed line of a key type x/crypto does not
// accept: the base64 blob begins with the same type name the line declares.
// Such a key is unsupported rather than garbage, and saying so helps the user
// more. It returns the type and the decoded blob.
func unknownKeyType(line string) (string, []byte, bool) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "", nil, false
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil || len(blob) < 4 {
		return "", nil, false
	}
	n := binary.BigEndian.Uint32(blob)
	if n == 0 || uint64(n) > uint64(len(blob)-4) || string(blob[4:4+n]) != fields[0] {
		return "", nil, false
	}
	return fields[0], blob, true
}
