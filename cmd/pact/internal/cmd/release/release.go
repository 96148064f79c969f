package release

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

// maxReleaseFileBytes is the server's bound on a release (256 KiB).
const maxReleaseFileBytes = 256 << 10

func NewReleaseCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "release <command>",
		Short: "Register and read releases: the artifacts built from a pack version",
		Long: `A release links one published version of a pack to the artifacts built
from it (binaries, images, generated code), with their digests, the index
that lists them and the source commit. A release is immutable: registering
the identical release again changes nothing, a different one is refused.
Each registration is an entry in the registry's transparency log.

Registering needs a token with the publish scope for the pack; reading is
public.`,
		Example: `  $ pact release register widget@1.2.0 --artifact-index-url https://github.com/alice/widget/releases/tag/v1.2.0 \
      --artifact name=widget-linux-amd64.tar.gz,url=https://example.com/widget-linux-amd64.tar.gz,sha256=9f86d0... \
      --commit abc1234
  $ pact release register --from-file release.json
  $ pact release list alice/widget
  $ pact release get alice/widget@1.2.0`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newReleaseRegisterCmd(f), newReleaseListCmd(f), newReleaseGetCmd(f))
	return cmd
}

type releaseRegisterOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Ref            string // [OWNER/]PACK@VERSION, "" with --from-file naming them
	FromFile       string
	IndexURL       string
	Artifacts      []string
	Commit         string
	ContractURL    string
	ContractDigest string
	JSON           bool
}

func newReleaseRegisterCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &releaseRegisterOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "register [[OWNER/]PACK@VERSION] (--artifact-index-url URL [--artifact KEY=VALUE,...]... | --from-file FILE)",
		Short: "Register the release of a version of one of your packs",
		Long: `Register which artifacts were built from a published version of one of
your packs. Without OWNER the pack is one of the token's account.

Give the release with flags:
  --artifact-index-url URL   the http(s) page or file that lists the artifacts (required)
  --artifact KEY=VALUE,...   one artifact (repeatable): name, url, sha256, digest
                             (sha256:|sha384:|sha512:HEX), size (bytes), media_type,
                             or any other key, kept as a string; at least name or url
  --commit SHA               the source git commit, 7 to 64 hex digits
  --contract-url URL         where the pack document was fetched from
  --contract-digest DIGEST   the document's sha256 the build used; refused unless it
                             is the version's

or as a JSON file (- for standard input) in the shape of POST /api/releases:
  {"contract_id": "alice/widget", "version": "1.2.0",
   "artifact_index_url": "https://...", "artifacts": [{"name": "...", "sha256": "..."}],
   "source_git_commit": "abc1234"}
A PACK@VERSION argument given with --from-file replaces its contract_id and
version; the flags above are not combined with a file.

Registering the identical release again succeeds and changes nothing; a
different release of the same version is refused (exit status 5).`,
		Example: `  $ pact release register widget@1.2.0 --artifact-index-url https://github.com/alice/widget/releases/tag/v1.2.0 \
      --artifact name=widget-linux-amd64.tar.gz,url=https://example.com/widget-linux-amd64.tar.gz,sha256=9f86d0... \
      --commit abc1234
  $ pact release register alice/widget@1.2.0 --from-file release.json
  $ goreleaser-to-json | pact release register --from-file -`,
		Args: cmdutil.UsageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Ref = args[0]
			}
			return runReleaseRegister(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.FromFile, "from-file", "", "read the release as JSON from FILE (- for standard input)")
	fl.StringVar(&opts.IndexURL, "artifact-index-url", "", "http(s) URL of the index that lists the artifacts")
	fl.StringArrayVar(&opts.Artifacts, "artifact", nil, "one artifact as KEY=VALUE pairs separated by commas (repeatable)")
	fl.StringVar(&opts.Commit, "commit", "", "source git commit the artifacts were built from")
	fl.StringVar(&opts.ContractURL, "contract-url", "", "URL the pack document was fetched from")
	fl.StringVar(&opts.ContractDigest, "contract-digest", "", "sha256 of the pack document the build used (sha256:HEX or HEX)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

// parseArtifact reads name=...,url=...,sha256=...,size=N.
func parseArtifact(spec string) (map[string]any, error) {
	out := map[string]any{}
	for _, pair := range strings.Split(spec, ",") {
		key, value, ok := strings.Cut(pair, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, cmdutil.UsageErrorf("--artifact %q: %q is not KEY=VALUE", spec, pair)
		}
		if _, dup := out[key]; dup {
			return nil, cmdutil.UsageErrorf("--artifact %q: %s is given twice", spec, key)
		}
		if key == "size" {
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 {
				return nil, cmdutil.UsageErrorf("--artifact %q: size %q is not a whole number of bytes", spec, value)
			}
			out[key] = n
			continue
		}
		out[key] = value
	}
	if out["name"] == nil && out["url"] == nil {
		return nil, cmdutil.UsageErrorf("--artifact %q: give at least name= or url=", spec)
	}
	return out, nil
}

func (opts *releaseRegisterOptions) request() (client.ReleaseRequest, error) {
	var req client.ReleaseRequest
	flagsUsed := opts.IndexURL != "" || len(opts.Artifacts) > 0 || opts.Commit != "" || opts.ContractURL != "" || opts.ContractDigest != ""
	if opts.FromFile != "" {
		if flagsUsed {
			return req, cmdutil.UsageErrorf("--from-file is not combined with --artifact-index-url, --artifact, --commit, --contract-url or --contract-digest")
		}
		var r io.Reader
		if opts.FromFile == "-" {
			r = opts.IO.In
		} else {
			file, err := os.Open(opts.FromFile)
			if err != nil {
				return req, err
			}
			defer file.Close()
			r = file
		}
		data, err := io.ReadAll(io.LimitReader(r, maxReleaseFileBytes+1))
		if err != nil {
			return req, err
		}
		if len(data) > maxReleaseFileBytes {
			return req, cmdutil.UsageErrorf("%s is larger than a release may be (256 KiB)", opts.FromFile)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // sizes and other numbers travel as written
		if err := dec.Decode(&req); err != nil {
			return req, cmdutil.UsageErrorf("%s is not a release as JSON: %v", opts.FromFile, err)
		}
	} else {
		if opts.IndexURL == "" {
			return req, cmdutil.UsageErrorf("give --artifact-index-url (and --artifact for each artifact), or --from-file")
		}
		req.ArtifactIndexURL = opts.IndexURL
		req.Artifacts = []map[string]any{}
		for _, spec := range opts.Artifacts {
			a, err := parseArtifact(spec)
			if err != nil {
				return req, err
			}
			req.Artifacts = append(req.Artifacts, a)
		}
		optional := func(s string) *string {
			if s == "" {
				return nil
			}
			return &s
		}
		req.SourceGitCommit, req.ContractURL, req.ContractDigest = optional(opts.Commit), optional(opts.ContractURL), optional(opts.ContractDigest)
	}
	if opts.Ref != "" {
		owner, pack, version, err := shared.ParseVersionRef(opts.Ref)
		if err != nil {
			return req, err
		}
		req.ContractID, req.Version = pack, version
		if owner != "" {
			req.ContractID = owner + "/" + pack
		}
	}
	if req.ContractID == "" || req.Version == "" {
		return req, cmdutil.UsageErrorf("name the version: [OWNER/]PACK@VERSION, or contract_id and version in --from-file")
	}
	return req, nil
}

func runReleaseRegister(ctx context.Context, opts *releaseRegisterOptions) error {
	req, err := opts.request()
	if err != nil {
		return err
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	res, err := c.RegisterRelease(ctx, req)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, res)
	}
	r := &res.Release
	if res.Created {
		opts.IO.Success("Registered the release of %s %s: %s", r.ContractID, r.Version, text.Plural(int64(len(r.Artifacts)), "artifact", "artifacts"))
	} else {
		opts.IO.Success("The release of %s %s was registered already, identical: nothing changed", r.ContractID, r.Version)
	}
	return nil
}

type releaseListOptions struct {
	IO          *iostreams.IOStreams
	Factory     *cmdutil.Factory
	Owner, Pack string
	Limit       int
	JSON        bool
}

func newReleaseListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &releaseListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list OWNER/PACK",
		Aliases: []string{"ls"},
		Short:   "List the releases of a pack, newest first",
		Long: `List the releases registered for a pack's versions, the newest
registration first: the version, how many artifacts, the source commit and
when it was registered. --limit bounds how many are shown (default 20).`,
		Example: `  $ pact release list alice/widget
  $ pact release list alice/widget --limit 100 --json`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			owner, pack, version, err := shared.ParsePackRef(args[0])
			if err != nil {
				return err
			}
			if version != "" {
				return cmdutil.UsageErrorf("%q: list takes OWNER/PACK; 'pact release get' shows one version's release", args[0])
			}
			if opts.Limit < 1 {
				return cmdutil.UsageErrorf("--limit must be at least 1")
			}
			opts.Owner, opts.Pack = owner, pack
			return runReleaseList(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.Limit, "limit", 20, "show at most this many releases")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runReleaseList(ctx context.Context, opts *releaseListOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	releases := []client.ReleaseSummary{}
	for cursor := ""; len(releases) < opts.Limit; {
		page, err := c.ListReleases(ctx, opts.Owner, opts.Pack, min(opts.Limit-len(releases), 100), cursor)
		if err != nil {
			return err
		}
		releases = append(releases, page.Releases...)
		if page.NextCursor == nil || len(page.Releases) == 0 {
			break
		}
		cursor = *page.NextCursor
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, releases)
	}
	if len(releases) == 0 {
		opts.IO.Info("No releases of %s/%s", opts.Owner, opts.Pack)
		return nil
	}
	w := cmdutil.NewTable(opts.IO.Out)
	cmdutil.WriteRow(w, "VERSION", "ARTIFACTS", "COMMIT", "REGISTERED")
	for _, r := range releases {
		commit := "-"
		if r.SourceGitCommit != nil {
			commit = *r.SourceGitCommit
		}
		cmdutil.WriteRow(w, r.Version, strconv.Itoa(r.ArtifactCount), commit, text.FormatTime(r.CreatedAt))
	}
	return w.Flush()
}

