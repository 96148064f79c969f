package main

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"
)

type keysRemoveOptions struct {
	IO      *iostreams
	Factory *factory
	ID      int64
}

func newKeysRemoveCmd(f *factory, runF func(context.Context, *keysRemoveOptions) error) *cobra.Command {
	opts := &keysRemoveOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:     "remove ID",
		Aliases: []string{"rm", "delete"},
		Short:   "Remove one of your SSH keys",
		Long: `Remove a registered SSH key by the ID 'pact keys list' shows. Versions it
signed stay published, with their signatures.`,
		Example: `  $ pact keys remove 3`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return usageErrorf("%q is not a key ID: 'pact keys list' shows them", args[0])
			}
			opts.ID = id
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runKeysRemove(cmd.Context(), opts)
		},
	}
}

func runKeysRemove(ctx context.Context, opts *keysRemoveOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	if err := c.DeleteKey(ctx, opts.ID); err != nil {
		return err
	}
	opts.IO.success("Removed key %d", opts.ID)
	return nil
}
