package client

import (
	"bytes"
	"strings"

	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/pkg/translog"
)

// SignatureProof is what VerifySignature proved about a signed version.
type SignatureProof struct {
	Key         string // the signer's public key as logged
	Fingerprint string
	Timestamp   string // the message's timestamp line
	Nonce       string // the message's nonce line
	// Unverifiable, when not empty, says why the signature could not be
	// checked again: a version signed before the registry kept the signed
	// lines (or the key) was logged with what is known for certain only.
	Unverifiable string
}

// VerifySignature re-verifies the SSH signature of a version published by
// signature: armored (the registry's copy of the signature) must be made by
// the public key the log recorded, over exactly the signed lines the log
// recorded, and those six lines must name the logged document's sha256.
// For a version published with a token it returns nil, nil.
func (p *VersionProof) VerifySignature(armored string) (*SignatureProof, error) {
	pub := p.Publish
	if pub.Auth != translog.AuthSSH {
		return nil, nil
	}
	lines := strings.Split(string(pub.SignedLines), "\n")
	// Versions signed before the registry kept what was signed are logged
	// with the four lines known for certain (header, timestamp, nonce,
	// sha256), and with the key's fingerprint when the key was not kept.
	legacy := len(lines) == 5 && lines[4] == ""
	if (len(lines) != 7 || lines[6] != "") && !legacy || lines[0] != sshsign.MessageHeader || lines[3] != pub.SHA256 {
		return nil, verifyErrorf("signature", "the log's entry %d holds signed lines that are not the six-line message over its sha256", p.Index)
	}
	if strings.HasPrefix(pub.Key, "SHA256:") {
		return &SignatureProof{Key: pub.Key, Fingerprint: pub.Key, Timestamp: lines[1], Nonce: lines[2],
			Unverifiable: "signed before the registry kept the public key: only its fingerprint is logged"}, nil
	}
	key, _, err := sshsign.ParseAuthorizedKey(pub.Key)
	if err != nil {
		return nil, verifyErrorf("signature", "the log's entry %d names a signer key that does not parse: %v", p.Index, err)
	}
	if legacy {
		return &SignatureProof{Key: pub.Key, Fingerprint: sshsign.Fingerprint(key), Timestamp: lines[1], Nonce: lines[2],
			Unverifiable: "signed before the registry kept the signed name and description lines: what was signed is not known"}, nil
	}
	if armored == "" {
		return nil, verifyErrorf("signature", "the log says %s signed entry %d, but the registry shows no signature for it", sshsign.Fingerprint(key), p.Index)
	}
	if err := sshsign.Verify(armored, pub.SignedLines, key); err != nil {
		return nil, verifyErrorf("signature", "the SSH signature the registry shows does not verify with the logged key %s over the logged lines: %v", sshsign.Fingerprint(key), err)
	}
	return &SignatureProof{Key: pub.Key, Fingerprint: sshsign.Fingerprint(key), Timestamp: lines[1], Nonce: lines[2]}, nil
}

// sameKey reports whether two authorized_keys lines hold the same key.
func sameKey(a, b string) bool {
	ka, _, errA := sshsign.ParseAuthorizedKey(a)
	kb, _, errB := sshsign.ParseAuthorizedKey(b)
	return errA == nil && errB == nil && bytes.Equal(ka.Marshal(), kb.Marshal())
}

// SignatureKeyMatches reports whether the registry's public key of a signed
// version (its API answer) is the key the log recorded.
func (p *VersionProof) SignatureKeyMatches(publicKey string) bool {
	if strings.HasPrefix(p.Publish.Key, "SHA256:") {
		k, _, err := sshsign.ParseAuthorizedKey(publicKey)
		return err == nil && sshsign.Fingerprint(k) == p.Publish.Key
	}
	return sameKey(publicKey, p.Publish.Key)
}
