package sshsign_test

import (
	"encoding/pem"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/sshsign"
	"golang.org/x/crypto/ssh/agent"
)

var signatureSentinels = []error{
	sshsign.ErrSignatureMalformed,
	sshsign.ErrSignatureKeyMismatch,
	sshsign.ErrSignatureNamespace,
	sshsign.ErrSignatureInvalid,
}

// assertSignatureError checks that err wraps want and no other Verify sentinel.
func assertSignatureError(t *testing.T, err, want error) {
	t.Helper()
	if err == nil {
		t.Fatalf("Verify accepted the signature, want %v", want)
	}
	for _, sentinel := range signatureSentinels {
		if got, wanted := errors.Is(err, sentinel), sentinel == want; got != wanted {
			t.Errorf("errors.Is(%q, %q) = %v, want %v", err, sentinel, got, wanted)
		}
	}
}

func TestVerifyAcceptsSSHKeygenSignatures(t *testing.T) {
	for _, kind := range keyKinds {
		for _, hash := range []string{"sha512", "sha256"} {
			t.Run(kind.name+"/"+hash, func(t *testing.T) {
				t.Parallel()
				key := sharedKey(t, kind.typ, kind.bits)
				msg := testMessage(t, "signed by ssh-keygen")
				sig := sshtest.SignWithKeygen(t, key.privPath, msg, sshsign.Namespace, "-O", "hashalg="+hash)
				if err := sshsign.Verify(sig, msg, key.pub); err != nil {
					t.Fatalf("Verify refused a signature ssh-keygen made: %v", err)
				}
				signer, err := sshsign.SignaturePublicKey(sig)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := sshsign.Fingerprint(signer), sshtest.KeygenFingerprint(t, key.pubPath); got != want {
					t.Errorf("SignaturePublicKey fingerprint %s, want %s", got, want)
				}
			})
		}
	}
}

func TestSignIsAcceptedBySSHKeygen(t *testing.T) {
	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			key := sharedKey(t, kind.typ, kind.bits)
			msg := testMessage(t, "signed by sshsign.Sign")
			sig, err := sshsign.Sign(key.signer, msg)
			if err != nil {
				t.Fatalf("Sign: %v", err)
			}
			if err := sshtest.VerifyWithKeygen(t, key.line, msg, sig, sshsign.Namespace); err != nil {
				t.Fatal(err)
			}
			// The same check must be able to fail, or the one above proves nothing.
			if err := sshtest.VerifyWithKeygen(t, key.line, testMessage(t, "tampered"), sig, sshsign.Namespace); err == nil {
				t.Error("ssh-keygen -Y verify accepted the signature over a tampered message")
			}
			if err := sshsign.Verify(sig, msg, key.pub); err != nil {
				t.Errorf("Verify refused what Sign made: %v", err)
			}
		})
	}
}

func TestSignWithAgentIsAcceptedBySSHKeygen(t *testing.T) {
	sshtest.Require(t, "ssh-agent", "ssh-add")
	sock := sshtest.StartAgent(t)
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ag := agent.NewClient(conn)

	for _, kind := range keyKinds {
		t.Run(kind.name, func(t *testing.T) {
			key := sharedKey(t, kind.typ, kind.bits)
			sshtest.AddKey(t, sock, key.privPath)
			msg := testMessage(t, "signed through ssh-agent")
			sig, err := sshsign.SignWithAgent(ag, key.pub, msg)
			if err != nil {
				t.Fatalf("SignWithAgent: %v", err)
			}
			if err := sshtest.VerifyWithKeygen(t, key.line, msg, sig, sshsign.Namespace); err != nil {
				t.Fatal(err)
			}
			if err := sshsign.Verify(sig, msg, key.pub); err != nil {
				t.Errorf("Verify refused what SignWithAgent made: %v", err)
			}
		})
	}
}

func TestSignWithAgentRefusesAKeyTheAgentDoesNotHold(t *testing.T) {
	sock := sshtest.StartAgent(t)
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	held := newKey(t, t.TempDir(), "ed25519", 0)
	sshtest.AddKey(t, sock, held.privPath)
	notHeld := sharedKey(t, "ed25519", 0)

	sig, err := sshsign.SignWithAgent(agent.NewClient(conn), notHeld.pub, testMessage(t, "x"))
	if !errors.Is(err, sshsign.ErrKeyNotInAgent) {
		t.Fatalf("SignWithAgent = %q, %v; want ErrKeyNotInAgent", sig, err)
	}
	if !strings.Contains(err.Error(), sshsign.Fingerprint(notHeld.pub)) {
		t.Errorf("error %q does not name the missing key", err)
	}
}

