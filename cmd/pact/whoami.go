package main

import (
	"context"

	"github.com/spf13/cobra"
)

type whoamiOptions struct {
	IO      *iostreams
	Factory *factory
	JSON    bool
}

func newWhoamiCmd(f *factory) *cobra.Command {
	opts := &whoamiOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Show the account of the configured token",
		Long:  "Ask the registry which account the configured API token belongs to.",
		Example: `  $ pact whoami
  $ PACT_TOKEN=pact_... pact whoami --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWhoami(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runWhoami(ctx context.Context, opts *whoamiOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	user, err := c.Me(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return exportJSON(opts.IO.Out, user)
	}
	t := newTable(opts.IO.Out)
	writeRow(t, "username", user.Username)
	writeRow(t, "email", user.Email)
	writeRow(t, "host", c.BaseURL())
	return t.Flush()
}
