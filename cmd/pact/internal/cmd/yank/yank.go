package yank

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

type yankOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Owner   string // "" for the token's account
	Pack    string
	Version string
	Reason  string
	Undo    bool // un-yank (pact unyank)
	JSON    bool
	Yes     bool
}

func NewYankCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &yankOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "yank [OWNER/]PACK@VERSION",
		Short: "Withdraw a version of one of your packages",
		Long: `Yank one version of one of your packages: it is never the latest version
again and lists do not offer it, but its exact address keeps serving it,
marked as yanked, so whoever pinned it keeps working (and 'pact get' warns
them). When every version is yanked the package has no latest version and
is not listed. Without OWNER the package is one of the token's account.
Yanking a yanked version again replaces its reason; 'pact unyank' undoes it.

On a terminal pact asks before yanking; declining prints "cancelled" and
exits 1. --yes does not ask. Without a terminal (in scripts) --yes is
required.

--reason is one line of at most 200 characters, shown with the version.`,
		Example: `  $ pact yank widget@1.2.0 --reason "breaks the parser; use 1.2.1"
  $ pact yank alice/widget@1.2.0`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			opts.Owner, opts.Pack, opts.Version, err = shared.ParseVersionRef(args[0])
			if err != nil {
				return err
			}
			return runYank(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "why the version is withdrawn (one line, at most 200 characters)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	cmdutil.AddYesFlag(cmd, &opts.Yes)
	return cmd
}

func runYank(ctx context.Context, opts *yankOptions) error {
	confirm := !opts.Undo && !opts.Yes
	if confirm {
		if err := cmdutil.CanConfirm(opts.IO, false, "yanking a version"); err != nil {
			return err
		}
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	owner, err := shared.OwnerOrMe(ctx, c, opts.Owner)
	if err != nil {
		return err
	}
	if confirm {
		ok, err := cmdutil.Confirmed(opts.IO, fmt.Sprintf("Yank %s/%s %s? It stops being offered; whoever pinned it keeps it.", owner, opts.Pack, opts.Version), "yanking a version")
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Cancelled(opts.IO)
		}
	}
	call, done := c.YankVersion, "Yanked"
	if opts.Undo {
		call = func(ctx context.Context, owner, pack, version, _ string) (*client.YankResult, error) {
			return c.UnyankVersion(ctx, owner, pack, version)
		}
		done = "Un-yanked"
	}
	res, err := call(ctx, owner, opts.Pack, opts.Version, opts.Reason)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, res)
	}
	opts.IO.Success("%s %s %s; %s", done, res.Package.FullName(), res.Version.Version, latestNow(&res.Package))
	return nil
}

// latestNow says what the package's latest version is after a yank or
// un-yank.
func latestNow(p *client.Package) string {
	if p.Version == "" {
		return "every version is yanked: it has no latest version"
	}
	return "the latest version is " + p.Version
}
