package auth

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

type logoutOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
}

func NewLogoutCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &logoutOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:   "logout",
		Short: "Forget the API token stored for a registry",
		Long: `Remove the API token stored for the registry (--host, PACT_HOST, else the
default host) from the config file; the tokens of other registries stay.
Logging out of the default host makes another registry you are logged in
to the default (the first by address; 'pact auth switch HOST' picks
another), or, when there is none, leaves no default host (commands then
talk to ` + cmdutil.DefaultHost + ` unless --host or PACT_HOST names one);
pact says which. A token in PACT_TOKEN is not affected; unset it
yourself. The token itself stays valid until you revoke it ('pact token
revoke', or the dashboard).`,
		Example: `  $ pact logout
  $ pact logout --host https://pact.example.com`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
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
	host := cmdutil.HostKey(cfg.Host)
	hadToken := false
	// Logging out of the default host moves the default to another
	// registry logged in to, or to none: never left on one without a token.
	leavesDefault := cfg.DefaultHost == host
	next := ""
	if leavesDefault {
		for _, other := range loggedInHosts(cfg.Stored) {
			if other != host {
				next = other
				break
			}
		}
	}
	if cfg.Stored[host] != "" || leavesDefault {
		err = cmdutil.UpdateConfigFile(cfg.Path, func(settings map[string]any) {
			hadToken = cmdutil.RemoveStoredToken(settings, host)
			if !leavesDefault {
				return
			}
			if next != "" {
				settings[cmdutil.HostSetting] = next
			} else {
				delete(settings, cmdutil.HostSetting)
			}
		})
		if err != nil {
			return err
		}
	}
	if hadToken {
		opts.IO.Success("Logged out of %s: removed its token from %s", host, cfg.Path)
	} else {
		opts.IO.Info("No token was stored for %s in %s", host, cfg.Path)
	}
	switch {
	case leavesDefault && next != "":
		opts.IO.Info("The default host is now %s, another registry you are logged in to ('pact auth switch HOST' picks another)", next)
	case leavesDefault:
		opts.IO.Info("No default host remains: commands talk to %s unless --host, PACT_HOST or 'pact login' names another", cmdutil.DefaultHost)
	}
	if opts.Factory.Settings().Env("PACT_TOKEN") != "" {
		opts.IO.Info("PACT_TOKEN is still set in the environment")
	}
	return nil
}
