package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/packfmt"
)

type publishOptions struct {
	IO      *iostreams
	Factory *factory

	Files       []string
	Name        string
	Description string
	Owner       string
	Sign        bool
	KeyPath     string
	DryRun      bool
	OIDC        bool
	JSON        bool
}

func newPublishCmd(f *factory, runF func(context.Context, *publishOptions) error) *cobra.Command {
	opts := &publishOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "publish FILE...",
		Short: "Publish pack documents",
		Long: `Publish pack documents (*.pact.md) to the registry, in the order given, one
line each. "-" reads a document from standard input. Stops at the first
document the registry refuses.

Publishing the same version again with identical content changes nothing
and succeeds, so CI jobs may retry. The same version with other content
is refused (exit 5): versions are immutable.

By default the API token authenticates (see 'pact login'). With --sign
an SSH signature does instead: the key is the ssh-agent's only key, or
the one --key names (a public key whose private half the agent holds, or
a private key file). Register the public key first with 'pact keys add'.

When the pack's name lost characters on the way to its slug (letters
with no slug form, a cut to 64 characters), the registry's warnings are
printed on standard error; --json lists them under "warnings". Letters
with diacritics are not lost: "Crème Brûlée" publishes as creme-brulee.

In CI, with no token configured, pact publishes by trusted publishing
(see 'pact trust'): in GitHub Actions (a job with permissions: id-token:
write) it asks GitHub for an ID token whose audience is the registry's
address, in GitLab CI it reads the ID token in PACT_ID_TOKEN, exchanges
it for a publish token valid 15 minutes, and publishes with that.
--oidc does so even when a token is configured.

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
  $ pact publish --sign --key ~/.ssh/id_ed25519.pub hello.pact.md
  $ pact publish --owner acme hello.pact.md
  $ pact publish --dry-run hello.pact.md`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
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
	fl.BoolVar(&opts.OIDC, "oidc", false, "exchange the CI job's OpenID Connect ID token for a publish token (trusted publishing), even with a token configured")
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

// publishOutcome is one published document, as --json prints it.
type publishOutcome struct {
	File string `json:"file"`
	client.PublishResult
}

func runPublish(ctx context.Context, opts *publishOptions) error {
	if opts.Name != "" && len(opts.Files) > 1 {
		return usageErrorf("--name names one pack: give one file with it")
	}
	if err := checkStdinOnce(opts.Files); err != nil {
		return err
	}
	if opts.KeyPath != "" {
		opts.Sign = true
	}

	var signer *publishSigner
	if opts.Sign {
		var err error
		signer, err = resolveSigner(opts.IO, signerOptions{KeyPath: opts.KeyPath, AgentSocket: os.Getenv("SSH_AUTH_SOCK")})
		if err != nil {
			return err
		}
		defer signer.Close()
		opts.IO.info("Signing with %s (%s)", signer.Fingerprint, signer.Source)
	}

	if opts.DryRun {
		return dryRunPublish(opts)
	}

	if opts.OIDC && opts.Sign {
		return usageErrorf("--oidc and --sign are two ways to authenticate: give one")
	}
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	var c *client.Client
	if opts.OIDC || (signer == nil && cfg.Token == "" && ciIDTokenSource() != "") {
		c, err = exchangedClient(ctx, opts, cfg.Host)
	} else {
		c, err = opts.Factory.Client()
	}
	if err != nil {
		return err
	}
	outcomes := []publishOutcome{}
	for _, file := range opts.Files {
		content, err := readDocument(opts.IO, file)
		if err != nil {
			return err
		}
		name := opts.Name
		if name == "" {
			name = nameFromFileName(content, file)
		}
		if signer != nil && opts.Owner != "" && !strings.Contains(name, "/") {
			// The signed name line owner/pack names the namespace
			// (docs/protocol.md, Organisations).
			if pack, err := packfmt.Parse(content, packfmt.Options{FileName: file}); name == "" && err == nil {
				name = pack.Name
			}
			name = opts.Owner + "/" + name
		}
		var res *client.PublishResult
		if signer != nil {
			res, err = c.PublishSigned(ctx, client.SignedPublishRequest{
				Content: content, Name: name, Description: opts.Description,
				Fingerprint: signer.Fingerprint, Sign: signer.Sign,
			})
		} else {
			res, err = c.Publish(ctx, client.PublishRequest{Content: content, Name: name, Description: opts.Description, Owner: opts.Owner})
		}
		if err != nil {
			if opts.JSON && len(outcomes) > 0 {
				// Scripts still learn what was published before the failure.
				if exportErr := exportJSON(opts.IO.Out, outcomes); exportErr != nil {
					return exportErr
				}
			}
			return fmt.Errorf("%s: %w", file, err)
		}
		outcomes = append(outcomes, publishOutcome{File: file, PublishResult: *res})
		if !opts.JSON {
			verb := "published"
			if !res.Created {
				verb = "unchanged"
			}
			version := safeText(res.Package.Version)
			// The package describes its latest version, which an older or
			// pre-release version does not replace.
			if pack, err := packfmt.Parse(content, packfmt.Options{}); err == nil && pack.Version != res.Package.Version {
				version = safeText(pack.Version) + " (latest stays " + version + ")"
			}
			fmt.Fprintf(opts.IO.Out, "%s %s %s  %s\n", verb, safeText(res.Package.FullName()), version, safeText(res.Package.URL))
		}
		printWarnings(opts.IO, file, res.Warnings)
	}
	if opts.JSON {
		return exportJSON(opts.IO.Out, outcomes)
	}
	return nil
}

// dryRunPublish validates every document offline and reports what would
// be published.
func dryRunPublish(opts *publishOptions) error {
	results := make([]*validation, 0, len(opts.Files))
	for _, file := range opts.Files {
		content, err := readDocument(opts.IO, file)
		if err != nil {
			return err
		}
		v := validateDocument(file, content, opts.Name, opts.Description)
		if !v.Valid {
			return fmt.Errorf("%s", v.problem())
		}
		results = append(results, v)
		printWarnings(opts.IO, file, v.Warnings)
		if !opts.JSON {
			fmt.Fprintf(opts.IO.Out, "would publish %s %s (from %s)\n", safeText(v.Slug), safeText(v.Version), safeText(file))
		}
	}
	if opts.JSON {
		return exportJSON(opts.IO.Out, results)
	}
	opts.IO.info("Dry run: nothing was published")
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
