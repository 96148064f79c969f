package verify

import (
	"encoding/base64"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/translog"
)

// offlineVerification is what verify --offline --json prints.
type offlineVerification struct {
	File       string         `json:"file"`
	Proof      string         `json:"proof"`
	Owner      string         `json:"owner"`
	Pack       string         `json:"pack"`
	Version    string         `json:"version"`
	LogIndex   int64          `json:"log_index"`
	Entry      string         `json:"entry"`
	Checkpoint checkpointJSON `json:"checkpoint"`
	SHA256     string         `json:"sha256"`
	Size       int64          `json:"size"`
	Auth       string         `json:"auth"`
	Verified   bool           `json:"verified"`
}

// runVerifyOffline checks a document against the offline proof kept beside
// it (pact get --save-proof) with the pinned log key and no request: every
// failure is a failed verification (exit 6).
func runVerifyOffline(opts *verifyOptions, file string) error {
	proofPath := file + shared.ProofSuffix
	fail := func(check, format string, args ...any) error {
		return &client.VerificationError{Check: check, Msg: fmt.Sprintf("%s: %s", file, fmt.Sprintf(format, args...))}
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return fail("document", "cannot read the document: %v", err)
	}
	proof, err := os.ReadFile(proofPath)
	if err != nil {
		return fail("proof", "cannot read its proof: %v (write it with 'pact get --save-proof')", err)
	}
	keys, err := offlineLogKeys(opts, proof)
	if err != nil {
		return fail("log-key", "%v", err)
	}
	var p *client.EntryProof
	var ev translog.PublishEvent
	for _, key := range keys {
		if p, ev, err = client.VerifyDocumentProof(key, proof, content); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	out := offlineVerification{
		File: file, Proof: proofPath, Owner: ev.Owner, Pack: ev.Pack, Version: ev.Version,
		LogIndex: p.Index, Entry: string(p.EntryBytes),
		Checkpoint: checkpointJSON{Origin: p.Checkpoint.Origin, Size: p.Checkpoint.Size, RootHash: base64.StdEncoding.EncodeToString(p.Checkpoint.Hash[:])},
		SHA256:     ev.SHA256, Size: ev.Size, Auth: ev.Auth, Verified: true,
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, out)
	}
	w := opts.IO.Out
	row := func(label, format string, args ...any) {
		fmt.Fprintf(w, "  %-11s %s\n", label, fmt.Sprintf(format, text.SafeArgs(args)...))
	}
	fmt.Fprintf(w, "%s/%s %s\n", text.Safe(out.Owner), text.Safe(out.Pack), text.Safe(out.Version))
	row("logged", "at index %d: %s by %s, %s, auth %s", p.Index, p.Entry.Kind, ev.Owner, text.FormatTime(p.Entry.Time)+" UTC", ev.Auth)
	row("included", "in the checkpoint of %s of %s (root hash %s), signed by the log's key", text.Plural(p.Checkpoint.Size, "entry", "entries"), p.Checkpoint.Origin, out.Checkpoint.RootHash)
	row("document", "%s: sha256 %s, %d bytes: matches the logged entry", file, out.SHA256, out.Size)
	opts.IO.Success("%s verified offline against %s: %s/%s %s", file, proofPath, out.Owner, out.Pack, out.Version)
	return nil
}

// offlineLogKeys answers the keys that may check proof: --log-key or
// PACT_LOG_KEY, else the keys pinned in the config (by pact get, for any
// registry) for the log the proof's checkpoint names. The proof only picks
// among keys the user pinned; it never brings its own.
func offlineLogKeys(opts *verifyOptions, proof []byte) ([]string, error) {
	if key := opts.Verify.LogKey; key != "" {
		return []string{key}, nil
	}
	if key := opts.Factory.Settings().Env("PACT_LOG_KEY"); key != "" {
		return []string{key}, nil
	}
	origin, err := client.ProofOrigin(proof)
	if err != nil {
		return nil, err
	}
	cfg, err := opts.Factory.Config()
	if err != nil {
		return nil, err
	}
	pinned, err := cmdutil.PinnedLogKeys(cfg.Path)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, key := range pinned {
		if name, _, _ := strings.Cut(key, "+"); name == origin && !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no key is pinned in %s for the log %s that the proof names: pass it with --log-key, or run 'pact get' from its registry once to pin it", cfg.Path, text.Safe(origin))
	}
	return keys, nil
}
