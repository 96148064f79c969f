package publish

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/packfmt"
)

type publishOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Files       []string
	Name        string
	Description string
	Owner       string
	Sign        bool
	KeyPath     string
	DryRun      bool
	OIDC        bool
	JSON        bool
	KeepGoing   bool
	Yes         bool
}

func NewPublishCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &publishOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "publish FILE|DIR...",
		Short: "Publish pack documents",
		Long: `Publish pack documents (*.pact.md) to the registry, in the order given, one
line each. "-" reads a document from standard input; a directory stands
for every *.pact.md inside it (hidden directories aside), and pact says
how many it found and lists them, each with the pack and version it
publishes, on standard error. On a terminal pact then asks the registry
which of those packages do not exist yet (one request per document) and
asks before creating them; --yes does not ask. Without a terminal (in
scripts and CI) it publishes without asking.

Every document is checked first, as 'pact validate' does: when one is
invalid, nothing is published. Then pact stops at the first document the
registry refuses, unless --keep-going: it publishes every valid document
it can, ends with a summary of what failed, and exits non-zero (the exit
code of the first failure). On a terminal a counter shows which document
is on its way. Publishing several documents has no default --timeout,
since its work grows with them (each request is still bounded); a
--timeout given bounds the whole.

Publishing the same version again with identical content changes nothing
and succeeds, so CI jobs may retry. The same version with other content
is refused (exit 5): versions are immutable.

--json prints one object per document: "package" describes the package,
that is its latest version, and "published" the version just published
(or found identical): its version, sha256, size, created_at and
log_index. An older version or a pre-release does not become the latest.

By default the API token authenticates (see 'pact login'). With --sign
an SSH signature does instead: the key is the ssh-agent's only key, or,
when it holds several, the one registered for your account (pact asks
the registry, with the token), or the one --key names (a public key whose
private half the agent holds, or a private key file). Register the public
key first with 'pact keys add'; a key the registry does not know exits 3.

When the pack's name lost characters on the way to its slug (letters
with no slug form, a cut to 64 characters), the registry's warnings are
printed on standard error; --json lists them under "warnings". Letters
with diacritics are not lost: "Crème Brûlée" publishes as creme-brulee.

In CI, with no token configured, pact publishes by trusted publishing
(see 'pact trust'): in GitHub Actions (a job with permissions: id-token:
write) it asks GitHub for an ID token whose audience is the registry's
address, in GitLab CI it reads the ID token in PACT_ID_TOKEN, exchanges
it for a publish token valid 15 minutes, and publishes with that.
--oidc does so even when a token is configured. --owner (or --name
OWNER/PACK) is sent with the exchange, which then considers only that
account's trusted publishers: when another account's trust matches the
job too, the registry refuses the exchange until the owner is named,
your own username included.

--owner ORG publishes into the organisation ORG, of which you must be a
maintainer or owner (see 'pact org'). With --sign the signed name line
becomes ORG/NAME, which names the organisation; --name ORG/NAME does the
same without --owner.

--dry-run checks the documents offline, as 'pact validate' does, and
with --sign also finds the signing key, but publishes nothing.`,
		Example: `  $ pact publish hello.pact.md
  $ pact publish --description "Greets people" hello.pact.md
  $ cat hello.pact.md | pact publish -
  $ pact publish --sign packs/*.pact.md
  $ pact publish --keep-going packs/
  $ pact publish --yes packs/
  $ pact publish --sign --key ~/.ssh/id_ed25519.pub hello.pact.md
  $ pact publish --owner acme hello.pact.md
  $ pact publish --dry-run hello.pact.md`,
		Args: cmdutil.UsageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runPublish(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Name, "name", "", "name of the pack, instead of the document's (one file only)")
	fl.StringVar(&opts.Description, "description", "", "description of the pack, instead of the document's")
	fl.StringVar(&opts.Owner, "owner", "", "publish into this organisation (you must be a maintainer or owner) instead of your own namespace")
	fl.BoolVar(&opts.Sign, "sign", false, "authenticate with an SSH signature instead of the token")
	fl.StringVar(&opts.KeyPath, "key", "", "SSH key to sign with: a public key held by the ssh-agent, or a private key file (implies --sign)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "check the documents offline and publish nothing")
	fl.BoolVar(&opts.KeepGoing, "keep-going", false, "publish every valid document even when some fail, then say which failed (exit non-zero)")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "do not ask before a directory's documents create new packages")
	fl.BoolVar(&opts.OIDC, "oidc", false, "exchange the CI job's OpenID Connect ID token for a publish token (trusted publishing), even with a token configured")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

// publishOutcome is one published document, as --json prints it.
type publishOutcome struct {
	File string `json:"file"`
	client.PublishResult
}

