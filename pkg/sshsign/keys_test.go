package sshsign_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"golang.org/x/crypto/ssh"
)

// dsaKeyLine is an ssh-dss key made by ssh-keygen 9.2; newer OpenSSH can no
// longer make one, so it is kept as text.
const dsaKeyLine = "ssh-dss AAAAB3NzaC1kc3MAAACBAO62we1dKY5aPmREX9WDyPPeKkg42TKSo8C8uqjCNuHtOwm4kkU4NT8h5ACQqIrS6yj+7E/KTHrGIHy9FgBH/i6YfOF6kb/FIloGbRQPJy1ENzRegdosP2Db5kgvHAQwMWrJ4i1EWLhASThaaxLff8MMqhkiQLCq1Wcv1fwybrVDAAAAFQCDC5/CQS9hrqE6b/qmX4fAEiVFXQAAAIEAmPCkuchOjYx5elSVNSsKC6m2/zuunAH8wN+fEv9DgCye4CkRpB2q8r2aoo4gDiOMfHFi1QFV9XgYWMc4jOMjcLJZ+ebbLCLTCzFEWUBcfGmvgL0xhCMHF0N4WvtGRk2HKHVC+oKfE3zxfKa78xy2NNoNRivMDv7ma0N41bXbbbUAAACBANLXzg4mAVBoz26+QveG0YJRS/r5Ymt8Ce7CyZoBeo3eKdL5gawKaw5JVW/NIogPAllySmPI76IMyKnOKjra7vxp6V83BdCdWwnlpKPBQsSnNooNsgnJARiSpvDv1bh+3MFxfTQvOzuqLLjFfMHLKykBScqRSCm+o2ozjr3CBaOJ old@host"

// skEd25519KeyLine builds a security-key ed25519 public key line, since
// making a real one needs a hardware token.
func skEd25519KeyLine() string {
	blob := ssh.Marshal(struct {
		Type        string
		Key         []byte
		Application string
	}{ssh.KeyAlgoSKED25519, make([]byte, ed25519.PublicKeySize), "ssh:"})
	return ssh.KeyAlgoSKED25519 + " " + base64.StdEncoding.EncodeToString(blob) + " token@host"
}

func TestFingerprintMatchesSSHKeygen(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			key := sharedKey(t, kind.typ, kind.bits)
			if got, want := sshsign.Fingerprint(key.pub), sshtest.KeygenFingerprint(t, key.pubPath); got != want {
				t.Errorf("Fingerprint = %q, ssh-keygen -lf prints %q", got, want)
			}
		})
	}
}

func TestParseAuthorizedKeyAccepts(t *testing.T) {
	ed := sharedKey(t, "ed25519", 0)
	rsa := sharedKey(t, "rsa", 2048)
	rsa8192 := keyFromFiles(t, func(dir string) (string, string) { return sshtest.RSA8192(t, dir) })
	bare := func(k *testKey) string { return sshsign.MarshalPublicKey(k.pub) }
	tests := []struct {
		name        string
		line        string
		wantKey     *testKey
		wantComment string
	}{
		{"ed25519 with comment", ed.line, ed, "pact-test-ed25519"},
		{"ed25519 without comment", bare(ed), ed, ""},
		{"rsa with comment", rsa.line, rsa, "pact-test-rsa"},
		{"rsa without comment", bare(rsa), rsa, ""},
		{"surrounding white space and trailing newline", "  " + ed.line + "\n", ed, "pact-test-ed25519"},
		{"comment with spaces", bare(ed) + " my laptop key", ed, "my laptop key"},
		{"rsa 8192, the largest accepted", rsa8192.line, rsa8192, "pact-test-rsa"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pub, comment, err := sshsign.ParseAuthorizedKey(tt.line)
			if err != nil {
				t.Fatalf("ParseAuthorizedKey: %v", err)
			}
			if got, want := sshsign.Fingerprint(pub), sshtest.KeygenFingerprint(t, tt.wantKey.pubPath); got != want {
				t.Errorf("fingerprint %s, want %s", got, want)
			}
			if comment != tt.wantComment {
				t.Errorf("comment %q, want %q", comment, tt.wantComment)
			}
		})
	}
}

