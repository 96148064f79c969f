package keys

import (
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"

	"context"

	"github.com/spf13/cobra"
)

type keysListOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	JSON    bool
}

func newKeysListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &keysListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your registered SSH keys",
		Example: `  $ pact keys list
  $ pact keys list --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeysList(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runKeysList(ctx context.Context, opts *keysListOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	keys, err := c.ListKeys(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, keys)
	}
	if len(keys) == 0 {
		opts.IO.Info("No SSH keys registered; add one with 'pact keys add'")
		return nil
	}
	return printKeys(opts.IO.Out, keys)
}
