package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"
)

type logoutOptions struct {
	IO      *iostreams
	Factory *factory
}

func newLogoutCmd(f *factory) *cobra.Command {
	opts := &logoutOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:   "logout",
		Short: "Forget the API token stored for a registry",
		Long: `Remove the API token stored for the registry (--host, PACT_HOST, else the
default host) from the config file; the tokens of other registries stay.
The default host stays too, so a later 'pact login' talks to the same
registry. A token in PACT_TOKEN is not affected; unset it yourself. The
token itself stays valid until you revoke it ('pact token revoke', or the
dashboard).`,
		Example: `  $ pact logout
  $ pact logout --host https://pact.example.com`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogout(cmd.Context(), opts)
		},
	}
}

func runLogout(_ context.Context, opts *logoutOptions) error {
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	host := hostKey(cfg.Host)
	hadToken := false
	if cfg.Stored[host] != "" {
		err = updateConfigFile(cfg.Path, func(settings map[string]any) {
			hadToken = removeStoredToken(settings, host)
		})
		if err != nil {
			return err
		}
	}
	if hadToken {
		opts.IO.success("Logged out of %s: removed its token from %s", host, cfg.Path)
	} else {
		opts.IO.info("No token was stored for %s in %s", host, cfg.Path)
	}
	if os.Getenv("PACT_TOKEN") != "" {
		opts.IO.info("PACT_TOKEN is still set in the environment")
	}
	return nil
}
