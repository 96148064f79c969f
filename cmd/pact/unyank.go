package main

import (
	"context"

	"github.com/spf13/cobra"
)

type unyankOptions struct {
	IO      *iostreams
	Factory *factory

	Owner   string // "" for the token's account
	Pack    string
	Version string
	JSON    bool
}

func newUnyankCmd(f *factory, runF func(context.Context, *unyankOptions) error) *cobra.Command {
	opts := &unyankOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "unyank [OWNER/]PACK@VERSION",
		Short: "Undo the yank of a version",
		Long: `Un-yank one version of one of your packages: lists offer it again and it
is the latest version again if it is the highest. Un-yanking a version that
is not yanked changes nothing. Without OWNER the package is one of the
token's account.`,
		Example: `  $ pact unyank widget@1.2.0`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			opts.Owner, opts.Pack, opts.Version, err = parseVersionRef(args[0])
			if err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUnyank(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runUnyank(ctx context.Context, opts *unyankOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	owner, err := ownerOrMe(ctx, c, opts.Owner)
	if err != nil {
		return err
	}
	res, err := c.UnyankVersion(ctx, owner, opts.Pack, opts.Version)
	if err != nil {
		return err
	}
	if opts.JSON {
		return exportJSON(opts.IO.Out, res)
	}
	opts.IO.success("Un-yanked %s %s; %s", res.Package.FullName(), res.Version.Version, latestNow(&res.Package))
	return nil
}