type releaseGetOptions struct {
	IO                   *iostreams.IOStreams
	Factory              *cmdutil.Factory
	Owner, Pack, Version string
	JSON                 bool
}

func newReleaseGetCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &releaseGetOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "get OWNER/PACK[@VERSION]",
		Short: "Show the release of a version",
		Long: `Show the release of one version (the latest without @VERSION): the
digest of the pack document it was built from, the source commit, the
artifact index and each artifact with its digest, size and URL.`,
		Example: `  $ pact release get alice/widget@1.2.0
  $ pact release get alice/widget --json`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			opts.Owner, opts.Pack, opts.Version, err = shared.ParsePackRef(args[0])
			if err != nil {
				return err
			}
			if opts.Version == "" {
				opts.Version = "latest"
			}
			return runReleaseGet(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runReleaseGet(ctx context.Context, opts *releaseGetOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	r, err := c.GetRelease(ctx, opts.Owner, opts.Pack, opts.Version)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, r)
	}
	out := opts.IO.Out
	line := func(label, value string) { fmt.Fprintf(out, "%-16s %s\n", label, text.Safe(value)) }
	line("release", r.ContractID+" "+r.Version)
	line("contract digest", r.ContractDigest)
	if r.SourceGitCommit != nil {
		line("source commit", *r.SourceGitCommit)
	}
	line("artifact index", r.ArtifactIndexURL)
	if r.ContractURL != nil {
		line("contract url", *r.ContractURL)
	}
	line("registered", text.FormatTime(r.CreatedAt)+" UTC")
	if r.LogIndex != nil {
		line("log entry", strconv.FormatInt(*r.LogIndex, 10))
	}
	line("release digest", r.ReleaseDigest)
	if len(r.Artifacts) == 0 {
		fmt.Fprintln(out, "\nno artifacts")
		return nil
	}
	fmt.Fprintln(out)
	w := cmdutil.NewTable(out)
	cmdutil.WriteRow(w, "ARTIFACT", "DIGEST", "SIZE", "URL")
	for _, a := range r.Artifacts {
		field := func(k string) string {
			if s, ok := a[k].(string); ok {
				return s
			}
			return ""
		}
		digest := field("digest")
		if sum := field("sha256"); sum != "" {
			digest = "sha256:" + sum
		}
		size := "-"
		if v, ok := a["size"]; ok {
			size = fmt.Sprint(v)
		}
		cmdutil.WriteRow(w, text.OrDash(field("name")), text.OrDash(digest), size, text.OrDash(field("url")))
	}
	return w.Flush()
}
