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
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

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

Every flag can also be set in the environment as PACTD_<FLAG> (dashes become
underscores, e.g. PACTD_BASE_URL) or in a config file given with --config.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath())}
	})
	root.PersistentFlags().String("config", "", "config file (YAML, TOML or JSON) with the same keys as the flags")
	root.AddCommand(newServeCmd(), newUserCmd(), newTokenCmd(), newMigrateCmd(), newDumpCmd(), newRestoreCmd(), newVersionCmd())
	markRunErrors(root)
	return root
}

// loadConfig binds a command's flags, PACTD_* variables and the config file
// into one viper instance: flag > environment > config file > default.
func loadConfig(cmd *cobra.Command) (*viper.Viper, error) {
	v := viper.New()
	v.SetEnvPrefix("PACTD")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	var bindErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err := v.BindPFlag(f.Name, f); err != nil && bindErr == nil {
			bindErr = err
		}
	})
	if bindErr != nil {
		return nil, bindErr
	}
	if file := v.GetString("config"); file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("reading config file %s: %w", file, err)
		}
	}
	return v, nil
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