func runPublish(ctx context.Context, opts *publishOptions) error {
	if err := shared.CheckStdinOnce(opts.Files); err != nil {
		return err
	}
	files, dirs, err := expandDocuments(opts.IO, opts.Files)
	if err != nil {
		return err
	}
	opts.Files = files
	if opts.Name != "" && len(opts.Files) > 1 {
		return cmdutil.UsageErrorf("--name names one pack: give one file with it")
	}
	if opts.KeyPath != "" {
		opts.Sign = true
	}

	// Every document is read and checked before any is published, so that
	// a bad one late in the list does not leave the others half published.
	docs, invalid, err := loadDocuments(opts)
	if err != nil {
		return err
	}
	if len(docs) > 1 {
		// The work grows with the documents given: the default bound
		// would cut a long list half published. Each request keeps its
		// own bound; a --timeout given still bounds the whole.
		opts.Factory.Run.ExemptFromDefaultTimeout()
	}
	if len(invalid) > 0 && (!opts.KeepGoing || opts.DryRun) {
		verb := "are"
		if len(invalid) == 1 {
			verb = "is"
		}
		return fmt.Errorf("%d of %s %s invalid (above); nothing was published", len(invalid), text.Plural(int64(len(opts.Files)), "document", "documents"), verb)
	}

	var signer *publishSigner
	if opts.Sign {
		signer, err = resolveSigner(opts.IO, signerOptions{
			KeyPath: opts.KeyPath, AgentSocket: opts.Factory.Settings().Env("SSH_AUTH_SOCK"),
			Registered: func() ([]string, error) { return registeredFingerprints(ctx, opts.Factory) },
		})
		if err != nil {
			return err
		}
		defer signer.Close()
		opts.IO.Info("Signing with %s (%s)", signer.Fingerprint, signer.Source)
	}

	if opts.DryRun {
		return dryRunPublish(opts, docs)
	}

	if opts.OIDC && opts.Sign {
		return cmdutil.UsageErrorf("--oidc and --sign are two ways to authenticate: give one")
	}

	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	var c *client.Client
	if opts.OIDC || (signer == nil && cfg.Token == "" && ciIDTokenSource(opts.Factory.Settings()) != "") {
		owner := opts.Owner
		if o, _, ok := strings.Cut(opts.Name, "/"); ok && owner == "" {
			owner = strings.TrimSpace(o)
		}
		c, err = exchangedClient(ctx, opts.Factory, opts.IO, cfg.Host, owner)
	} else {
		c, err = opts.Factory.Client()
	}
	if err != nil {
		return err
	}
	if dirs > 0 {
		// What a directory holds is easily more than one meant: it is
		// shown, and on a terminal new packages wait for a yes.
		if err := confirmDirectoryPublish(ctx, c, opts, docs, signer == nil || cfg.Token != ""); err != nil {
			return err
		}
	}

	// A counter on a terminal's stderr while several documents go up;
	// nothing in pipes and logs.
	var progress *iostreams.ProgressLine
	if len(docs) > 1 {
		progress = opts.IO.NewProgress()
		opts.Factory.Run.Progress = progress
	}
	outcomes := []publishOutcome{}
	var failed []publishFailure
	for _, v := range invalid {
		failed = append(failed, publishFailure{File: v.File, Err: errors.New(v.Problem())})
	}
	unchanged := 0
	for i, doc := range docs {
		progress.Show("publishing %d/%d: %s", i+1, len(docs), doc.File)
		res, err := publishOne(ctx, c, signer, opts, doc)
		progress.Clear()
		if err != nil {
			err = fmt.Errorf("%s: %w", doc.File, err)
			if !opts.KeepGoing || ctx.Err() != nil {
				if opts.JSON && len(outcomes) > 0 {
					// Scripts still learn what was published before the failure.
					if exportErr := cmdutil.ExportJSON(opts.IO.Out, outcomes); exportErr != nil {
						return exportErr
					}
				}
				return err
			}
			_, msg := cmdutil.ExitStatus(opts.Factory.Explain(err))
			// The registry's words are shown, never obeyed (as in mainRun).
			fmt.Fprintln(opts.IO.ErrOut, opts.IO.ErrorPrefix()+text.SafeLines(msg))
			failed = append(failed, publishFailure{File: doc.File, Err: err})
			continue
		}
		if !res.Created {
			unchanged++
		}
		outcomes = append(outcomes, publishOutcome{File: doc.File, PublishResult: *res})
		if !opts.JSON {
			verb := "published"
			if !res.Created {
				verb = "unchanged"
			}
			version := text.Safe(res.Package.Version)
			// The package describes its latest version, which an older or
			// pre-release version does not replace.
			if v := publishedVersion(res, doc); v != "" && v != res.Package.Version {
				version = text.Safe(v) + " (latest stays " + version + ")"
			}
			fmt.Fprintf(opts.IO.Out, "%s %s %s  %s\n", verb, text.Safe(res.Package.FullName()), version, text.Safe(res.Package.URL))
		}
		shared.PrintWarnings(opts.IO, doc.File, res.Warnings)
	}
	if opts.JSON {
		if err := cmdutil.ExportJSON(opts.IO.Out, outcomes); err != nil {
			return err
		}
	}
	if opts.KeepGoing || len(opts.Files) > 1 {
		summary := fmt.Sprintf("%d of %s published", len(outcomes), text.Plural(int64(len(opts.Files)), "document", "documents"))
		if unchanged > 0 {
			summary += fmt.Sprintf(" (%d unchanged)", unchanged)
		}
		if len(failed) == 0 {
			opts.IO.Success("%s", summary)
			return nil
		}
		names := make([]string, len(failed))
		for i, f := range failed {
			names[i] = f.File
		}
		opts.IO.Info("%s; %d failed: %s", summary, len(failed), strings.Join(names, ", "))
		// The exit code of the first failure: 5 when the registry refused it.
		code, _ := cmdutil.ExitStatus(failed[0].Err)
		if len(invalid) > 0 {
			code = cmdutil.ExitError
		}
		return &cmdutil.SilentError{Code: code}
	}
	return nil
}