func TestParseAuthorizedKeyRefuses(t *testing.T) {
	dir := t.TempDir()
	ed := sharedKey(t, "ed25519", 0)
	_, ecdsaPub := sshtest.GenerateKey(t, dir, "ecdsa", 256)
	_, rsa1024Pub := sshtest.GenerateKey(t, dir, "rsa", 1024)
	edBlob := strings.Fields(ed.line)[1]

	tests := []struct {
		name     string
		line     string
		wantErr  error
		wantText string // must appear in the message
	}{
		{"ecdsa", sshtest.PublicKeyLine(t, ecdsaPub), sshsign.ErrKeyTypeUnsupported, "ecdsa-sha2-nistp256"},
		{"ed25519 security key", skEd25519KeyLine(), sshsign.ErrKeyTypeUnsupported, ssh.KeyAlgoSKED25519},
		{"dsa", dsaKeyLine, sshsign.ErrKeyTypeUnsupported, "ssh-dss"},
		{"type unknown to the parser", "ssh-future " + base64.StdEncoding.EncodeToString(ssh.Marshal(struct{ T, K string }{"ssh-future", "k"})), sshsign.ErrKeyTypeUnsupported, "ssh-future"},
		{"rsa 1024", sshtest.PublicKeyLine(t, rsa1024Pub), sshsign.ErrKeyTooShort, "1024 bits"},
		{"garbage", "this is not a key", sshsign.ErrKeyUnparsable, ""},
		{"broken base64", "ssh-ed25519 AAAA!!!!", sshsign.ErrKeyUnparsable, ""},
		{"type without key", "ssh-ed25519", sshsign.ErrKeyUnparsable, ""},
		{"declared type differs from the key", "ssh-rsa " + edBlob, sshsign.ErrKeyUnparsable, ""},
		{"two lines", ed.line + "\n" + ed.line, sshsign.ErrKeyUnparsable, "several"},
		{"carriage return between lines", ed.line + "\r" + ed.line, sshsign.ErrKeyUnparsable, "several"},
		{"options prefix", `command="/bin/true" ` + ed.line, sshsign.ErrKeyUnparsable, "options"},
		{"single option prefix", "restrict " + ed.line, sshsign.ErrKeyUnparsable, "options"},
		{"empty", "", sshsign.ErrKeyUnparsable, "empty"},
		{"only white space", " \t\n", sshsign.ErrKeyUnparsable, "empty"},
		{"private key pasted", "-----BEGIN OPENSSH PRIVATE KEY-----", sshsign.ErrKeyUnparsable, ""},

		// RSA bounds: every verification costs the server CPU, for anyone.
		{"rsa 2047 bits", rsaLine(t, 65537, 2047), sshsign.ErrKeyTooShort, "2047 bits"},
		{"rsa 8193 bits", rsaLine(t, 65537, 8193), sshsign.ErrKeyTooLong, "8193 bits is too long: RSA keys must have 2048 to 8192 bits"},
		{"rsa 16384 bits, the most ssh-keygen makes", rsaLine(t, 65537, 16384), sshsign.ErrKeyTooLong, "16384 bits"},
		{"rsa 16385 bits, refused by x/crypto too", rsaLine(t, 65537, 16385), sshsign.ErrKeyTooLong, "16385 bits"},
		{"rsa exponent 2^24-1, the largest x/crypto parses", rsaLine(t, 1<<24-1, 4096), sshsign.ErrKeyExponent, "16777215"},
		{"rsa exponent 65539", rsaLine(t, 65539, 2048), sshsign.ErrKeyExponent, "65539"},
		{"rsa exponent 1", rsaLine(t, 1, 2048), sshsign.ErrKeyExponent, "must be odd and between 3 and 65537"},
		{"rsa even exponent", rsaLine(t, 65536, 2048), sshsign.ErrKeyExponent, "65536"},
		{"rsa exponent 2^100+1", sshtest.RSAPublicKeyLine(t, new(big.Int).SetBit(big.NewInt(1), 100, 1), 2048, ""), sshsign.ErrKeyExponent, "12676506002282294014…"},
		{"rsa blob with trailing bytes", rsaTrailing(t), sshsign.ErrKeyUnparsable, "malformed"},
	}
	sentinels := []error{sshsign.ErrKeyUnparsable, sshsign.ErrKeyTypeUnsupported, sshsign.ErrKeyTooShort, sshsign.ErrKeyTooLong, sshsign.ErrKeyExponent}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pub, _, err := sshsign.ParseAuthorizedKey(tt.line)
			if err == nil {
				t.Fatalf("ParseAuthorizedKey accepted a %s key", pub.Type())
			}
			for _, sentinel := range sentinels {
				if got, want := errors.Is(err, sentinel), sentinel == tt.wantErr; got != want {
					t.Errorf("errors.Is(%q, %q) = %v, want %v", err, sentinel, got, want)
				}
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not mention %q", err, tt.wantText)
			}
			var keyErr *sshsign.KeyError
			if !errors.As(err, &keyErr) {
				t.Errorf("error %T is not a *KeyError", err)
			}
		})
	}
}

