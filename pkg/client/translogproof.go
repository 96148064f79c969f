package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/translog"
)

// Offline proofs (docs/protocol.md, Offline proofs): a C2SP tlog-proof of
// one entry, which anyone holding the log's key checks with no request.
// The proof's format and its check are filippo.io/torchwood's.

// maxProofBytes bounds a proof read or checked: one entry in base64, at
// most 64 hashes and a checkpoint.
const maxProofBytes = 4*translog.MaxEntrySize/3 + 64*64 + maxCheckpointBytes + 1024

// ProofHeader is the first line of a C2SP tlog-proof.
const ProofHeader = "c2sp.org/tlog-proof@v1"

// EntryProof is what an offline proof proved: the entry at Index is
// included in Checkpoint, which the log's key signed.
type EntryProof struct {
	Index      int64
	Checkpoint translog.Checkpoint
	// EntryBytes is the entry as logged; Entry is it parsed.
	EntryBytes []byte
	Entry      *translog.Entry
}

// ProofOrigin answers the origin the checkpoint of an offline proof names,
// unauthenticated: it says which log's key checks the proof.
func ProofOrigin(proof []byte) (string, error) {
	_, checkpoint, err := splitProof(proof)
	if err != nil {
		return "", err
	}
	origin, _, _ := strings.Cut(string(checkpoint), "\n")
	return origin, nil
}

// splitProof reads the index line and the signed checkpoint of a proof;
// torchwood checks the rest.
func splitProof(proof []byte) (index int64, checkpoint []byte, err error) {
	malformed := func(why string) error {
		return verifyErrorf("proof", "the proof is not a C2SP tlog-proof: %s", why)
	}
	if len(proof) > maxProofBytes {
		return 0, nil, verifyErrorf("bounds", "the proof is %d bytes, more than %d", len(proof), maxProofBytes)
	}
	text := string(proof)
	header, rest, _ := strings.Cut(text, "\n")
	if header != ProofHeader {
		return 0, nil, malformed("its first line is not " + ProofHeader)
	}
	if strings.HasPrefix(rest, "extra ") {
		_, rest, _ = strings.Cut(rest, "\n")
	}
	line, rest, _ := strings.Cut(rest, "\n")
	digits, ok := strings.CutPrefix(line, "index ")
	index, perr := strconv.ParseInt(digits, 10, 64)
	if !ok || perr != nil || index < 0 {
		return 0, nil, malformed(fmt.Sprintf("no index line (%q)", clip.Text(line, 40)))
	}
	// The hashes end at the first empty line; the checkpoint follows.
	_, cp, ok := strings.Cut("\n"+rest, "\n\n")
	if !ok {
		return 0, nil, malformed("no checkpoint after the hashes")
	}
	return index, []byte(cp), nil
}

// VerifyEntryProof checks an offline proof with the log's verifier key
// (name+hash+key) and no request: the checkpoint is signed by the key and
// names the key's log as its origin, and the entry carried as extra data
// is included in it at the proof's index (torchwood.VerifyProof).
func VerifyEntryProof(key string, proof []byte) (*EntryProof, error) {
	v, err := note.NewVerifier(strings.TrimSpace(key))
	if err != nil {
		return nil, fmt.Errorf("the log key %q is not a verifier key (name+hash+key): %v", clip.Text(key, 80), err)
	}
	index, checkpoint, err := splitProof(proof)
	if err != nil {
		return nil, err
	}
	entry, err := torchwood.ProofExtraData(proof)
	if err != nil {
		return nil, verifyErrorf("proof", "the proof carries no entry: %v", err)
	}
	policy := torchwood.ThresholdPolicy(2, torchwood.OriginPolicy(v.Name()), torchwood.SingleVerifierPolicy(v))
	if err := torchwood.VerifyProof(policy, translog.RecordHash(entry), proof); err != nil {
		var recordErr *torchwood.VerifyRecordError
		var unverified *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		switch {
		case errors.As(err, &recordErr):
			return nil, verifyErrorf("inclusion", "the proof does not include its entry at index %d in its checkpoint", index)
		case errors.As(err, &unverified), errors.As(err, &invalid):
			// torchwood wraps a policy not met (another origin, another
			// key) as an unverified note too.
			return nil, verifyErrorf("checkpoint", "the proof's checkpoint is not signed by the pinned key %s", key)
		default:
			return nil, verifyErrorf("proof", "the proof does not verify: %v", err)
		}
	}
	cp, err := translog.OpenCheckpoint(checkpoint, v)
	if err != nil {
		return nil, verifyErrorf("checkpoint", "the proof's checkpoint: %v", err)
	}
	parsed, err := translog.Parse(entry)
	if err != nil {
		return nil, verifyErrorf("entry", "the proof's entry %d does not parse: %v", index, err)
	}
	return &EntryProof{Index: index, Checkpoint: cp, EntryBytes: entry, Entry: parsed}, nil
}

// VerifyDocumentProof checks an offline proof of a document with the log's
// key and no request: the proof verifies (VerifyEntryProof) and its entry
// is the publish of a document with content's sha256 and size.
func VerifyDocumentProof(key string, proof, content []byte) (*EntryProof, translog.PublishEvent, error) {
	p, err := VerifyEntryProof(key, proof)
	if err != nil {
		return nil, translog.PublishEvent{}, err
	}
	pub, err := p.Entry.Publish()
	if err != nil {
		return nil, translog.PublishEvent{}, verifyErrorf("entry", "the proof's entry %d is not the publish of a document: %v", p.Index, err)
	}
	if got := sha256Hex(content); got != pub.SHA256 {
		return nil, translog.PublishEvent{}, verifyErrorf("entry", "the document's sha256 differs from the logged one: the file has %s, entry %d logged %s", got, p.Index, pub.SHA256)
	}
	if int64(len(content)) != pub.Size {
		return nil, translog.PublishEvent{}, verifyErrorf("entry", "the document's size differs from the logged one: the file has %d bytes, entry %d logged %d", len(content), p.Index, pub.Size)
	}
	return p, pub, nil
}

// ProofOfVersion fetches the offline proof of a version VerifyVersion
// proved (GET /log/proof/{index}) and checks it before anyone keeps it:
// it verifies with the pinned key, carries the very entry proved, and its
// checkpoint and the one the version was proved in are of one history.
func (v *LogVerifier) ProofOfVersion(ctx context.Context, vp *VersionProof) ([]byte, error) {
	path := routes.Fill(routes.LogProof, strconv.FormatInt(vp.Index, 10))
	proof, err := v.c.getLog(ctx, path, maxProofBytes)
	if err != nil {
		if IsNotFound(err) {
			return nil, verifyErrorf("proof", "the registry serves no proof of its log's entry %d (GET %s answered 404)", vp.Index, path)
		}
		return nil, logRouteError(path, err)
	}
	p, err := VerifyEntryProof(v.key, proof)
	if err != nil {
		return nil, err
	}
	if p.Index != vp.Index || !bytes.Equal(p.EntryBytes, vp.EntryBytes) {
		return nil, verifyErrorf("proof", "the registry's proof is of entry %d, not of the entry %d verified", p.Index, vp.Index)
	}
	_, note, _ := splitProof(proof)
	cp := &Checkpoint{Checkpoint: p.Checkpoint, Note: note}
	older, newer := vp.Checkpoint, cp
	if older.Size > newer.Size {
		older, newer = newer, older
	}
	seen := &SeenCheckpoint{Checkpoint: older.Checkpoint, Note: older.Note, SeenAt: v.c.now()}
	if err := v.checkConsistent(ctx, seen, newer); err != nil {
		return nil, err
	}
	return proof, nil
}
