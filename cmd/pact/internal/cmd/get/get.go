package get

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/packfmt"
)

type getOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Owner   string
	Pack    string
	Version string // "" for the latest
	// Host is the registry a package page URL named, "" for the configured one.
	Host   string
	Output string // "" for PACK.pact.md, "-" for stdout
	Force  bool
	JSON   bool
	Verify cmdutil.VerifyFlags
	// SaveProof writes the version's offline proof beside the document.
	SaveProof bool
}

func NewGetCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &getOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "get [OWNER/]PACK[@VERSION] | URL",
		Short: "Download a pack document",
		Long: `Download a pack document, the latest version or the one named after @, and
check its SHA-256 against the digest the registry reports before writing
it. The latest version (also OWNER/PACK@latest) is the highest semantic
version not yanked, releases before pre-releases; a pack with no semantic
version offers its last publish. A yanked version is still fetched when
named, with a warning on stderr, as is a deprecated package's. A version
the package does not have exits 4 naming the versions it has. The
package may also be named by the address of its page on the registry
(https://HOST/OWNER/PACK or https://HOST/OWNER/PACK@VERSION), which then
names the registry too; no token is sent to a registry other than the
configured one. Without OWNER the package is one of the token's account,
as in 'pact yank' and 'pact deprecate'.

Writes PACK.pact.md in the current directory unless -o says where; "-o -"
writes to standard output. A file that exists already is left alone when
it holds the same document, and is never overwritten with other content
unless --force is given. A regular file is replaced whole; a device or
FIFO (-o /dev/null) is written to; a symbolic link is followed.

Before writing anything, pact checks the document against the registry's
transparency log: the log's checkpoint is signed by the log's key, it
extends the last checkpoint this machine saw, the version's entry is
included in it, and the entry holds the document's sha256 and size, its
owner, pack and version. The package's newest state in the log (the
pack-state entry the registry names as its log_head) is proved included
too: asked for the latest (OWNER/PACK or @latest), the version must be the
latest it states; a pinned version it states yanked is fetched with a
warning. A registry whose log holds no state of the package yet is
trusted for the latest, and pact says so. The key is --log-key, else PACT_LOG_KEY, else
the one pinned in the config file; on first use the registry's key is
pinned there and printed (trust on first use). A failed check writes
nothing and exits 6. --no-verify skips the check, but not the comparison
of the bytes with the registry's own digests (its ETag and the version's
sha256): a mismatch there exits 6 too, with or without the log.

When the registry has a witness policy (GET /log/policy), the checkpoint
must also carry cosignatures of its witnesses that meet the policy's
quorum, the newest quorum of them cosigned at most --max-checkpoint-age
ago (24h; 0 for any age). The policy is --log-policy FILE, else the file
of PACT_LOG_POLICY, else the one pinned in the config file; on first use
the registry's policy is pinned there (none, when it has none), and a
changed policy is never trusted silently.

--save-proof also writes the version's offline proof (C2SP tlog-proof:
the log's entry, its inclusion proof and the log's signed checkpoint) to
FILE.tlog-proof beside the document, after checking it as above; 'pact
verify --offline FILE' then checks the document with no network.`,
		Example: `  $ pact get alice/hello
  $ pact get hello
  $ pact get alice/hello@1.0.0 -o vendor/hello.pact.md
  $ pact get alice/hello@latest
  $ pact get https://pact.example.com/alice/hello@1.0.0
  $ pact get --force alice/hello
  $ pact get alice/hello -o - | less
  $ pact get --no-verify alice/hello
  $ pact get --save-proof alice/hello@1.0.0
  $ pact get --log-policy witnesses.txt --max-checkpoint-age 2h alice/hello`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if shared.IsURL(args[0]) {
				opts.Host, opts.Owner, opts.Pack, opts.Version, err = shared.ParsePageURL(args[0])
			} else {
				opts.Owner, opts.Pack, opts.Version, err = shared.ParseMyPackRef(args[0])
			}
			if err != nil {
				return err
			}
			if opts.JSON && opts.Output == "-" {
				return cmdutil.UsageErrorf("--json prints the download's details on stdout: it cannot be combined with -o -")
			}
			if opts.SaveProof && opts.Output == "-" {
				return cmdutil.UsageErrorf("--save-proof writes the proof beside the document's file: it cannot be combined with -o -")
			}
			if opts.SaveProof && opts.Verify.NoVerify {
				return cmdutil.UsageErrorf("--save-proof keeps a proof checked against the log: it cannot be combined with --no-verify")
			}
			return runGet(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", `file to write ("-" for standard output; default PACK.pact.md)`)
	cmd.Flags().BoolVarP(&opts.Force, "force", "f", false, "overwrite a file that holds other content")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	cmdutil.AddVerifyFlags(cmd, &opts.Verify, true)
	cmd.Flags().BoolVar(&opts.SaveProof, "save-proof", false, "also write the version's offline proof to FILE.tlog-proof, for 'pact verify --offline'")
	return cmd
}

