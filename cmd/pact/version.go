package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

type versionOptions struct {
	IO    *iostreams
	Build buildInfo
	JSON  bool
}

func newVersionCmd(f *factory) *cobra.Command {
	opts := &versionOptions{IO: f.IO, Build: f.Build}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print pact's version, commit and build date",
		Example: `  $ pact version
  $ pact version --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runVersion(_ context.Context, opts *versionOptions) error {
	if opts.JSON {
		return exportJSON(opts.IO.Out, opts.Build)
	}
	_, err := fmt.Fprintf(opts.IO.Out, "pact %s (commit %s, built %s)\n", opts.Build.Version, opts.Build.Commit, opts.Build.Date)
	return err
}
