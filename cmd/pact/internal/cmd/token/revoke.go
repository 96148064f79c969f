package token

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

type tokenRevokeOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	ID      int64
	Yes     bool
}

func newTokenRevokeCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &tokenRevokeOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "revoke ID",
		Aliases: []string{"rm", "delete"},
		Short:   "Revoke one of your API tokens",
		Long: `Revoke an API token by the ID 'pact token list' shows. Requests that send it
are refused from then on; it stays in the list, marked revoked.

On a terminal pact asks before revoking, naming the token (an ID that is
none of your tokens ends there, exit 4); declining prints "cancelled" and
exits 1. --yes does not ask. Without a terminal (in scripts) --yes is
required.`,
		Example: `  $ pact token revoke 7
  $ pact token revoke 7 --yes`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return cmdutil.UsageErrorf("%q is not a token ID: 'pact token list' shows them", args[0])
			}
			opts.ID = id
			return runTokenRevoke(cmd.Context(), opts)
		},
	}
	cmdutil.AddYesFlag(cmd, &opts.Yes)
	return cmd
}

func runTokenRevoke(ctx context.Context, opts *tokenRevokeOptions) error {
	if err := cmdutil.CanConfirm(opts.IO, opts.Yes, "revoking a token"); err != nil {
		return err
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	if !opts.Yes {
		// The question names the token, whatever its state: the ID alone
		// says little of what stops working.
		tokens, err := c.ListTokens(ctx, client.TokenListOptions{All: true})
		if err != nil {
			return err
		}
		i := slices.IndexFunc(tokens, func(t client.Token) bool { return t.ID == opts.ID })
		if i < 0 {
			return &client.APIError{StatusCode: http.StatusNotFound,
				Message: fmt.Sprintf("you have no token %d: 'pact token list --all' shows yours", opts.ID)}
		}
		question := fmt.Sprintf("Revoke token %d %s? Whatever uses it stops working.", opts.ID, quoteName(tokens[i].Name))
		ok, err := cmdutil.Confirmed(opts.IO, question, "revoking a token")
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Cancelled(opts.IO)
		}
	}
	if err := c.RevokeToken(ctx, opts.ID); err != nil {
		return err
	}
	opts.IO.Success("Revoked token %d", opts.ID)
	return nil
}
