package main

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"
)

type tokenRevokeOptions struct {
	IO      *iostreams
	Factory *factory
	ID      int64
}

func newTokenRevokeCmd(f *factory, runF func(context.Context, *tokenRevokeOptions) error) *cobra.Command {
	opts := &tokenRevokeOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:     "revoke ID",
		Aliases: []string{"rm", "delete"},
		Short:   "Revoke one of your API tokens",
		Long: `Revoke an API token by the ID 'pact token list' shows. Requests that send it
are refused from then on; it stays in the list, marked revoked.`,
		Example: `  $ pact token revoke 7`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return usageErrorf("%q is not a token ID: 'pact token list' shows them", args[0])
			}
			opts.ID = id
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTokenRevoke(cmd.Context(), opts)
		},
	}
}

func runTokenRevoke(ctx context.Context, opts *tokenRevokeOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	if err := c.RevokeToken(ctx, opts.ID); err != nil {
		return err
	}
	opts.IO.success("Revoked token %d", opts.ID)
	return nil
}
