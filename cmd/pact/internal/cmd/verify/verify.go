package verify

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/translog"
)

type verifyOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Owner   string
	Pack    string
	Version string // "" for the latest
	JSON    bool
	Verify  cmdutil.VerifyFlags
	// Offline checks a document file against its offline proof instead.
	Offline bool
}

func NewVerifyCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &verifyOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "verify OWNER/PACK[@VERSION] | --offline FILE.pact.md",
		Short: "Check a version against the registry's transparency log",
		Long: `Check a version, the latest or the one named after @, against the
registry's transparency log and print the whole chain: the version is
logged at an index; that entry is included in the log's checkpoint, which
is signed by the log's key and extends the last checkpoint this machine
saw; the entry holds the sha256 and size of the document the registry
serves; and for a version published by SSH signature, the signature
verifies with the logged public key over the logged six-line message.

The log's key comes as for 'pact get': --log-key, PACT_LOG_KEY, the key
pinned in the config, or the registry's, pinned on first use; so does its
witness policy (--log-policy, PACT_LOG_POLICY, pinned, or the registry's),
under which the checkpoint's cosignatures must meet the quorum, the newest
quorum at most --max-checkpoint-age old, and which witnesses cosigned is
printed. Writes no file. Exits 6 when a check fails.

With --offline, FILE.pact.md is checked against the proof 'pact get
--save-proof' wrote beside it (FILE.pact.md.tlog-proof), with no network:
the proof's checkpoint is signed by the log's key (--log-key,
PACT_LOG_KEY, or a key pinned in the config for the log the checkpoint
names), the logged entry is included in it, and the entry holds the
file's sha256 and size; the owner, pack and version logged are printed.
Any failure, a missing proof included, exits 6.`,
		Example: `  $ pact verify alice/hello
  $ pact verify alice/hello@1.0.0 --json
  $ pact verify --offline hello.pact.md`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Offline {
				return runVerifyOffline(opts, args[0])
			}
			var err error
			opts.Owner, opts.Pack, opts.Version, err = shared.ParsePackRef(args[0])
			if err != nil {
				return err
			}
			return runVerify(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	cmdutil.AddVerifyFlags(cmd, &opts.Verify, false)
	cmd.Flags().BoolVar(&opts.Offline, "offline", false, "check the document file FILE against FILE.tlog-proof, with no network")
	return cmd
}

// verification is what --json prints.
type verification struct {
	Owner              string             `json:"owner"`
	Pack               string             `json:"pack"`
	Version            string             `json:"version"`
	LogIndex           int64              `json:"log_index"`
	Entry              string             `json:"entry"`
	Checkpoint         checkpointJSON     `json:"checkpoint"`
	PreviousCheckpoint *checkpointJSON    `json:"previous_checkpoint"`
	SHA256             string             `json:"sha256"`
	Size               int64              `json:"size"`
	Auth               string             `json:"auth"`
	Signature          *signatureVerified `json:"signature"`
	Witnesses          *witnessesVerified `json:"witnesses"`
	// State is the package's newest state in the log, null when the log
	// holds none (docs/protocol.md, Package state).
	State    *stateVerified `json:"state"`
	Verified bool           `json:"verified"`
}

// stateVerified is the package's newest pack-state entry, proved included.
type stateVerified struct {
	LogIndex   int64    `json:"log_index"`
	Latest     string   `json:"latest"`
	Yanked     []string `json:"yanked"`
	Deprecated string   `json:"deprecated"`
}

// witnessesVerified is what a witness policy proved of the checkpoint:
// which of its witnesses cosigned it, when, and when a quorum last did
// (null when the quorum needs none).
type witnessesVerified struct {
	Cosigned   map[string]time.Time `json:"cosigned"`
	QuorumTime *time.Time           `json:"quorum_time"`
}

type checkpointJSON struct {
	Origin   string     `json:"origin"`
	Size     int64      `json:"size"`
	RootHash string     `json:"root_hash"`
	SeenAt   *time.Time `json:"seen_at,omitempty"`
}

type signatureVerified struct {
	Key         string `json:"key"`
	Fingerprint string `json:"fingerprint"`
	Timestamp   string `json:"timestamp"`
	Nonce       string `json:"nonce"`
	Verified    bool   `json:"verified"`
	// Unverifiable says why a signature logged before the registry kept
	// what was signed could not be checked again.
	Unverifiable string `json:"unverifiable,omitempty"`
}

