package auth

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

type whoamiOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	JSON    bool
}

func NewWhoamiCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &whoamiOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Show the account of the configured token",
		Long:  "Ask the registry which account the configured API token belongs to, and\nshow the token's name, scopes, packages and expiry.",
		Example: `  $ pact whoami
  $ PACT_TOKEN=pact_... pact whoami --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWhoami(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

// whoamiJSON is what --json prints: the account's fields, as before, and
// the token the request was made with (null from a registry too old to
// say).
type whoamiJSON struct {
	*client.User
	Token *client.MeToken `json:"token"`
}

func runWhoami(ctx context.Context, opts *whoamiOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	user, token, err := c.MeAndToken(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, whoamiJSON{User: user, Token: token})
	}
	t := cmdutil.NewTable(opts.IO.Out)
	cmdutil.WriteRow(t, "username", user.Username)
	cmdutil.WriteRow(t, "email", user.Email)
	cmdutil.WriteRow(t, "host", c.BaseURL())
	if token != nil { // a registry too old to say has none
		scopes, packages := shared.DescribeScopes(token.Scopes, token.Packages)
		cmdutil.WriteRow(t, "token", token.Name)
		cmdutil.WriteRow(t, "scopes", scopes)
		cmdutil.WriteRow(t, "packages", packages)
		cmdutil.WriteRow(t, "expires", shared.DescribeExpiry(token.ExpiresAt, time.Now()))
	}
	return t.Flush()
}
