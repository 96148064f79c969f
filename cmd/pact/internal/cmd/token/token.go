package token

import (
	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
)

func NewTokenCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token <command>",
		Short: "Create, list and revoke API tokens",
		Long: `Manage the API tokens of your account. A token holds scopes: publish
(optionally limited to packs by --package globs), yank (yank, un-yank and
deprecate, limited by the same globs), keys (add and remove SSH keys) and
tokens (create, list and revoke tokens). A token made without --scope holds
every scope. Any active token may read (whoami, keys list).

These commands need a token with the tokens scope, and a token cannot make
a token with more power than it holds.`,
		Example: `  $ pact token create --name ci --scope publish --package 'widget-*' --expires-in 30d
  $ pact token list
  $ pact token revoke 7`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTokenCreateCmd(f), newTokenListCmd(f), newTokenRevokeCmd(f))
	return cmd
}
