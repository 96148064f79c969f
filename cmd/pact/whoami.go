package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/pkg/client"
)

type whoamiOptions struct {
	IO      *iostreams
	Factory *factory
	JSON    bool
}

func newWhoamiCmd(f *factory) *cobra.Command {
	opts := &whoamiOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Show the account of the configured token",
		Long:  "Ask the registry which account the configured API token belongs to, and\nshow the token's name, scopes, packages and expiry.",
		Example: `  $ pact whoami
  $ PACT_TOKEN=pact_... pact whoami --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWhoami(cmd.Context(), opts)
		},
	}
	addJSONFlag(cmd, &opts.JSON)
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
		return exportJSON(opts.IO.Out, whoamiJSON{User: user, Token: token})
	}
	t := newTable(opts.IO.Out)
	writeRow(t, "username", user.Username)
	writeRow(t, "email", user.Email)
	writeRow(t, "host", c.BaseURL())
	if token != nil { // a registry too old to say has none
		scopes, packages := describeScopes(token.Scopes, token.Packages)
		writeRow(t, "token", token.Name)
		writeRow(t, "scopes", scopes)
		writeRow(t, "packages", packages)
		writeRow(t, "expires", describeExpiry(token.ExpiresAt, time.Now()))
	}
	return t.Flush()
}
