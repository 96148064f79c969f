package token

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/wire"
)

type tokenCreateOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Name      string
	Scopes    []string
	Packages  []string
	ExpiresIn string
	JSON      bool
}

func newTokenCreateCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &tokenCreateOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create an API token and print it once",
		Long: `Create an API token for your account and print its secret alone on standard
output, for scripts. The registry keeps only its hash: it is shown only
this once.

--scope gives one scope (publish, yank, keys, tokens, hooks) and may be repeated;
without it the token holds every scope, and --scope none makes a token
that can only read. --package limits the token to packs whose slug
matches a glob (* ? [a-z], as Go's path.Match) and may be repeated; a
glob covers your own packs, and ORG/glob (such as 'acme/*') those of the
organisation ORG. A token with --package acts only on those packs
(publish, yank, deprecate, trusted publishers, hooks, releases) and holds
no account-wide power: it cannot add SSH keys, make tokens or change
organisations, whatever its scopes. --expires-in
is a number of days (30d or 30, at most 3650) or never; the default is
90d.`,
		Example: `  $ pact token create --name ci --scope publish --package 'widget-*' --expires-in 30d
  $ pact token create --name laptop --scope publish --scope yank --scope keys
  $ pact token create --name acme-ci --scope publish --package 'acme/*'
  $ PACT_TOKEN=$(pact token create --name deploy --scope publish --expires-in 7)`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case !cmd.Flags().Changed("scope"):
				opts.Scopes = nil
			case slices.Contains(opts.Scopes, "none"):
				if len(opts.Scopes) > 1 {
					return cmdutil.UsageErrorf("--scope none makes a token that can only read: give it alone")
				}
				opts.Scopes = []string{}
			}
			return runTokenCreate(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "", "label of the token (default: token)")
	cmd.Flags().StringArrayVar(&opts.Scopes, "scope", nil, "a scope the token holds: publish, yank, keys, tokens, hooks, or none (repeatable; default: every scope)")
	cmd.Flags().StringArrayVar(&opts.Packages, "package", nil, "a pack-name glob the token is limited to: it then acts only on matching packs and holds no account-wide power (SSH keys, tokens, organisations) (repeatable; default: every pack)")
	cmd.Flags().StringVar(&opts.ExpiresIn, "expires-in", "90d", "lifetime in days (30d or 30, at most 3650), or never")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	// The shell completes the scopes' names, not file names.
	cmd.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions([]string{
		wire.ScopePublish + "\tpublish documents (limited to --package globs when given)",
		wire.ScopeYank + "\tyank, un-yank and deprecate (likewise)",
		wire.ScopeKeys + "\tadd and remove SSH keys",
		wire.ScopeTokens + "\tmake and revoke tokens, manage trusted publishers and organisations",
		wire.ScopeHooks + "\tmanage webhooks",
		"none\ta token that can only read",
	}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("expires-in", cobra.FixedCompletions([]string{"30d", "90d", "365d", "never"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("package", cobra.NoFileCompletions)
	return cmd
}

func runTokenCreate(ctx context.Context, opts *tokenCreateOptions) error {
	days, err := parseExpiresIn(opts.ExpiresIn)
	if err != nil {
		return err
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	made, err := c.CreateToken(ctx, client.TokenOptions{Name: opts.Name, Scopes: opts.Scopes, Packages: opts.Packages, ExpiresInDays: days})
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, made)
	}
	// The secret alone on stdout, so $(pact token create) is the token.
	fmt.Fprintln(opts.IO.Out, made.Token)
	scopes, packages := shared.DescribeScopes(made.Scopes, made.Packages)
	opts.IO.Success("Created token %d (%s): scopes %s; packages %s; expires %s", made.ID, made.Name, scopes, packages,
		shared.OptionalTime(made.ExpiresAt, "never"))
	if opts.IO.StdoutTTY {
		opts.IO.Info("Copy it now: it is not shown again. To use it here, run 'pact login --token-stdin' and paste it (or give it a file on standard input).")
	}
	return nil
}

// maxTokenDays is the longest lifetime the registry gives a token.
const maxTokenDays = 3650

// parseExpiresIn reads --expires-in: a number of days, with or without a
// trailing "d", or "never" (0).
func parseExpiresIn(s string) (int, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "never" {
		return 0, nil
	}
	days, err := strconv.Atoi(strings.TrimSuffix(v, "d"))
	if err != nil || days < 1 || days > maxTokenDays || strings.HasPrefix(v, "+") {
		return 0, cmdutil.UsageErrorf("--expires-in %q is not a lifetime: give days from 1 to %d, as 30d or 30, or never", s, maxTokenDays)
	}
	return days, nil
}
