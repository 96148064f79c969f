package yank

import (
	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
)

// NewUnyankCmd shares yankOptions and runYank with pact yank.
func NewUnyankCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &yankOptions{IO: f.IO, Factory: f, Undo: true}
	cmd := &cobra.Command{
		Use:   "unyank [OWNER/]PACK@VERSION",
		Short: "Undo the yank of a version",
		Long: `Un-yank one version of one of your packages: lists offer it again and it
is the latest version again if it is the highest. Un-yanking a version that
is not yanked changes nothing. Without OWNER the package is one of the
token's account.`,
		Example: `  $ pact unyank widget@1.2.0`,
		Args:    cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			opts.Owner, opts.Pack, opts.Version, err = shared.ParseVersionRef(args[0])
			if err != nil {
				return err
			}
			return runYank(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}
