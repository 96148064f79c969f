package main

import (
	"context"

	"github.com/spf13/cobra"
)

type keysListOptions struct {
	IO      *iostreams
	Factory *factory
	JSON    bool
}

func newKeysListCmd(f *factory) *cobra.Command {
	opts := &keysListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your registered SSH keys",
		Example: `  $ pact keys list
  $ pact keys list --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeysList(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
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
		return exportJSON(opts.IO.Out, keys)
	}
	if len(keys) == 0 {
		opts.IO.info("No SSH keys registered; add one with 'pact keys add'")
		return nil
	}
	return printKeys(opts.IO.Out, keys)
}