// getClient is the client of the registry the package was named on: the
// configured one, or the one of a page address, without the token unless
// it is the configured registry.
func getClient(opts *getOptions) (*client.Client, error) {
	c, err := opts.Factory.Client()
	if err != nil || opts.Host == "" {
		return c, err
	}
	configured, err := url.Parse(c.BaseURL())
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(configured.Scheme+"://"+configured.Host, opts.Host) {
		return c, nil
	}
	return opts.Factory.NewClient(opts.Host, "")
}

// existingFile compares the file at path with content: same is true when it
// holds exactly content; exists is false when there is no regular file.
func existingFile(path string, content []byte) (exists, same bool, err error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if !info.Mode().IsRegular() {
		return false, false, nil // a device or FIFO is written to
	}
	if info.Size() != int64(len(content)) {
		return true, false, nil
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return true, false, err
	}
	return true, bytes.Equal(old, content), nil
}

// download is what --json prints about a fetched document.
type download struct {
	Owner   string `json:"owner"`
	Pack    string `json:"pack"`
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
	Size    int    `json:"size"`
	Path    string `json:"path"`
	// The owner's warnings: the version was yanked, the package is
	// deprecated ("" when not).
	Yanked     bool   `json:"yanked"`
	YankReason string `json:"yank_reason"`
	Deprecated string `json:"deprecated"`
	// Verified says the document was checked against the log; LogIndex and
	// CheckpointSize say where (absent with --no-verify).
	Verified       bool   `json:"verified"`
	LogIndex       *int64 `json:"log_index,omitempty"`
	CheckpointSize *int64 `json:"checkpoint_size,omitempty"`
	// ProofPath is where --save-proof wrote the offline proof.
	ProofPath string `json:"proof_path,omitempty"`
}

