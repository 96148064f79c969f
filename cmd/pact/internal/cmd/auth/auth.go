package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

func NewAuthCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth <command>",
		Short: "Show the registries you are logged in to, and switch between them",
		Long: `pact keeps an API token per registry in $XDG_CONFIG_HOME/pact/config.yaml:
'pact login --host HOST' adds one (and makes HOST the default host),
'pact logout --host HOST' removes it (the default moves to another
registry logged in to, if HOST was it). A stored token is only ever sent
to the registry it was stored for. 'pact auth status' lists them; 'pact
auth switch HOST' makes another of them the default host.`,
		Example: `  $ pact auth status
  $ pact auth status --host https://pact.example.com --json
  $ pact auth switch https://pact.example.com`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newAuthStatusCmd(f), newAuthSwitchCmd(f))
	return cmd
}

type authStatusOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	JSON    bool
}

func newAuthStatusCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &authStatusOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List each registry you are logged in to, with its token",
		Long: `Ask each registry with a stored token which account the token belongs to,
and list them: the host ("(default)" after the default host), the account,
the token's name, scopes, packages ("all" when not limited) and expiry,
where the token comes from (config, PACT_TOKEN or --token) and whether the
registry accepted it. Each token is sent only to its own registry.

With --host or PACT_HOST, only that registry. A token in PACT_TOKEN or
--token is listed first, for the registry the command would talk to: it is
sent instead of the stored ones while it is set.

Exits 0 when every token was accepted, 3 when one was refused or none is
stored, 1 when a registry could not be reached.`,
		Example: `  $ pact auth status
  $ pact auth status --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runAuthStatus(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

// authEntry is one registry of pact auth status.
type authEntry struct {
	Host    string `json:"host"`
	Default bool   `json:"default"`
	// Source is where the token comes from: config, PACT_TOKEN or --token.
	Source   string          `json:"source"`
	Username *string         `json:"username"`
	Token    *client.MeToken `json:"token"`
	// Status is ok, refused (the registry refused the token), unreachable
	// or error; Error says why when it is not ok.
	Status string  `json:"status"`
	Error  *string `json:"error"`

	token string
}

func runAuthStatus(ctx context.Context, opts *authStatusOptions) error {
	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	current := cmdutil.HostKey(cfg.Host)
	var entries []*authEntry
	if cfg.TokenSource == "--token" || cfg.TokenSource == "PACT_TOKEN" {
		entries = append(entries, &authEntry{Host: current, Source: cfg.TokenSource, token: cfg.Token})
	}
	hosts := make([]string, 0, len(cfg.Stored))
	for host := range cfg.Stored {
		if !cfg.HostChosen || host == current {
			hosts = append(hosts, host)
		}
	}
	// The default host first, then by address.
	sort.Slice(hosts, func(i, j int) bool {
		if (hosts[i] == cfg.DefaultHost) != (hosts[j] == cfg.DefaultHost) {
			return hosts[i] == cfg.DefaultHost
		}
		return hosts[i] < hosts[j]
	})
	for _, host := range hosts {
		entries = append(entries, &authEntry{Host: host, Source: "config", token: cfg.Stored[host]})
	}
	if len(entries) == 0 {
		if opts.JSON {
			if err := cmdutil.ExportJSON(opts.IO.Out, []*authEntry{}); err != nil {
				return err
			}
		}
		if cfg.HostChosen {
			opts.IO.Info("Not logged in to %s: run 'pact login --host %s'", current, current)
		} else {
			opts.IO.Info("Not logged in to any registry: run 'pact login' (or 'pact login --host HOST')")
		}
		return &cmdutil.SilentError{Code: cmdutil.ExitAuth}
	}

	// Each token goes to its own registry only.
	var failed error
	for _, e := range entries {
		e.Default = e.Host == cfg.DefaultHost
		c, err := opts.Factory.NewClient(e.Host, e.token)
		if err == nil {
			var user *client.User
			user, e.Token, err = c.MeAndToken(ctx)
			if err == nil {
				e.Username = &user.Username
			}
		}
		e.Status = authProblem(err)
		if err != nil {
			msg := authReason(err)
			e.Error = &msg
			if failed == nil {
				failed = err
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}

	if opts.JSON {
		if err := cmdutil.ExportJSON(opts.IO.Out, entries); err != nil {
			return err
		}
	} else if err := printAuthStatus(opts.IO, entries); err != nil {
		return err
	}
	if cfg.TokenSource == "--token" || cfg.TokenSource == "PACT_TOKEN" {
		if len(cfg.Stored) > 0 {
			opts.IO.Info("%s is given: it is sent instead of the stored tokens, to whichever registry a command talks to", cfg.TokenSource)
		}
	}
	if failed != nil {
		code, _ := cmdutil.ExitStatus(failed)
		return &cmdutil.SilentError{Code: code}
	}
	return nil
}

// authProblem classifies the answer of a registry to a stored token.
func authProblem(err error) string {
	var apiErr *client.APIError
	var urlErr *url.Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusUnauthorized:
		return "refused"
	case errors.As(err, &urlErr):
		return "unreachable"
	}
	return "error"
}

// authReason says in a few words why a registry did not accept a token.
func authReason(err error) string {
	var apiErr *client.APIError
	var urlErr *url.Error
	var plainHTTP *client.PlainHTTPError
	var notRegistry *client.NotRegistryError
	switch {
	case errors.As(err, &plainHTTP), errors.As(err, &notRegistry):
		return err.Error()
	case errors.As(err, &apiErr):
		return apiErr.Message
	case errors.As(err, &urlErr):
		return cmdutil.NetworkReason(urlErr)
	}
	return err.Error()
}

func printAuthStatus(ios *iostreams.IOStreams, entries []*authEntry) error {
	t := cmdutil.NewTable(ios.Out)
	cmdutil.WriteRow(t, "HOST", "USER", "TOKEN", "SCOPES", "PACKAGES", "EXPIRES", "FROM", "STATUS")
	now := time.Now()
	for _, e := range entries {
		host := e.Host
		if e.Default {
			host += " (default)"
		}
		user, name, scopes, packages, expires := "-", "-", "-", "-", "-"
		if e.Username != nil {
			user = *e.Username
		}
		if e.Token != nil {
			name = text.OrDash(e.Token.Name)
			scopes, packages = shared.DescribeScopes(e.Token.Scopes, e.Token.Packages)
			expires = shared.DescribeExpiry(e.Token.ExpiresAt, now)
		}
		status := e.Status
		if e.Error != nil {
			status += ": " + *e.Error
		}
		cmdutil.WriteRow(t, host, user, name, scopes, packages, expires, e.Source, status)
	}
	return t.Flush()
}
