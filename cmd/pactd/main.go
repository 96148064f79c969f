// Command pactd is the pact registry daemon: the REST interface, raw
// documents, web pages and dashboard, on SQLite or PostgreSQL.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/server/registry"
)

// Set at link time: -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes pactd with args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(stderr, "pactd:", userMessage(err))
		var usage usageError
		var failed runError
		if errors.As(err, &usage) || !errors.As(err, &failed) {
			return 2
		}
		return 1
	}
	return 0
}

// usageError is a mistake in how pactd was called (exit code 2).
type usageError struct{ error }

// runError marks errors returned by a command's RunE; every other error
// comes from cobra's own checks of flags and arguments, so it is a usage error.
type runError struct{ error }

func (e runError) Unwrap() error { return e.error }

func markRunErrors(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := run(c, args); err != nil {
				return runError{err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markRunErrors(sub)
	}
}

func userMessage(err error) string {
	if code := registry.ErrorCode(err); code != registry.Internal {
		return registry.ErrorMessage(err)
	}
	return err.Error()
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "pactd",
		Short: "The pact registry daemon",
		Long: `pactd serves the pact registry: the REST interface, raw pack documents, package
pages, the dashboard and the API reference. It keeps its data in an embedded
SQLite file by default, or in PostgreSQL when several replicas share one database.

Every setting of serve can also be given in the environment as PACTD_<FLAG>
(dashes become underscores, e.g. PACTD_BASE_URL) or as a key of a config file
given with --config (or PACTD_CONFIG); a flag beats the environment, which
beats the file. Every value is checked as its flag's: an unknown key or
PACTD_ variable, or a bad value, stops pactd with exit code 2. The admin
commands read --db from the same places and leave serve's settings alone.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see '%s --help')", flagError(err), cmd.CommandPath())}
	})
	root.PersistentFlags().String("config", "", "config file (.yaml, .json or .toml) whose keys are serve's flags, e.g. \"rate-ip: 5\"")
	root.AddCommand(newServeCmd(), newUserCmd(), newTokenCmd(), newMigrateCmd(), newDumpCmd(), newRestoreCmd(), newLogCmd(), newBlobsCmd(), newHealthcheckCmd(), newVersionCmd())
	markRunErrors(root)
	return root
}

// groupCmd makes cmd, which only groups others, print its help when run
// alone and refuse an unknown subcommand as a usage error (exit 2) with a
// suggestion, as pact does: cobra alone prints the help and exits 0, so a
// mistyped "pactd token revok 3" would look like it worked.
func groupCmd(cmd *cobra.Command) *cobra.Command {
	cmd.SuggestionsMinimumDistance = 2
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
		if suggestions := c.SuggestionsFor(args[0]); len(suggestions) > 0 {
			msg += "; did you mean " + strings.Join(suggestions, " or ") + "?"
		}
		return usageError{fmt.Errorf("%s (see '%s --help')", msg, c.CommandPath())}
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	return cmd
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "pactd %s (commit %s, built %s)\n", version, commit, date)
			return nil
		},
	}
}
