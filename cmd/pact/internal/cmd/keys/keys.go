package keys

import (
	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
)

func NewKeysCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys <command>",
		Short: "Manage the SSH keys that sign publishes",
		Long: `Register, list and remove the SSH public keys of your account. A document
signed with a registered key ('pact publish --sign') is published under
your account without an API token. Keys of type ssh-ed25519, and ssh-rsa
of 2048 to 8192 bits with the exponent 65537 or a smaller odd one, are
accepted.`,
		Example: `  $ pact keys add ~/.ssh/id_ed25519.pub
  $ pact keys list
  $ pact keys remove 3`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newKeysAddCmd(f), newKeysListCmd(f), newKeysRemoveCmd(f))
	return cmd
}
