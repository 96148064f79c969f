package log

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

type logRepinOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Yes     bool
}

func newLogRepinCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &logRepinOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "repin",
		Short: "Show the log key pinned for the registry and the one it serves, and pin the served one",
		Long: `Show the verifier key of the registry's transparency log pinned in the
config file (under log_keys, for the registry's address) and the key the
registry serves now (GET /log/key), and, when they differ, replace the
pinned key with the served one once you confirm.

A changed key means the registry now signs its log with another key: its
operator replaced the key (a planned rotation, a lost or leaked key), or
the server answering is not the registry you pinned (a server in its
place, a hijacked name or proxy). Only the operator can tell you which:
ask them, by a channel other than this registry, and compare the key
they publish with the one shown. Re-pinning trusts whatever the new key
signs from then on; the history this machine saw under the old key is
not carried over, so the log is trusted afresh as on first use.

On a terminal pact asks before re-pinning; --yes does not ask. Without a
terminal (in scripts) --yes is required. With no key pinned yet, the
served key is pinned as on first use. --log-key and PACT_LOG_KEY, when
set, still override whatever is pinned.`,
		Example: `  $ pact log repin
  $ pact log repin --host https://pact.example.com --yes`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogRepin(cmd.Context(), opts)
		},
	}
	cmdutil.AddYesFlag(cmd, &opts.Yes)
	return cmd
}

func runLogRepin(ctx context.Context, opts *logRepinOptions) error {
	if err := cmdutil.CanConfirm(opts.IO, opts.Yes, "re-pinning the log key"); err != nil {
		return err
	}
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	// The key is public: no token is sent for it.
	c, err := opts.Factory.NewClient(cfg.Host, "")
	if err != nil {
		return err
	}
	host := c.BaseURL()
	pinned, err := cmdutil.ReadPins(cfg.Path)
	if err != nil {
		return err
	}
	old := strings.TrimSpace(pinned.LogKeys[host])
	served, err := c.LogKey(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "registry  %s\npinned    %s\nserved    %s\n", text.Safe(host), text.Safe(orNothing(old)), text.Safe(served))
	if opts.Factory.Settings().Env("PACT_LOG_KEY") != "" {
		opts.IO.Info("PACT_LOG_KEY is set: it overrides the pinned key while it is set")
	}
	switch {
	case old == served:
		opts.IO.Info("The pinned key is the one the registry serves: nothing to change")
		return nil
	case old == "":
		if err := cmdutil.Pin(cfg.Path, cmdutil.LogKeysSetting, host, served); err != nil {
			return fmt.Errorf("pinning the log key in %s: %w", cfg.Path, err)
		}
		opts.IO.Success("Pinned the log key of %s in %s (trust on first use; compare it with the one the registry's operator publishes)", host, cfg.Path)
		return nil
	}
	opts.IO.Info(`warning: the registry serves another key than the one pinned. Either its operator
replaced the key, or the server answering is not the registry you pinned.
Ask the operator, by a channel other than this registry, which key is right.
Re-pinning trusts whatever the served key signs from now on.`)
	if !opts.Yes {
		ok, err := cmdutil.Confirmed(opts.IO, fmt.Sprintf("Pin the served key of %s in place of the pinned one?", host), "re-pinning the log key")
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Cancelled(opts.IO)
		}
	}
	if err := cmdutil.Pin(cfg.Path, cmdutil.LogKeysSetting, host, served); err != nil {
		return fmt.Errorf("pinning the log key in %s: %w", cfg.Path, err)
	}
	opts.IO.Success("Pinned the served log key of %s in %s, in place of %s", host, cfg.Path, old)
	return nil
}

// orNothing shows a key that may be "" (none pinned).
func orNothing(key string) string {
	if key == "" {
		return "(none)"
	}
	return key
}
