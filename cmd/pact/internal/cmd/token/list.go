package token

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

type tokenListOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	JSON    bool
	All     bool
}

func newTokenListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &tokenListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your API tokens",
		Long: `List your account's active API tokens, newest first: their scopes, the packs
they may publish and yank ("all" when not limited), when they were made,
expire and were last used. --all adds the expired and revoked tokens the
registry still keeps (30 days after they ended, by default), with their
status. Secrets are never shown.`,
		Example: `  $ pact token list
  $ pact token list --all --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTokenList(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	cmd.Flags().BoolVar(&opts.All, "all", false, "list the expired and revoked tokens the registry still keeps too")
	return cmd
}

func runTokenList(ctx context.Context, opts *tokenListOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	tokens, err := c.ListTokens(ctx, client.TokenListOptions{All: opts.All})
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, tokens)
	}
	if len(tokens) == 0 {
		opts.IO.Info("No active tokens; make one with 'pact token create'")
		return nil
	}
	return printTokens(opts.IO.Out, tokens, time.Now())
}

func tokenStatus(t client.Token, now time.Time) string {
	switch {
	case t.Revoked:
		return "revoked"
	case t.ExpiresAt != nil && !now.Before(*t.ExpiresAt):
		return "expired"
	}
	return "active"
}

// quoteName shows a token's name in double quotes, as Go quotes strings
// (escaping what is not graphic), for a name inside a sentence.
func quoteName(name string) string { return strconv.QuoteToGraphic(name) }

// tableName shows a token's name in a table's column as it is, "ci
// deploy": the table's columns are two spaces or more apart, so one space
// inside a name does not blur them. A name that could (empty, with spaces
// at its ends or two in a row, or a character that is not graphic) is
// quoted as quoteName does.
func tableName(name string) string {
	if name == "" || strings.TrimSpace(name) != name || strings.Contains(name, "  ") ||
		strings.ContainsFunc(name, func(r rune) bool { return r != ' ' && !unicode.IsGraphic(r) }) {
		return quoteName(name)
	}
	return name
}

// printTokens prints tokens as a table for people.
func printTokens(w io.Writer, tokens []client.Token, now time.Time) error {
	t := cmdutil.NewTable(w)
	fmt.Fprintln(t, "ID\tNAME\tSCOPES\tPACKAGES\tCREATED\tEXPIRES\tLAST USED\tSTATUS")
	for _, tok := range tokens {
		scopes, packages := shared.DescribeScopes(tok.Scopes, tok.Packages)
		cmdutil.WriteRow(t, strconv.FormatInt(tok.ID, 10), tableName(tok.Name), scopes, packages, text.FormatTime(tok.CreatedAt),
			shared.OptionalTime(tok.ExpiresAt, "never"), shared.OptionalTime(tok.LastUsedAt, "never"), tokenStatus(tok, now))
	}
	return t.Flush()
}
