package auth

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
)

type authSwitchOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Host    string
}

func newAuthSwitchCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &authSwitchOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:   "switch HOST",
		Short: "Make another registry you are logged in to the default host",
		Long: `Make HOST the default host, the registry commands talk to when no --host
or PACT_HOST names one. HOST must be a registry you are logged in to
('pact auth status' lists them); log in to a new one with 'pact login
--host HOST', which makes it the default too. Nothing is asked of any
registry, and no token changes.`,
		Example: `  $ pact auth switch https://pact.example.com
  $ pact auth switch localhost:8080`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			cfg, err := f.Config()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return loggedInHosts(cfg.Stored), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Host = args[0]
			return runAuthSwitch(opts)
		},
	}
}

// loggedInHosts are the registries with a stored token, by address.
func loggedInHosts(stored map[string]string) []string {
	hosts := make([]string, 0, len(stored))
	for host := range stored {
		hosts = append(hosts, host)
	}
	sort.Strings(hosts)
	return hosts
}

func runAuthSwitch(opts *authSwitchOptions) error {
	if strings.TrimSpace(opts.Host) == "" {
		return cmdutil.UsageErrorf("HOST is empty: name a registry you are logged in to ('pact auth status' lists them)")
	}
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	host := cmdutil.HostKey(opts.Host)
	if cfg.Stored[host] == "" {
		msg := fmt.Sprintf("not logged in to %s: no API token is stored for it; run 'pact login --host %s', which also makes it the default host", host, host)
		if others := loggedInHosts(cfg.Stored); len(others) > 0 {
			msg += "; logged in to: " + strings.Join(others, ", ")
		}
		return &cmdutil.NotLoggedInError{Msg: msg}
	}
	if cfg.DefaultHost == host {
		opts.IO.Info("%s is already the default host", host)
	} else {
		if err := cmdutil.UpdateConfigFile(cfg.Path, func(settings map[string]any) {
			settings[cmdutil.HostSetting] = host
		}); err != nil {
			return err
		}
		opts.IO.Success("The default host is now %s%s", host, wasDefault(cfg.DefaultHost))
	}
	if opts.Factory.Settings().Env("PACT_HOST") != "" {
		opts.IO.Info("PACT_HOST is set in the environment and names the host instead while it is set")
	}
	return nil
}

// wasDefault says which registry was the default before: ", was HOST", or
// "" when the config file named none.
func wasDefault(previous string) string {
	if previous == "" {
		return ""
	}
	return ", was " + previous
}
