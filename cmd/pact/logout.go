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

func newLogoutCmd(f *factory, runF func(context.Context, *logoutOptions) error) *cobra.Command {
	opts := &logoutOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:   "logout",
		Short: "Forget the stored API token",
		Long: `Remove the API token from the config file. The host stays, so a later
'pact login' talks to the same registry. A token in PACT_TOKEN is not
affected; unset it yourself. The token itself stays valid until you revoke
it in the dashboard.`,
		Example: `  $ pact logout`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runLogout(cmd.Context(), opts)
		},
	}
}

func runLogout(_ context.Context, opts *logoutOptions) error {
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	hadToken := false
	if _, statErr := os.Stat(cfg.Path); statErr == nil {
		err = updateConfigFile(cfg.Path, func(settings map[string]any) {
			_, hadToken = settings["token"]
			delete(settings, "token")
		})
		if err != nil {
			return err
		}
	}
	if hadToken {
		opts.IO.success("Logged out: removed the token from %s", cfg.Path)
	} else {
		opts.IO.info("No token was stored in %s", cfg.Path)
	}
	if os.Getenv("PACT_TOKEN") != "" {
		opts.IO.info("PACT_TOKEN is still set in the environment")
	}
	return nil
}
