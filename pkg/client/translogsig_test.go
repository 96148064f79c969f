package client_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/pkg/translog"
)

func TestVersionProofVerifySignature(t *testing.T) {
	t.Parallel()
	newSigner := func() ssh.Signer {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ssh.NewSignerFromKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	signer, other := newSigner(), newSigner()
	content := []byte("# Widget\n")
	sha := hexSHA256(content)
	lines, err := sshsign.Message(1795000000, "nonce-0123456789abcdef", content, "Widget", "")
	if err != nil {
		t.Fatal(err)
	}
	armored, err := sshsign.Sign(signer, lines)
	if err != nil {
		t.Fatal(err)
	}
	byOther, err := sshsign.Sign(other, lines)
	if err != nil {
		t.Fatal(err)
	}
	key := sshsign.MarshalPublicKey(signer.PublicKey())
	proof := func(key string, signed []byte) *client.VersionProof {
		return &client.VersionProof{Index: 3, Publish: translog.PublishEvent{
			Owner: "alice", Pack: "widget", Version: "1.0.0", SHA256: sha, Size: int64(len(content)),
			Auth: translog.AuthSSH, Key: key, SignedLines: signed,
		}}
	}

	sig, err := proof(key, lines).VerifySignature(armored)
	if err != nil || sig.Unverifiable != "" || sig.Fingerprint != sshsign.Fingerprint(signer.PublicKey()) || sig.Timestamp != "1795000000" {
		t.Fatalf("VerifySignature = %+v, %v", sig, err)
	}
	if sig, err := (&client.VersionProof{Publish: translog.PublishEvent{Auth: translog.AuthToken}}).VerifySignature(""); sig != nil || err != nil {
		t.Errorf("a token publish: %+v, %v; want nothing to verify", sig, err)
	}

	legacy := []byte(strings.Join(strings.SplitAfter(string(lines), "\n")[:4], ""))
	for _, tc := range []struct {
		name    string
		proof   *client.VersionProof
		armored string
		want    string // "" for unverifiable without error
	}{
		{"signed by another key", proof(key, lines), byOther, "does not verify with the logged key"},
		{"no signature shown", proof(key, lines), "", "shows no signature"},
		{"lines over another document", proof(key, []byte(strings.Replace(string(lines), sha, strings.Repeat("0", 64), 1))), armored, "not the six-line message over its sha256"},
		{"lines other than signed", proof(key, []byte(strings.Replace(string(lines), "Widget", "Gadget", 1))), armored, "does not verify"},
		{"legacy lines", proof(key, legacy), armored, ""},
		{"legacy key", proof(sshsign.Fingerprint(signer.PublicKey()), lines), armored, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sig, err := tc.proof.VerifySignature(tc.armored)
			if tc.want == "" {
				if err != nil || sig == nil || sig.Unverifiable == "" {
					t.Fatalf("VerifySignature = %+v, %v; want an unverifiable signature", sig, err)
				}
				return
			}
			wantVerificationError(t, err, "signature", tc.want)
		})
	}
	if !proof(key, lines).SignatureKeyMatches(key) || proof(key, lines).SignatureKeyMatches(sshsign.MarshalPublicKey(other.PublicKey())) {
		t.Error("SignatureKeyMatches does not tell the logged key from another")
	}
}
