package log

import (
	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
)

func NewLogCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "log <command>",
		Short: "Read the registry's transparency log",
		Long: `The registry appends every version published, every SSH key added or
removed and every yank to a public, append-only transparency log. 'pact
log watch' shows an owner the events of their account, so a publish or a
key they did not make does not go unnoticed. 'pact log repin' shows the
log key pinned for the registry and the one it serves, and pins the
served one once you confirm.`,
		Example: `  $ pact log watch --owner alice
  $ pact log repin`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newLogWatchCmd(f), newLogRepinCmd(f))
	return cmd
}