// publishedVersion is the version a publish of doc published, as the
// registry names it; from the document itself for a registry that does
// not.
func publishedVersion(res *client.PublishResult, doc publishDocument) string {
	if res.Published != nil {
		return res.Published.Version
	}
	if pack, err := packfmt.Parse(doc.Content, packfmt.Options{}); err == nil {
		return pack.Version
	}
	return ""
}

// registeredFingerprints asks the registry which SSH keys the configured
// token's account has registered.
func registeredFingerprints(ctx context.Context, f *cmdutil.Factory) ([]string, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	if cfg.Token == "" {
		return nil, errNoAccount
	}
	c, err := f.Client()
	if err != nil {
		return nil, err
	}
	keys, err := c.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	fingerprints := make([]string, len(keys))
	for i, k := range keys {
		fingerprints[i] = k.Fingerprint
	}
	return fingerprints, nil
}

// publishDocument is a document read and checked, ready to publish.
type publishDocument struct {
	File    string
	Content []byte
	// Name is the pack name to send: --name, or the one the file name
	// gives a document that names itself nowhere.
	Name string
}

// publishFailure is a document --keep-going went past.
type publishFailure struct {
	File string
	Err  error
}

// loadDocuments reads every document and checks it offline as the registry
// would; invalid documents are reported on stderr and returned apart.
func loadDocuments(opts *publishOptions) (docs []publishDocument, invalid []*shared.Validation, err error) {
	for _, file := range opts.Files {
		content, err := shared.ReadDocument(opts.IO, file)
		if err != nil {
			return nil, nil, err
		}
		v := shared.ValidateDocument(file, content, opts.Name, opts.Description)
		if !v.Valid {
			opts.IO.Info("%s", v.Problem())
			invalid = append(invalid, v)
			continue
		}
		name := opts.Name
		if name == "" {
			name = nameFromFileName(content, file)
		}
		docs = append(docs, publishDocument{File: file, Content: content, Name: name})
	}
	return docs, invalid, nil
}

// publishOne publishes one checked document, signed or with the token.
func publishOne(ctx context.Context, c *client.Client, signer *publishSigner, opts *publishOptions, doc publishDocument) (*client.PublishResult, error) {
	if signer != nil {
		name := doc.Name
		if opts.Owner != "" && !strings.Contains(name, "/") {
			// The signed name line owner/pack names the namespace
			// (docs/protocol.md, Organisations).
			if pack, err := packfmt.Parse(doc.Content, packfmt.Options{FileName: doc.File}); name == "" && err == nil {
				name = pack.Name
			}
			name = opts.Owner + "/" + name
		}
		res, err := c.PublishSigned(ctx, client.SignedPublishRequest{
			Content: doc.Content, Name: name, Description: opts.Description,
			Fingerprint: signer.Fingerprint, Sign: signer.Sign,
		})
		return res, explainUnregistered(err, signer)
	}
	return c.Publish(ctx, client.PublishRequest{Content: doc.Content, Name: doc.Name, Description: opts.Description, Owner: opts.Owner})
}

