package token

import (
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"

	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/pkg/client"
)

type tokenListOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	JSON    bool
	All     bool
}

func newTokenListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &tokenListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your API tokens",
		Long: `List your account's active API tokens, newest first: their scopes, the packs
they may publish and yank ("all" when not limited), when they were made,
expire and were last used. --all adds the expired and revoked tokens the
registry still keeps (30 days after they ended, by default), with their
status. Secrets are never shown.`,
		Example: `  $ pact token list
  $ pact token list --all --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTokenList(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	cmd.Flags().BoolVar(&opts.All, "all", false, "list the expired and revoked tokens the registry still keeps too")
	return cmd
}

func runTokenList(ctx context.Context, opts *tokenListOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	tokens, err := c.ListTokens(ctx, client.TokenListOptions{All: opts.All})
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, tokens)
	}
	if len(tokens) == 0 {
		opts.IO.Info("No active tokens; make one with 'pact token create'")
		return nil
	}
	return printTokens(opts.IO.Out, tokens, time.Now())
}
