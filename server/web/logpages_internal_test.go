package web

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/translog"
)

// The log page lists every signature on the checkpoint beside the log's
// own: a witness's cosignature by name, key hash and when it cosigned,
// another signature by name alone.
func TestLogCheckpointListsWitnesses(t *testing.T) {
	t.Parallel()
	skey, vkey, err := translog.GenerateKey(rand.Reader, "example.com/log")
	if err != nil {
		t.Fatal(err)
	}
	logSigner, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	cp := translog.Checkpoint{Origin: "example.com/log", Size: 7, Hash: tlog.RecordHash([]byte("x"))}
	signed, err := translog.SignCheckpoint(cp, logSigner)
	if err != nil {
		t.Fatal(err)
	}

	view, err := viewCheckpoint(vkey, signed)
	if err != nil {
		t.Fatal(err)
	}
	if view.Size != 7 || view.Origin != "example.com/log" || view.Root != cp.Hash.String() || len(view.Witnesses) != 0 {
		t.Fatalf("checkpoint signed by the log alone = %+v", view)
	}

	_, witnessKey, _ := ed25519.GenerateKey(rand.Reader)
	witness, err := torchwood.NewCosignatureSigner("witness.example", witnessKey)
	if err != nil {
		t.Fatal(err)
	}
	otherSkey, _, err := note.GenerateKey(rand.Reader, "other.example")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := note.NewSigner(otherSkey)
	cosigned, err := note.Sign(&note.Note{Text: cp.Text()}, logSigner, witness, other)
	if err != nil {
		t.Fatal(err)
	}
	view, err = viewCheckpoint(vkey, cosigned)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Witnesses) != 2 {
		t.Fatalf("witnesses = %+v, want the witness and the other signer", view.Witnesses)
	}
	w, o := view.Witnesses[0], view.Witnesses[1]
	if w.Name != "witness.example" || len(w.KeyHash) != 8 || w.At.IsZero() ||
		!strings.HasPrefix(witness.Verifier().String(), "witness.example+"+w.KeyHash+"+") {
		t.Errorf("witness = %+v (verifier key %s)", w, witness.Verifier())
	}
	if o.Name != "other.example" || !o.At.IsZero() {
		t.Errorf("other signer = %+v, want its name and no time", o)
	}

	if _, err := viewCheckpoint(vkey, []byte(cp.Text()+"\n— example.com/log AAAA\n")); err == nil {
		t.Errorf("a checkpoint without the log's signature was read")
	}
}