// rsaLine is an ssh-rsa key line with exponent e and a bits-bit modulus.
func rsaLine(t *testing.T, e int64, bits int) string {
	return sshtest.RSAPublicKeyLine(t, big.NewInt(e), bits, "built-by-hand")
}

// rsaTrailing is an ssh-rsa key of 16384 bits and exponent 2^24+1, both
// beyond x/crypto's bounds, followed by bytes that do not belong to the key.
func rsaTrailing(t *testing.T) string {
	fields := strings.Fields(sshtest.RSAPublicKeyLine(t, big.NewInt(1<<24+1), 16385, ""))
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return fields[0] + " " + base64.StdEncoding.EncodeToString(append(blob, 0, 0, 0, 0))
}

func TestRSABoundsAccept(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    int64
		bits int
	}{
		{"2048 bits, e 65537", 65537, 2048},
		{"8192 bits, e 65537", 65537, 8192},
		{"e 3", 3, 4096},
		{"e 35, as old keys have", 35, 3072},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pub, _, err := sshsign.ParseAuthorizedKey(rsaLine(t, tc.e, tc.bits))
			if err != nil {
				t.Fatalf("ParseAuthorizedKey: %v", err)
			}
			if pub.Type() != ssh.KeyAlgoRSA {
				t.Errorf("type %s", pub.Type())
			}
		})
	}
}

// A registered 8192-bit key made by ssh-keygen signs and verifies, with
// ssh-keygen on both sides.
func TestRSA8192SignsAndVerifies(t *testing.T) {
	key := keyFromFiles(t, func(dir string) (string, string) { return sshtest.RSA8192(t, dir) })
	msg := testMessage(t, "eight thousand bits")
	sig := sshtest.SignWithKeygen(t, key.privPath, msg, sshsign.Namespace)
	if err := sshsign.Verify(sig, msg, key.pub); err != nil {
		t.Fatalf("Verify of ssh-keygen's signature: %v", err)
	}
	ours, err := sshsign.Sign(key.signer, msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := sshtest.VerifyWithKeygen(t, key.line, msg, ours, sshsign.Namespace); err != nil {
		t.Fatal(err)
	}
}

func TestMarshalPublicKeyIsTheKeyLineWithoutComment(t *testing.T) {
	for _, kind := range keyKinds[:2] {
		t.Run(kind.name, func(t *testing.T) {
			key := sharedKey(t, kind.typ, kind.bits)
			fields := strings.Fields(key.line)
			if got, want := sshsign.MarshalPublicKey(key.pub), fields[0]+" "+fields[1]; got != want {
				t.Errorf("MarshalPublicKey = %q, want %q", got, want)
			}
		})
	}
}

func FuzzParseAuthorizedKey(f *testing.F) {
	ed := sharedKey(f, "ed25519", 0)
	f.Add(ed.line)
	f.Add(sshsign.MarshalPublicKey(ed.pub))
	f.Add(dsaKeyLine)
	f.Add(skEd25519KeyLine())
	f.Add("restrict " + ed.line)
	f.Add("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQ==")
	f.Add("")
	f.Fuzz(func(t *testing.T, line string) {
		pub, _, err := sshsign.ParseAuthorizedKey(line)
		if err != nil {
			if !errors.Is(err, sshsign.ErrKeyUnparsable) && !errors.Is(err, sshsign.ErrKeyTypeUnsupported) && !errors.Is(err, sshsign.ErrKeyTooShort) &&
				!errors.Is(err, sshsign.ErrKeyTooLong) && !errors.Is(err, sshsign.ErrKeyExponent) {
				t.Fatalf("error %q wraps none of the ErrKey* sentinels", err)
			}
			return
		}
		if typ := pub.Type(); typ != ssh.KeyAlgoED25519 && typ != ssh.KeyAlgoRSA {
			t.Fatalf("accepted a %s key", typ)
		}
		again, _, err := sshsign.ParseAuthorizedKey(sshsign.MarshalPublicKey(pub))
		if err != nil {
			t.Fatalf("the marshalled form of an accepted key does not parse: %v", err)
		}
		if sshsign.Fingerprint(again) != sshsign.Fingerprint(pub) {
			t.Fatalf("marshal round trip changed the key")
		}
	})
}