// confirmDirectoryPublish lists the documents of a publish that named a
// directory, each with the pack and version it publishes. On a terminal,
// unless --yes, it asks the registry which of those packages do not exist
// yet, one request per pack, and asks before creating them: declining
// publishes nothing (exit 1). haveToken is false for a signed publish
// without a token, whose namespace pact cannot learn: it then asks before
// publishing at all.
func confirmDirectoryPublish(ctx context.Context, c *client.Client, opts *publishOptions, docs []publishDocument, haveToken bool) error {
	ask := !opts.Yes && opts.IO.StdinTTY && opts.IO.StderrTTY
	owner := strings.ToLower(strings.TrimSpace(opts.Owner))
	if o, _, ok := strings.Cut(opts.Name, "/"); ok && owner == "" {
		owner = strings.ToLower(strings.TrimSpace(o))
	}
	if ask && owner == "" && haveToken {
		var err error
		if owner, err = shared.OwnerOrMe(ctx, c, ""); err != nil {
			return err
		}
	}
	// isNew says, by slug, whether the package does not exist yet; nil
	// when the registry was not asked.
	var isNew map[string]bool
	newPacks := 0
	if ask && owner != "" {
		isNew = map[string]bool{}
	}
	opts.IO.Info("To publish:")
	for _, doc := range docs {
		name := doc.Name
		if _, pack, ok := strings.Cut(name, "/"); ok {
			name = pack
		}
		v := shared.ValidateDocument(doc.File, doc.Content, name, opts.Description)
		if _, asked := isNew[v.Slug]; isNew != nil && !asked {
			_, err := c.GetPackage(ctx, owner, v.Slug)
			if err != nil && !client.IsNotFound(err) {
				return err
			}
			isNew[v.Slug] = err != nil
			if err != nil {
				newPacks++
			}
		}
		mark := ""
		if isNew[v.Slug] {
			mark = ", a new package"
		}
		opts.IO.Info("  %s %s (from %s)%s", v.Slug, v.Version, doc.File, mark)
	}
	if !ask {
		return nil
	}
	documents := text.Plural(int64(len(docs)), "document", "documents")
	var question string
	switch {
	case isNew == nil:
		question = fmt.Sprintf("Publish %s? Without a token pact cannot tell which packages are new.", documents)
	case newPacks == 0:
		return nil
	default:
		question = fmt.Sprintf("Publish %s, creating %s under %s?", documents, text.Plural(int64(newPacks), "new package", "new packages"), owner)
	}
	ok, err := cmdutil.Confirmed(opts.IO, question, "publishing new packages")
	if err != nil {
		return err
	}
	if !ok {
		opts.IO.Info("Cancelled: nothing was published")
		return &cmdutil.SilentError{Code: cmdutil.ExitError}
	}
	return nil
}

// maxDocuments bounds one publish, which reads every document before it
// sends any.
const maxDocuments = 1000

// expandDocuments replaces each directory among files by the *.pact.md
// files inside it (and its subdirectories, hidden ones aside), in order,
// says how many it found, and answers how many directories it expanded.
func expandDocuments(ios *iostreams.IOStreams, files []string) (out []string, dirs int, err error) {
	for _, file := range files {
		info, err := os.Stat(file)
		if file == "-" || err != nil || !info.IsDir() {
			out = append(out, file) // reading it says what is wrong
			continue
		}
		dirs++
		var found []string
		err = filepath.WalkDir(file, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != file && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".pact.md") {
				found = append(found, path)
				if len(out)+len(found) > maxDocuments {
					return fmt.Errorf("more than %d documents: publish them in parts", maxDocuments)
				}
			}
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("reading %s: %w", file, err)
		}
		if len(found) == 0 {
			return nil, 0, fmt.Errorf("%s holds no *.pact.md documents", file)
		}
		noun := "documents"
		if len(found) == 1 {
			noun = "document"
		}
		ios.Info("Found %d %s in %s", len(found), noun, file)
		out = append(out, found...)
	}
	return out, dirs, nil
}

// dryRunPublish validates every document offline and reports what would
// be published.
func dryRunPublish(opts *publishOptions, docs []publishDocument) error {
	results := make([]*shared.Validation, 0, len(docs))
	for _, doc := range docs {
		file := doc.File
		v := shared.ValidateDocument(file, doc.Content, opts.Name, opts.Description)
		results = append(results, v)
		shared.PrintWarnings(opts.IO, file, v.Warnings)
		if !opts.JSON {
			fmt.Fprintf(opts.IO.Out, "would publish %s %s (from %s)\n", text.Safe(v.Slug), text.Safe(v.Version), text.Safe(file))
		}
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, results)
	}
	opts.IO.Info("Dry run: nothing was published")
	return nil
}

// nameFromFileName returns the pack name the registry would derive from the
// file name of an upload, for a document that names itself nowhere; "" for
// any other document. Publishes are JSON, which carries no file name, so
// they send this name instead: the package is the one an upload would make.
func nameFromFileName(content []byte, file string) string {
	if file == "-" {
		return ""
	}
	if _, err := packfmt.Parse(content, packfmt.Options{}); err == nil {
		return ""
	}
	pack, err := packfmt.Parse(content, packfmt.Options{FileName: filepath.Base(file)})
	if err != nil {
		return ""
	}
	return pack.Name
}
