package publish

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/sshsign"
)

// publishSigner signs publish messages with one SSH key.
type publishSigner struct {
	Fingerprint string
	Sign        client.SignFunc
	// Source says where the key lives, for messages.
	Source string
	close  func()
}

func (s *publishSigner) Close() {
	if s.close != nil {
		s.close()
	}
}

// signerOptions says where to find the signing key.
type signerOptions struct {
	// KeyPath is --key: a public key whose private half the agent holds,
	// or a private key file. "" means the agent's only key.
	KeyPath string
	// AgentSocket is SSH_AUTH_SOCK.
	AgentSocket string
	// Registered asks the registry for the fingerprints of the account's
	// keys, to choose among several in the agent; errNoAccount when pact
	// has no token to ask with. nil never asks.
	Registered func() ([]string, error)
}

// errNoAccount says pact cannot ask which keys are registered.
var errNoAccount = errors.New("no token to ask the registry with")

// resolveSigner finds the key to sign with (docs/protocol.md, The pact CLI):
// the agent's only key, or --key naming a public key the agent holds, or a
// private key file (asking for its passphrase on the terminal).
func resolveSigner(ios *iostreams.IOStreams, opts signerOptions) (*publishSigner, error) {
	if opts.KeyPath == "" {
		return agentOnlyKey(opts.AgentSocket, opts.Registered)
	}
	path := cmdutil.ExpandHome(opts.KeyPath)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--key: %w", err)
	}
	if pub, _, _, _, err := ssh.ParseAuthorizedKey(data); err == nil {
		return agentKey(opts.AgentSocket, pub, path)
	}
	return privateKeyFile(ios, path, data)
}

func dialAgent(socket string) (agent.ExtendedAgent, func(), error) {
	if socket == "" {
		return nil, nil, errors.New("no ssh-agent is running (SSH_AUTH_SOCK is not set): start one with 'eval $(ssh-agent)' and 'ssh-add', or pass --key with a private key file")
	}
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach the ssh-agent at SSH_AUTH_SOCK=%s: %w", socket, err)
	}
	return agent.NewClient(conn), func() { conn.Close() }, nil
}

// usableKey reports whether the registry accepts signatures of the key type.
func usableKey(pub ssh.PublicKey) bool {
	return pub.Type() == ssh.KeyAlgoED25519 || pub.Type() == ssh.KeyAlgoRSA
}

func agentOnlyKey(socket string, registered func() ([]string, error)) (*publishSigner, error) {
	ag, closeAgent, err := dialAgent(socket)
	if err != nil {
		return nil, err
	}
	keys, err := ag.List()
	if err != nil {
		closeAgent()
		return nil, fmt.Errorf("listing the ssh-agent's keys: %w", err)
	}
	var usable []*agent.Key
	for _, k := range keys {
		if usableKey(k) {
			usable = append(usable, k)
		}
	}
	switch len(usable) {
	case 0:
		closeAgent()
		return nil, errors.New("the ssh-agent holds no ssh-ed25519 or ssh-rsa key: add one with 'ssh-add', or pass --key")
	case 1:
		return agentSigner(ag, closeAgent, usable[0], "ssh-agent key "+usable[0].Comment), nil
	default:
		var fingerprints []string
		err := errNoAccount
		if registered != nil {
			fingerprints, err = registered()
		}
		if err != nil && !errors.Is(err, errNoAccount) {
			closeAgent()
			return nil, fmt.Errorf("the ssh-agent holds %d keys; asking the registry which is registered: %w", len(usable), err)
		}
		if err == nil {
			for _, k := range usable {
				if slices.Contains(fingerprints, sshsign.Fingerprint(k)) {
					return agentSigner(ag, closeAgent, k, fmt.Sprintf("ssh-agent key %s, the one of its %d keys registered for your account", k.Comment, len(usable))), nil
				}
			}
		}
		closeAgent()
		var b strings.Builder
		if err == nil {
			fmt.Fprintf(&b, "none of the ssh-agent's %d keys is registered for your account: register one with 'pact keys add KEY.pub', or choose one with --key PATH:", len(usable))
		} else {
			fmt.Fprintf(&b, "the ssh-agent holds %d keys; choose one with --key PATH (its .pub file), or configure a token (pact login) so pact can ask the registry which is registered:", len(usable))
		}
		for _, k := range usable {
			fmt.Fprintf(&b, "\n  %s %s %s", sshsign.Fingerprint(k), k.Type(), text.Safe(k.Comment))
		}
		if err == nil {
			return nil, &cmdutil.KeyNotRegisteredError{Msg: b.String()}
		}
		return nil, errors.New(b.String())
	}
}

// explainUnregistered makes the registry's refusal of a key it does not
// know exit 3, with the way out.
func explainUnregistered(err error, s *publishSigner) error {
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest && strings.HasPrefix(apiErr.Message, "no SSH key with fingerprint") {
		return &cmdutil.KeyNotRegisteredError{Msg: fmt.Sprintf("the key %s (%s) is not registered on this registry: register its public key with 'pact keys add KEY.pub', then publish again", s.Fingerprint, s.Source)}
	}
	return err
}

func agentKey(socket string, pub ssh.PublicKey, path string) (*publishSigner, error) {
	fingerprint := sshsign.Fingerprint(pub)
	ag, closeAgent, err := dialAgent(socket)
	if err != nil {
		return nil, fmt.Errorf("--key %s is a public key, so its private half must be in the ssh-agent, but %w", path, err)
	}
	keys, err := ag.List()
	if err != nil {
		closeAgent()
		return nil, fmt.Errorf("listing the ssh-agent's keys: %w", err)
	}
	for _, k := range keys {
		if sshsign.Fingerprint(k) == fingerprint {
			return agentSigner(ag, closeAgent, k, "ssh-agent key "+path), nil
		}
	}
	closeAgent()
	return nil, fmt.Errorf("the ssh-agent does not hold the private key of %s (%s): add it with 'ssh-add', or pass --key with the private key file", path, fingerprint)
}

func agentSigner(ag agent.ExtendedAgent, closeAgent func(), pub ssh.PublicKey, source string) *publishSigner {
	return &publishSigner{
		Fingerprint: sshsign.Fingerprint(pub),
		Source:      source,
		close:       closeAgent,
		Sign: func(_ context.Context, msg []byte) (string, error) {
			return sshsign.SignWithAgent(ag, pub, msg)
		},
	}
}

func privateKeyFile(ios *iostreams.IOStreams, path string, data []byte) (*publishSigner, error) {
	signer, err := ssh.ParsePrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		passphrase, perr := ios.PromptSecret(fmt.Sprintf("Enter passphrase for %s: ", path),
			fmt.Errorf("%s is encrypted and there is no terminal to ask for its passphrase: add it to the ssh-agent ('ssh-add %s') and pass --key %s.pub", path, path, path))
		if perr != nil {
			return nil, perr
		}
		signer, err = ssh.ParsePrivateKeyWithPassphrase(data, []byte(passphrase))
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, fmt.Errorf("wrong passphrase for %s", path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--key %s is neither a public key line nor a private key ssh can read: %w", path, err)
	}
	if !usableKey(signer.PublicKey()) {
		return nil, fmt.Errorf("--key %s is a %s key; the registry accepts ssh-ed25519 and ssh-rsa", path, signer.PublicKey().Type())
	}
	return &publishSigner{
		Fingerprint: sshsign.Fingerprint(signer.PublicKey()),
		Source:      path,
		Sign: func(_ context.Context, msg []byte) (string, error) {
			return sshsign.Sign(signer, msg)
		},
	}, nil
}