func runGet(ctx context.Context, opts *getOptions) error {
	c, err := getClient(opts)
	if err != nil {
		return err
	}
	if opts.Owner, err = shared.OwnerOrMe(ctx, c, opts.Owner); err != nil {
		return err
	}
	detail, version, err := shared.PackageAt(ctx, c, opts.Owner, opts.Pack, opts.Version)
	if err != nil {
		return err
	}
	// Fetch the pinned version even for "latest", so a publish in between
	// cannot pair one version's digest with another's content.
	content, etag, err := c.Raw(ctx, opts.Owner, opts.Pack, version)
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound && detail.FindVersion(version) == nil {
		return shared.NoSuchVersion(err, detail)
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(content)
	got := hex.EncodeToString(sum[:])
	want := etag
	v := detail.FindVersion(version)
	// Either mismatch is evidence that the registry serves other bytes
	// than it logged (an edited database, a stale cache in front of one):
	// exit 6, like the log's own checks, whichever sees it first.
	if v != nil && v.SHA256 != etag {
		return &client.VerificationError{Check: "digest", Msg: fmt.Sprintf(
			"the registry reports two digests for %s/%s %s (%s in its package details, %s with the document); nothing written", opts.Owner, opts.Pack, version, v.SHA256, etag)}
	}
	if got != want {
		return &client.VerificationError{Check: "digest", Msg: fmt.Sprintf(
			"checksum mismatch for %s/%s %s: downloaded sha256 %s, the registry reports %s; nothing written", opts.Owner, opts.Pack, version, got, want)}
	}
	var proof *shared.VerifiedDownload
	var offlineProof []byte
	if !opts.Verify.NoVerify {
		var lv *client.LogVerifier
		proof, lv, err = shared.VerifyDownload(ctx, opts.Factory, c, opts.Verify, opts.Owner, opts.Pack, detail, opts.Version, version, content)
		if err == nil && opts.SaveProof {
			offlineProof, err = lv.ProofOfVersion(ctx, proof.VersionProof)
		}
		if err != nil {
			return fmt.Errorf("%s/%s %s: %w; nothing written", opts.Owner, opts.Pack, version, err)
		}
	}
	// The download goes ahead (pins keep working); the owner's warnings go
	// to stderr, where scripts that read stdout do not trip on them.
	warnLifecycle(opts.IO, &detail.Package, v)
	if proof != nil {
		shared.WarnLoggedState(opts.IO, &detail.Package, v, version, proof.State)
	}

	if opts.Output == "-" {
		if opts.IO.StdoutTTY {
			// A document is anyone's text: on a terminal it is shown, and
			// its escape sequences with it, rather than obeyed.
			_, err := io.WriteString(opts.IO.Out, text.SafeLines(string(content)))
			return err
		}
		_, err := opts.IO.Out.Write(content)
		return err
	}
	path := opts.Output
	if path == "" {
		// The file name comes from the registry's answer: a registry that
		// is not well-behaved must not name a file elsewhere ("../x").
		if slug := detail.Package.PackSlug; slug == "" || packfmt.Slug(slug) != slug {
			return fmt.Errorf("the registry names the pack %q, which is not a slug; nothing written (give a file with -o)", slug)
		}
		path = detail.Package.PackSlug + ".pact.md"
	}
	exists, same, err := existingFile(path, content)
	if err != nil {
		return err
	}
	if exists && !same && !opts.Force {
		return fmt.Errorf("%s exists and holds something other than %s/%s %s: not overwritten; pass --force to replace it, or -o to write elsewhere", path, opts.Owner, opts.Pack, version)
	}
	if !same {
		if err := cmdutil.SaveFile(path, content, 0o644, 0o755); err != nil {
			return err
		}
	}
	proofPath := ""
	if offlineProof != nil {
		proofPath = path + shared.ProofSuffix
		if err := cmdutil.SaveFile(proofPath, offlineProof, 0o644, 0o755); err != nil {
			return err
		}
	}
	if opts.JSON {
		d := download{
			Owner: opts.Owner, Pack: opts.Pack, Version: version, SHA256: got, Size: len(content), Path: path,
			Deprecated: detail.Package.Deprecated,
		}
		if v != nil {
			d.Yanked, d.YankReason = v.Yanked, v.YankReason
		}
		if proof != nil {
			d.Verified = true
			d.LogIndex = &proof.Index
			d.CheckpointSize = &proof.Checkpoint.Size
		}
		d.ProofPath = proofPath
		return cmdutil.ExportJSON(opts.IO.Out, d)
	}
	if same {
		opts.IO.Success("%s already holds %s/%s %s (sha256 %s verified); left as it was", path, opts.Owner, opts.Pack, version, got)
	} else {
		opts.IO.Success("Downloaded %s/%s %s to %s (sha256 %s verified)", opts.Owner, opts.Pack, version, path, got)
	}
	if proof != nil {
		opts.IO.Info("  logged at index %d, included in the checkpoint of %s of %s", proof.Index, text.Plural(proof.Checkpoint.Size, "entry", "entries"), proof.Checkpoint.Origin)
		if w := proof.Checkpoint.Witnessed; w != nil {
			opts.IO.Info("  cosigned by %s", shared.DescribeCosigners(w))
		}
		switch st := proof.State; {
		case st == nil:
			opts.IO.Info("  the log holds no state of %s/%s yet: whether %s is its latest version, or yanked, is not checked", opts.Owner, opts.Pack, version)
		case shared.IsLatest(opts.Version):
			opts.IO.Info("  the latest version, as the log's state of the package (entry %d) says", st.Index)
		}
		if proofPath != "" {
			opts.IO.Info("  offline proof written to %s ('pact verify --offline %s' checks it with no network)", proofPath, path)
		}
	} else {
		opts.IO.Info("  not checked against the registry's transparency log (--no-verify)")
	}
	return nil
}

// warnLifecycle tells the user that the version fetched is yanked or the
// package deprecated (v is nil when the version is not in the detail).
func warnLifecycle(io *iostreams.IOStreams, p *client.Package, v *client.Version) {
	if v != nil && v.Yanked {
		if v.YankReason != "" {
			io.Info("warning: %s %s is yanked: %s", p.FullName(), v.Version, v.YankReason)
		} else {
			io.Info("warning: %s %s is yanked", p.FullName(), v.Version)
		}
	}
	if p.Deprecated != "" {
		io.Info("warning: %s is deprecated: %s", p.FullName(), p.Deprecated)
	}
}
