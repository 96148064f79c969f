package translog

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/clip"
)

// MaxCheckpointSize bounds a signed checkpoint a client reads or a server stores.
const MaxCheckpointSize = 16 << 10

// A Checkpoint is a tree head: the log's origin line, its size and its root hash (C2SP tlog-checkpoint).
type Checkpoint struct {
	Origin string
	Size   int64
	Hash   tlog.Hash
}

// Tree answers the checkpoint as a tlog.Tree, for proofs.
func (c Checkpoint) Tree() tlog.Tree { return tlog.Tree{N: c.Size, Hash: c.Hash} }

// Text answers the checkpoint's note text: "<origin>\n<size>\n<base64 root hash>\n".
func (c Checkpoint) Text() string {
	return fmt.Sprintf("%s\n%d\n%s\n", c.Origin, c.Size, base64.StdEncoding.EncodeToString(c.Hash[:]))
}

// ParseCheckpointText reads a checkpoint's note text. Extension lines after the third are allowed by
// C2SP and ignored.
func ParseCheckpointText(text string) (Checkpoint, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return Checkpoint{}, errors.New("checkpoint: fewer than three lines")
	}
	origin := strings.TrimSuffix(lines[0], "\n")
	sizeText := strings.TrimSuffix(lines[1], "\n")
	hashText := strings.TrimSuffix(lines[2], "\n")
	if origin == "" {
		return Checkpoint{}, errors.New("checkpoint: empty origin")
	}
	size, err := strconv.ParseInt(sizeText, 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != sizeText {
		return Checkpoint{}, fmt.Errorf("checkpoint: size %q is not a decimal", clip.Text(sizeText, 40))
	}
	h, err := base64.StdEncoding.Strict().DecodeString(hashText)
	if err != nil || len(h) != tlog.HashSize {
		return Checkpoint{}, errors.New("checkpoint: root hash is not 32 bytes of base64")
	}
	for _, l := range lines[3 : len(lines)-1] {
		if l == "\n" {
			return Checkpoint{}, errors.New("checkpoint: empty extension line")
		}
	}
	c := Checkpoint{Origin: origin, Size: size}
	copy(c.Hash[:], h)
	return c, nil
}

// SignCheckpoint answers c as a signed note. The signer's name must be c.Origin.
func SignCheckpoint(c Checkpoint, s note.Signer) ([]byte, error) {
	if s.Name() != c.Origin {
		return nil, fmt.Errorf("checkpoint: origin %q but key %q", c.Origin, s.Name())
	}
	return note.Sign(&note.Note{Text: c.Text()}, s)
}

// OpenCheckpoint verifies a signed checkpoint with v and reads it; the origin must be v's name.
func OpenCheckpoint(msg []byte, v note.Verifier) (Checkpoint, error) {
	if len(msg) > MaxCheckpointSize {
		return Checkpoint{}, fmt.Errorf("checkpoint: %d bytes, more than %d", len(msg), MaxCheckpointSize)
	}
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint: %w", err)
	}
	c, err := ParseCheckpointText(n.Text)
	if err != nil {
		return Checkpoint{}, err
	}
	if c.Origin != v.Name() {
		return Checkpoint{}, fmt.Errorf("checkpoint: origin %q is not the key's name %q", clip.Text(c.Origin, 40), v.Name())
	}
	return c, nil
}

// GenerateKey makes a new log key named origin: the signer key (note's PRIVATE+KEY+... form, kept
// secret) and the verifier key (name+hash+key, published).
func GenerateKey(rand io.Reader, origin string) (signerKey, verifierKey string, err error) {
	return note.GenerateKey(rand, origin)
}

// VerifierKey answers the verifier key (name+hash+key) of a signer key in note's PRIVATE+KEY+name+hash+key
// form, as GenerateKey writes it; an error when it is not an Ed25519 signer key.
func VerifierKey(signerKey string) (string, error) {
	if _, err := note.NewSigner(signerKey); err != nil {
		return "", fmt.Errorf("log key: %w", err)
	}
	// PRIVATE+KEY+<name>+<hash>+<base64 key>: a name holds no "+", but the
	// standard base64 of the key may.
	rest, _ := strings.CutPrefix(signerKey, "PRIVATE+KEY+")
	parts := strings.SplitN(rest, "+", 3)
	if len(parts) != 3 {
		return "", errors.New("log key: not an Ed25519 signer key")
	}
	name, key := parts[0], parts[2]
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return "", errors.New("log key: not an Ed25519 signer key")
	}
	return note.NewEd25519VerifierKey(name, ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey))
}
