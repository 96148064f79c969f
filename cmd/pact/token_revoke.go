package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/pkg/client"
)

type tokenRevokeOptions struct {
	IO      *iostreams
	Factory *factory
	ID      int64
	Yes     bool
}

func newTokenRevokeCmd(f *factory) *cobra.Command {
	opts := &tokenRevokeOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "revoke ID",
		Aliases: []string{"rm", "delete"},
		Short:   "Revoke one of your API tokens",
		Long: `Revoke an API token by the ID 'pact token list' shows. Requests that send it
are refused from then on; it stays in the list, marked revoked.

On a terminal pact asks before revoking; --yes does not ask. Without a
terminal (in scripts) --yes is required.`,
		Example: `  $ pact token revoke 7
  $ pact token revoke 7 --yes`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return usageErrorf("%q is not a token ID: 'pact token list' shows them", args[0])
			}
			opts.ID = id
			return runTokenRevoke(cmd.Context(), opts)
		},
	}
	addYesFlag(cmd, &opts.Yes)
	return cmd
}

func runTokenRevoke(ctx context.Context, opts *tokenRevokeOptions) error {
	if err := opts.IO.canConfirm(opts.Yes, "revoking a token"); err != nil {
		return err
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	if !opts.Yes {
		question := fmt.Sprintf("Revoke token %d? Whatever uses it stops working.", opts.ID)
		if opts.IO.stdinTTY && opts.IO.stderrTTY {
			if tokens, err := c.ListTokens(ctx, client.TokenListOptions{}); err == nil {
				for _, t := range tokens {
					if t.ID == opts.ID {
						question = fmt.Sprintf("Revoke token %d %q? Whatever uses it stops working.", t.ID, t.Name)
					}
				}
			}
		}
		ok, err := opts.IO.confirmed(question, "revoking a token")
		if err != nil {
			return err
		}
		if !ok {
			return errNotConfirmed
		}
	}
	if err := c.RevokeToken(ctx, opts.ID); err != nil {
		return err
	}
	opts.IO.success("Revoked token %d", opts.ID)
	return nil
}
