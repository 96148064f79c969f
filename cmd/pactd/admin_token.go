package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/server/registry"
)

// parseTokenLifetime reads pactd token create --expires-in: days (30d or
// 30, as pact token create takes them), never, or a Go duration (720h,
// as earlier releases took it). Zero: no expiry.
func parseTokenLifetime(s string) (days int, d time.Duration, err error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" || v == "never" {
		return 0, 0, nil
	}
	if n, err := strconv.Atoi(strings.TrimSuffix(v, "d")); err == nil && !strings.HasPrefix(v, "+") {
		if n < 1 || n > registry.MaxTokenDays {
			return 0, 0, usageError{fmt.Errorf("--expires-in %q: give 1 to %d days", s, registry.MaxTokenDays)}
		}
		return n, 0, nil
	}
	d, err = time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, 0, usageError{fmt.Errorf("--expires-in %q is not a lifetime: give days (30d or 30), a duration (720h) or never", s)}
	}
	return 0, d, nil
}

func newTokenListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List an account's API tokens",
		Long: `List the active API tokens of one account, newest first: id, name (as it
is; quoted when empty, padded, with two spaces in a row or characters that
are not graphic), scopes ("all" for a token of every scope, "none (read only)" for none), the
packs publish and yank are limited to, when each was made, expires and was
last used, in the columns and words of 'pact token list'. --all adds the
expired and revoked tokens still kept (pactd serve deletes them
--token-retention after they ended), with their status. Secrets are never
stored, so never shown.`,
		Example: `  pactd token list --user alice
  pactd token list --user alice --all --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			username, _ := cmd.Flags().GetString("user")
			asJSON, _ := cmd.Flags().GetBool("json")
			all, _ := cmd.Flags().GetBool("all")
			svc, closeStore, err := openService(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			acct, err := svc.AccountByUsername(cmd.Context(), username)
			if err != nil {
				return err
			}
			var tokens []registry.Token
			for cursor := ""; ; {
				page, next, err := svc.ListTokens(cmd.Context(), acct.ID, registry.TokenQuery{Limit: registry.MaxListLimit, Cursor: cursor, All: all})
				if err != nil {
					return err
				}
				tokens = append(tokens, page...)
				if next == "" {
					break
				}
				cursor = next
			}
			now := svc.Now()
			if asJSON {
				type row struct {
					ID         int64      `json:"id"`
					Name       string     `json:"name"`
					Scopes     []string   `json:"scopes"`
					Packages   []string   `json:"packages"`
					CreatedAt  time.Time  `json:"created_at"`
					ExpiresAt  *time.Time `json:"expires_at"`
					LastUsedAt *time.Time `json:"last_used_at"`
					Revoked    bool       `json:"revoked"`
					RevokedAt  *time.Time `json:"revoked_at"`
				}
				rows := make([]row, len(tokens))
				for i, t := range tokens {
					rows[i] = row{ID: t.ID, Name: t.Name, Packages: t.Packages, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt,
						LastUsedAt: t.LastUsedAt, Revoked: t.RevokedAt != nil, RevokedAt: t.RevokedAt}
					if t.Scopes != nil {
						rows[i].Scopes = make([]string, len(t.Scopes))
						for j, s := range t.Scopes {
							rows[i].Scopes[j] = string(s)
						}
					}
				}
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(tokens) == 0 {
				what := "active tokens"
				if all {
					what = "tokens"
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "%s has no %s\n", acct.Username, what)
				return nil
			}
			// The columns and their words are those of pact token list, the
			// name shown alike (tokenTableName).
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tNAME\tSCOPES\tPACKAGES\tCREATED\tEXPIRES\tLAST USED\tSTATUS")
			for _, t := range tokens {
				fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, tokenTableName(t.Name), adminScopes(t.Scopes), adminPackages(t.Packages),
					adminTime(&t.CreatedAt), adminTime(t.ExpiresAt), adminTime(t.LastUsedAt), adminStatus(&t, now))
			}
			return w.Flush()
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	cmd.Flags().String("user", "", "username of the account (required)")
	cmd.Flags().Bool("json", false, "print JSON instead of a table")
	cmd.Flags().Bool("all", false, "list the expired and revoked tokens still kept too")
	_ = cmd.MarkFlagRequired("user")
	return cmd
}

func newTokenRevokeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke an API token by id",
		Long: `Revoke the API token with this id, whichever account holds it ('pactd token
list --user NAME' shows the ids). Requests that send it are refused from
then on. Revoking a revoked token succeeds and keeps the first time.`,
		Example: `  pactd token revoke 7`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return usageError{fmt.Errorf("%q is not a token id: 'pactd token list --user NAME' shows them", args[0])}
			}
			svc, closeStore, err := openService(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			acct, err := svc.RevokeTokenByID(cmd.Context(), id)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked token %d of %s\n", id, acct.Username)
			return nil
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	return cmd
}

// tokenSpecFlags reads pactd token create's --scope, --package and --expires-in.
func tokenSpecFlags(cmd *cobra.Command, name string) (registry.TokenSpec, error) {
	spec := registry.TokenSpec{Name: name}
	if cmd.Flags().Changed("scope") {
		scopes, _ := cmd.Flags().GetStringArray("scope")
		if len(scopes) == 1 && scopes[0] == "none" {
			scopes = []string{}
		}
		spec.Scopes = scopes
	}
	if cmd.Flags().Changed("package") {
		spec.Packages, _ = cmd.Flags().GetStringArray("package")
	}
	lifetime, _ := cmd.Flags().GetString("expires-in")
	days, d, err := parseTokenLifetime(lifetime)
	if err != nil {
		return spec, err
	}
	if days > 0 {
		spec.ExpiresInDays = &days
	}
	if d > 0 {
		at := time.Now().Add(d).UTC()
		spec.ExpiresAt = &at
	}
	return spec, nil
}

// tokenTableName shows a token's name in the list's column as it is, as pact
// token list does: the columns are two spaces or more apart, so one space
// inside a name does not blur them. A name that could (empty, with spaces at
// its ends or two in a row, or a character that is not graphic) is quoted
// as Go quotes strings, escaping what is not graphic.
func tokenTableName(name string) string {
	if name == "" || strings.TrimSpace(name) != name || strings.Contains(name, "  ") ||
		strings.ContainsFunc(name, func(r rune) bool { return r != ' ' && !unicode.IsGraphic(r) }) {
		return strconv.QuoteToGraphic(name)
	}
	return name
}

func adminScopes(scopes []registry.Scope) string {
	if scopes == nil {
		return "all"
	}
	if len(scopes) == 0 {
		return "none (read only)" // as pact token list says it
	}
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}

func adminPackages(packages []string) string {
	if packages == nil {
		return "all"
	}
	return strings.Join(packages, ",")
}

func adminTime(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func adminStatus(t *registry.Token, now time.Time) string {
	switch {
	case t.RevokedAt != nil:
		return "revoked"
	case !t.Active(now):
		return "expired"
	}
	return "active"
}