func runVerify(ctx context.Context, opts *verifyOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	detail, version, err := shared.PackageAt(ctx, c, opts.Owner, opts.Pack, opts.Version)
	if err != nil {
		return err
	}
	ver := detail.FindVersion(version)
	if ver == nil {
		return fmt.Errorf("%s/%s has no version %s", opts.Owner, opts.Pack, version)
	}
	content, _, err := c.Raw(ctx, opts.Owner, opts.Pack, version)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		return fmt.Errorf("%s/%s %s: %w", opts.Owner, opts.Pack, version, err)
	}
	verified, _, err := shared.VerifyDownload(ctx, opts.Factory, c, opts.Verify, opts.Owner, opts.Pack, detail, opts.Version, version, content)
	if err != nil {
		return fail(err)
	}
	proof := verified.VersionProof
	var sig *client.SignatureProof
	if ver.Signature != nil && ver.Signature.PublicKey != nil && proof.Publish.Auth != "ssh" {
		return fail(&client.VerificationError{Check: "signature", Msg: fmt.Sprintf("the registry shows a signature by %s, but the log's entry %d records a publish with a token", ver.Signature.Fingerprint, proof.Index)})
	}
	if proof.Publish.Auth == "ssh" {
		armored := ""
		if ver.Signature != nil {
			armored = ver.Signature.Signature
			if ver.Signature.PublicKey != nil && !proof.SignatureKeyMatches(*ver.Signature.PublicKey) {
				return fail(&client.VerificationError{Check: "signature", Msg: fmt.Sprintf("the registry shows the signer key %s, but the log's entry %d records another", ver.Signature.Fingerprint, proof.Index)})
			}
		}
		sig, err = proof.VerifySignature(armored)
		if err != nil {
			return fail(err)
		}
	}

	cp := proof.Checkpoint
	sum := sha256.Sum256(content)
	out := verification{
		Owner: detail.Package.OwnerSlug, Pack: detail.Package.PackSlug, Version: version,
		LogIndex: proof.Index, Entry: string(proof.EntryBytes),
		Checkpoint: checkpointJSON{Origin: cp.Origin, Size: cp.Size, RootHash: base64.StdEncoding.EncodeToString(cp.Hash[:])},
		SHA256:     hex.EncodeToString(sum[:]), Size: int64(len(content)), Auth: proof.Publish.Auth, Verified: true,
	}
	if prev := cp.Previous; prev != nil {
		seen := prev.SeenAt
		out.PreviousCheckpoint = &checkpointJSON{Origin: prev.Origin, Size: prev.Size, RootHash: base64.StdEncoding.EncodeToString(prev.Hash[:]), SeenAt: &seen}
	}
	if w := cp.Witnessed; w != nil {
		out.Witnesses = &witnessesVerified{Cosigned: w.Cosigned}
		if !w.QuorumTime.IsZero() {
			q := w.QuorumTime
			out.Witnesses.QuorumTime = &q
		}
	}
	if st := verified.State; st != nil {
		out.State = &stateVerified{LogIndex: st.Index, Latest: st.State.Latest, Yanked: st.State.Yanked, Deprecated: st.State.Deprecated}
		if out.State.Yanked == nil {
			out.State.Yanked = []string{}
		}
	}
	if sig != nil {
		out.Signature = &signatureVerified{Key: sig.Key, Fingerprint: sig.Fingerprint, Timestamp: sig.Timestamp, Nonce: sig.Nonce,
			Verified: sig.Unverifiable == "", Unverifiable: sig.Unverifiable}
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, out)
	}
	w := opts.IO.Out
	row := func(label, format string, args ...any) {
		fmt.Fprintf(w, "  %-11s %s\n", label, fmt.Sprintf(format, text.SafeArgs(args)...))
	}
	fmt.Fprintf(w, "%s/%s %s\n", text.Safe(out.Owner), text.Safe(out.Pack), text.Safe(version))
	row("logged", "at index %d: %s by %s, %s, auth %s", proof.Index, proof.Entry.Kind, proof.Publish.Owner, text.FormatTime(proof.Entry.Time)+" UTC", proof.Publish.Auth)
	row("included", "in the checkpoint of %s of %s (root hash %s), signed by the log's key", text.Plural(cp.Size, "entry", "entries"), cp.Origin, out.Checkpoint.RootHash)
	if cp.Witnessed != nil {
		row("witnessed", "cosigned by %s: the quorum of the log's witness policy", shared.DescribeCosigners(cp.Witnessed))
	}
	if prev := cp.Previous; prev != nil {
		row("consistent", "with the checkpoint of %s seen on %s UTC", text.Plural(prev.Size, "entry", "entries"), text.FormatTime(prev.SeenAt))
	} else {
		row("consistent", "first checkpoint of this log seen here: kept to check the next ones against")
	}
	row("document", "sha256 %s, %d bytes: matches the logged entry", out.SHA256, out.Size)
	switch {
	case sig != nil && sig.Unverifiable != "":
		row("signature", "%s not checked again: %s", sig.Fingerprint, sig.Unverifiable)
	case sig != nil:
		row("signature", "%s verified over the logged six-line message (timestamp %s, nonce %s)", sig.Fingerprint, sig.Timestamp, sig.Nonce)
	default:
		row("signature", "none: published with an API token")
	}
	switch st := verified.State; {
	case st == nil:
		row("state", "none in the log yet: whether %s is the latest version, or yanked, is not checked", version)
	default:
		text := fmt.Sprintf("entry %d: latest %s", st.Index, text.OrNone(st.State.Latest))
		if len(st.State.Yanked) > 0 {
			text += ", yanked " + strings.Join(st.State.Yanked, " ")
		}
		if st.State.Deprecated != "" {
			text += ", deprecated"
		}
		if shared.IsLatest(opts.Version) {
			text += ": " + version + " is the latest"
		}
		row("state", "%s", text)
	}
	shared.WarnLoggedState(opts.IO, &detail.Package, ver, version, verified.State)
	opts.IO.Success("%s/%s %s verified", out.Owner, out.Pack, version)
	return nil
}

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