func TestVerifyRefuses(t *testing.T) {
	key := sharedKey(t, "ed25519", 0)
	rsa := sharedKey(t, "rsa", 2048)
	other := newKey(t, t.TempDir(), "ed25519", 0)
	msg := testMessage(t, "the real description")
	good := sshtest.SignWithKeygen(t, key.privPath, msg, sshsign.Namespace)

	tests := []struct {
		name       string
		signature  string
		message    []byte
		registered *testKey
		want       error
	}{
		{"tampered message", good, testMessage(t, "another description"), key, sshsign.ErrSignatureInvalid},
		{"message with an extra byte", good, append(append([]byte{}, msg...), '\n'), key, sshsign.ErrSignatureInvalid},
		{"flipped signature byte", flipLastByte(t, good), msg, key, sshsign.ErrSignatureInvalid},
		{"signed by another ed25519 key", sshtest.SignWithKeygen(t, other.privPath, msg, sshsign.Namespace), msg, key, sshsign.ErrSignatureKeyMismatch},
		{"signed by an rsa key", sshtest.SignWithKeygen(t, rsa.privPath, msg, sshsign.Namespace), msg, key, sshsign.ErrSignatureKeyMismatch},
		{"namespace git", sshtest.SignWithKeygen(t, key.privPath, msg, "git"), msg, key, sshsign.ErrSignatureNamespace},
		{"namespace pact with a suffix", sshtest.SignWithKeygen(t, key.privPath, msg, "pact-v2"), msg, key, sshsign.ErrSignatureNamespace},
		{"garbage", "this is not a signature", msg, key, sshsign.ErrSignatureMalformed},
		{"empty", "", msg, key, sshsign.ErrSignatureMalformed},
		{"truncated", good[:len(good)/2], msg, key, sshsign.ErrSignatureMalformed},
		{"end line cut off", strings.TrimSpace(good)[:len(strings.TrimSpace(good))-10], msg, key, sshsign.ErrSignatureMalformed},
		{"armor around garbage", "-----BEGIN SSH SIGNATURE-----\nAAAAAAAA\n-----END SSH SIGNATURE-----\n", msg, key, sshsign.ErrSignatureMalformed},
		{"other armor type", strings.ReplaceAll(good, "SSH SIGNATURE", "PGP SIGNATURE"), msg, key, sshsign.ErrSignatureMalformed},
		{"text before the armor", "hello\n" + good, msg, key, sshsign.ErrSignatureMalformed},
		{"text after the armor", good + "hello\n", msg, key, sshsign.ErrSignatureMalformed},
		{"two signatures", good + good, msg, key, sshsign.ErrSignatureMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sshsign.Verify(tt.signature, tt.message, tt.registered.pub)
			assertSignatureError(t, err, tt.want)
		})
	}
}

func TestVerifyErrorsSayWhichCheckFailed(t *testing.T) {
	key := sharedKey(t, "ed25519", 0)
	other := newKey(t, t.TempDir(), "ed25519", 0)
	msg := testMessage(t, "d")
	tests := []struct {
		name      string
		signature string
		wantText  []string
	}{
		{"key mismatch names both fingerprints", sshtest.SignWithKeygen(t, other.privPath, msg, sshsign.Namespace),
			[]string{sshsign.Fingerprint(other.pub), sshsign.Fingerprint(key.pub)}},
		{"namespace names the namespace found", sshtest.SignWithKeygen(t, key.privPath, msg, "git"),
			[]string{`"git"`, `"pact"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sshsign.Verify(tt.signature, msg, key.pub)
			if err == nil {
				t.Fatal("Verify accepted the signature")
			}
			for _, text := range tt.wantText {
				if !strings.Contains(err.Error(), text) {
					t.Errorf("error %q does not mention %s", err, text)
				}
			}
		})
	}
}

func TestVerifyAcceptsCRLFArmor(t *testing.T) {
	// Armor pasted through a Windows editor or a form field gains \r\n.
	key := sharedKey(t, "ed25519", 0)
	msg := testMessage(t, "d")
	sig := sshtest.SignWithKeygen(t, key.privPath, msg, sshsign.Namespace)
	if err := sshsign.Verify(strings.ReplaceAll(sig, "\n", "\r\n"), msg, key.pub); err != nil {
		t.Fatalf("Verify refused CRLF armor: %v", err)
	}
}

// flipLastByte changes the last byte of the SSHSIG blob, which lies inside
// the signature proper, and armors it again.
func flipLastByte(t *testing.T, armored string) string {
	t.Helper()
	block, _ := pem.Decode([]byte(armored))
	if block == nil {
		t.Fatal("test signature does not decode")
	}
	block.Bytes[len(block.Bytes)-1] ^= 0x01
	return string(pem.EncodeToMemory(block))
}

func FuzzVerify(f *testing.F) {
	key := newKey(f, f.TempDir(), "ed25519", 0)
	msg := testMessage(f, "fuzz")
	good := sshtest.SignWithKeygen(f, key.privPath, msg, sshsign.Namespace)
	f.Add(good, msg)
	f.Add(sshtest.SignWithKeygen(f, key.privPath, msg, "git"), msg)
	f.Add(good[:len(good)/2], msg)
	f.Add("-----BEGIN SSH SIGNATURE-----\nU1NIU0lHAAAAAQ==\n-----END SSH SIGNATURE-----\n", []byte{})
	f.Add("", []byte("x"))
	f.Fuzz(func(t *testing.T, armored string, message []byte) {
		err := sshsign.Verify(armored, message, key.pub)
		if err == nil {
			signer, perr := sshsign.SignaturePublicKey(armored)
			if perr != nil || sshsign.Fingerprint(signer) != sshsign.Fingerprint(key.pub) {
				t.Fatalf("Verify accepted a signature whose key is not the registered key (%v)", perr)
			}
			return
		}
		matched := 0
		for _, sentinel := range signatureSentinels {
			if errors.Is(err, sentinel) {
				matched++
			}
		}
		if matched != 1 {
			t.Fatalf("error %q wraps %d of the Verify sentinels, want exactly 1", err, matched)
		}
	})
}

func BenchmarkVerifyEd25519(b *testing.B) { benchmarkVerify(b, "ed25519", 0) }
