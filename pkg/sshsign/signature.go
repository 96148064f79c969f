package sshsign

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// armorBegin is the first line of an armored SSHSIG.
const armorBegin = "-----BEGIN " + sshsig.PEMType + "-----"

// maxShownNamespace bounds how much of a foreign namespace an error repeats.
const maxShownNamespace = 64

// Sign signs message with signer and returns the armored SSHSIG, namespace
// "pact", hash sha512, as `ssh-keygen -Y sign -n pact` writes it. RSA keys
// sign with rsa-sha2-512, as OpenSSH does.
func Sign(signer ssh.Signer, message []byte) (string, error) {
	sig, err := sshsig.Sign(bytes.NewReader(message), signer, sshsig.HashSHA512, Namespace)
	if err != nil {
		return "", fmt.Errorf("signing with %s key %s: %w", signer.PublicKey().Type(), Fingerprint(signer.PublicKey()), err)
	}
	return string(sshsig.Armor(sig)), nil
}

// ErrKeyNotInAgent is returned by SignWithAgent when the agent does not hold
// the private half of the key.
var ErrKeyNotInAgent = errors.New("the ssh-agent does not hold this key")

// SignWithAgent signs message like Sign, with the private half of pub held by
// the agent. RSA keys are signed with rsa-sha2-512; an agent that answers
// with another algorithm is refused rather than trusted to be verifiable.
func SignWithAgent(ag agent.ExtendedAgent, pub ssh.PublicKey, message []byte) (string, error) {
	keys, err := ag.List()
	if err != nil {
		return "", fmt.Errorf("listing the ssh-agent's keys: %w", err)
	}
	held := false
	for _, key := range keys {
		if bytes.Equal(key.Marshal(), pub.Marshal()) {
			held = true
			break
		}
	}
	if !held {
		return "", fmt.Errorf("%w: %s", ErrKeyNotInAgent, Fingerprint(pub))
	}
	armored, err := Sign(agentSigner{agent: ag, pub: pub}, message)
	if err != nil {
		return "", err
	}
	// The agent is another program: check its work before anyone relies on it.
	if err := Verify(armored, message, pub); err != nil {
		return "", fmt.Errorf("the ssh-agent made a signature that does not verify: %w", err)
	}
	return armored, nil
}

// agentSigner is an ssh.AlgorithmSigner whose private key lives in an agent.
type agentSigner struct {
	agent agent.ExtendedAgent
	pub   ssh.PublicKey
}

func (s agentSigner) PublicKey() ssh.PublicKey { return s.pub }

func (s agentSigner) Sign(_ io.Reader, data []byte) (*ssh.Signature, error) {
	return s.SignWithAlgorithm(nil, data, "")
}

func (s agentSigner) SignWithAlgorithm(_ io.Reader, data []byte, algorithm string) (*ssh.Signature, error) {
	var flags agent.SignatureFlags
	switch algorithm {
	case "":
	case ssh.KeyAlgoRSASHA512:
		flags = agent.SignatureFlagRsaSha512
	case ssh.KeyAlgoRSASHA256:
		flags = agent.SignatureFlagRsaSha256
	default:
		if algorithm != s.pub.Type() {
			return nil, fmt.Errorf("signature algorithm %q is not supported through the agent", algorithm)
		}
	}
	sig, err := s.agent.SignWithFlags(s.pub, data, flags)
	if err != nil {
		return nil, fmt.Errorf("ssh-agent refused to sign with %s: %w", Fingerprint(s.pub), err)
	}
	if algorithm != "" && sig.Format != algorithm {
		return nil, fmt.Errorf("asked the ssh-agent for a %s signature, got %s", algorithm, sig.Format)
	}
	return sig, nil
}

// unarmor parses an armored SSHSIG strictly: apart from surrounding white
// space, the text must be exactly one SSH SIGNATURE block.
func unarmor(armored string) (*sshsig.Signature, error) {
	text := strings.TrimSpace(armored)
	if !strings.HasPrefix(text, armorBegin) {
		return nil, fmt.Errorf("%w: expected text beginning with %q", ErrSignatureMalformed, armorBegin)
	}
	block, rest := pem.Decode([]byte(text))
	if block == nil {
		return nil, fmt.Errorf("%w: the armor is damaged or truncated", ErrSignatureMalformed)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("%w: unexpected text after the signature", ErrSignatureMalformed)
	}
	if block.Type != sshsig.PEMType || len(block.Headers) != 0 {
		return nil, fmt.Errorf("%w: expected one %s block", ErrSignatureMalformed, sshsig.PEMType)
	}
	sig, err := sshsig.ParseSignature(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSignatureMalformed, err)
	}
	return sig, nil
}

// SignaturePublicKey returns the public key an armored SSHSIG names as its
// signer. It does not verify the signature.
func SignaturePublicKey(armored string) (ssh.PublicKey, error) {
	sig, err := unarmor(armored)
	if err != nil {
		return nil, err
	}
	return sig.PublicKey, nil
}

// Verify checks that armored is an SSHSIG made by the registered key, in the
// namespace "pact", over exactly message, with hash sha512 or sha256. Each
// failed check returns an error wrapping its own sentinel, in this order:
// ErrSignatureMalformed, ErrSignatureKeyMismatch, ErrSignatureNamespace,
// ErrSignatureInvalid.
func Verify(armored string, message []byte, registered ssh.PublicKey) error {
	sig, err := unarmor(armored)
	if err != nil {
		return err
	}
	if registered == nil {
		return fmt.Errorf("%w: no registered key was given", ErrSignatureKeyMismatch)
	}
	if !bytes.Equal(sig.PublicKey.Marshal(), registered.Marshal()) {
		return fmt.Errorf("%w: signed by %s, registered key is %s",
			ErrSignatureKeyMismatch, Fingerprint(sig.PublicKey), Fingerprint(registered))
	}
	if sig.Namespace != Namespace {
		shown := sig.Namespace
		if len(shown) > maxShownNamespace {
			shown = shown[:maxShownNamespace] + "…"
		}
		return fmt.Errorf("%w: it is %q", ErrSignatureNamespace, shown)
	}
	// ParseSignature already refused hashes other than sha256 and sha512.
	if err := sshsig.Verify(bytes.NewReader(message), sig, registered, sig.HashAlgorithm, Namespace); err != nil {
		return fmt.Errorf("%w: %v", ErrSignatureInvalid, err)
	}
	return nil
}
