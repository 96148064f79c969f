package token

import (
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/text"

	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/pkg/client"
)

func NewTokenCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token <command>",
		Short: "Create, list and revoke API tokens",
		Long: `Manage the API tokens of your account. A token holds scopes: publish
(optionally limited to packs by --package globs), yank (yank, un-yank and
deprecate, limited by the same globs), keys (add and remove SSH keys) and
tokens (create, list and revoke tokens). A token made without --scope holds
every scope. Any active token may read (whoami, keys list).

These commands need a token with the tokens scope, and a token cannot make
a token with more power than it holds.`,
		Example: `  $ pact token create --name ci --scope publish --package 'widget-*' --expires-in 30d
  $ pact token list
  $ pact token revoke 7`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newTokenCreateCmd(f), newTokenListCmd(f), newTokenRevokeCmd(f))
	return cmd
}

// maxTokenDays is the longest lifetime the registry gives a token.
const maxTokenDays = 3650

// ParseExpiresIn reads --expires-in: a number of days, with or without a
// trailing "d", or "never" (0).
func ParseExpiresIn(s string) (int, error) {
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
