package deprecate

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

type deprecateOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Owner   string // "" for the token's account
	Pack    string
	Message string
	JSON    bool
}

func NewDeprecateCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &deprecateOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "deprecate [OWNER/]PACK MESSAGE",
		Short: "Deprecate one of your packages, or undo it",
		Long: `Deprecate one of your packages with a message, such as what to use instead:
its page shows it, 'pact get' warns with it and 'pact list' marks the
package. Its versions stay published and listed. An empty MESSAGE ("")
undoes the deprecation. Without OWNER the package is one of the token's
account.

MESSAGE is one line of at most 500 characters.`,
		Example: `  $ pact deprecate widget "unmaintained: use alice/gadget"
  $ pact deprecate alice/widget ""`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			owner, pack, hasOwner := strings.Cut(args[0], "/")
			if !hasOwner {
				owner, pack = "", args[0]
			}
			if pack == "" || (hasOwner && owner == "") || strings.ContainsAny(pack, "/@") {
				return cmdutil.UsageErrorf("%q is not PACK or OWNER/PACK", args[0])
			}
			opts.Owner, opts.Pack, opts.Message = owner, pack, args[1]
			return runDeprecate(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runDeprecate(ctx context.Context, opts *deprecateOptions) error {
	c, owner, err := shared.ClientAndOwner(ctx, opts.Factory, opts.Owner)
	if err != nil {
		return err
	}
	p, err := c.DeprecatePackage(ctx, owner, opts.Pack, opts.Message)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, p)
	}
	if p.Deprecated == "" {
		opts.IO.Success("%s is not deprecated", p.FullName())
		return nil
	}
	opts.IO.Success("Deprecated %s: %s", p.FullName(), p.Deprecated)
	return nil
}
