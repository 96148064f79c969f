package trust

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

type trustRequireOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Owner string // "" for the token's account
	Pack  string
	Off   bool
	JSON  bool
}

func newTrustRequireCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &trustRequireOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "require [OWNER/]PACK [--off]",
		Short: "Let only CI jobs publish a package (trusted publishing only)",
		Long: `Set a package to trusted publishing only: from now on only CI jobs of its
trusted publishers publish it, with the tokens they exchange for their ID
tokens. Publishes with any other API token and SSH-signed publishes are
refused, naming the setting. The package's page and the API show the
setting, and the transparency log records each change.

Only the package's owner may set it (for an organisation's package, one of
its owners), with a token holding the yank scope; a token exchanged by a CI
job cannot. No token lifts it: the lock is there for the day a token is
stolen, so the owner turns it off in a logged-in browser session, on the
dashboard's Trusted publishers page (--off sends the request, and the
registry refuses it saying so). Without OWNER the package is one of the
token's account.`,
		Example: `  $ pact trust require widget
  $ pact trust require acme/rocket`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			owner, pack, hasOwner := strings.Cut(args[0], "/")
			if !hasOwner {
				owner, pack = "", args[0]
			}
			if pack == "" || (hasOwner && owner == "") || strings.ContainsAny(pack, "/@") {
				return cmdutil.UsageErrorf("%q is not PACK or OWNER/PACK", args[0])
			}
			opts.Owner, opts.Pack = owner, pack
			return runTrustRequire(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Off, "off", false, "let tokens and SSH keys publish the package again (refused to every token: use the dashboard)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runTrustRequire(ctx context.Context, opts *trustRequireOptions) error {
	c, owner, err := shared.ClientAndOwner(ctx, opts.Factory, opts.Owner)
	if err != nil {
		return err
	}
	p, err := c.SetTrustedPublishingOnly(ctx, owner, opts.Pack, !opts.Off)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, p)
	}
	name := p.FullName()
	if p.TrustedPublishingOnly {
		opts.IO.Success("Only CI may publish %s now: trusted publishing only", name)
		opts.IO.Info("Publishes with API tokens and SSH keys are refused; CI jobs of its trusted publishers publish it ('pact trust list'). Undo: on the dashboard, %s/dashboard/trusted-publishers (no token can)", c.BaseURL())
		return nil
	}
	opts.IO.Success("%s takes publishes with API tokens and SSH keys again", name)
	return nil
}
