package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/server/registry"
)

// The operator's account commands besides create: list, passwd, disable,
// enable (docs/operations.md, Accounts).

func addAccountCommands(user *cobra.Command) {
	user.AddCommand(newUserListCmd(), newUserPasswdCmd(), newUserDisableCmd(), newUserEnableCmd())
}

// listedUser is one line of `pactd user list --json`.
type listedUser struct {
	Username   string     `json:"username"`
	Kind       string     `json:"kind"` // accountKind's words
	Email      string     `json:"email"`
	CreatedAt  time.Time  `json:"created_at"`
	DisabledAt *time.Time `json:"disabled_at"`
	Tokens     int64      `json:"tokens"`
	SSHKeys    int64      `json:"ssh_keys"`
	Packages   int64      `json:"packages"`
	Sessions   int64      `json:"sessions"`
}

// userListPage is how many accounts one query reads; the list is written
// page by page, so memory does not grow with the number of accounts.
const userListPage = 500

func newUserListCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List accounts",
		Long: `List every account, oldest first: username, kind (user or organisation),
email, when it was created, when it was disabled (if it is), and how many active
API tokens, SSH keys, packages and unexpired dashboard sessions it has. --json
prints a JSON array instead.`,
		Example: `  pactd user list
  pactd user list --json | jq -r '.[] | select(.disabled_at != null) | .username'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, _ := cmd.Flags().GetBool("json")
			svc, closeStore, err := openService(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			out := cmd.OutOrStdout()
			var w *tabwriter.Writer
			if asJSON {
				fmt.Fprint(out, "[")
			} else {
				w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "USERNAME\tKIND\tEMAIL\tCREATED\tDISABLED\tTOKENS\tKEYS\tPACKAGES\tSESSIONS")
			}
			n, after := 0, int64(0)
			for {
				page, err := svc.ListAccounts(cmd.Context(), after, userListPage)
				if err != nil {
					return err
				}
				for _, a := range page {
					if asJSON {
						if err := writeListedUser(out, n, a); err != nil {
							return err
						}
					} else {
						disabled := "-"
						if a.DisabledAt != nil {
							disabled = a.DisabledAt.UTC().Format(time.RFC3339)
						}
						email := a.Email
						if email == "" {
							email = "-" // an organisation has none
						}
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n", a.Username, accountKind(&a.Account), email, a.CreatedAt.UTC().Format(time.RFC3339),
							disabled, a.ActiveTokens, a.SSHKeys, a.Packages, a.Sessions)
					}
					n++
				}
				if !asJSON {
					if err := w.Flush(); err != nil {
						return err
					}
				}
				if len(page) < userListPage {
					break
				}
				after = page[len(page)-1].ID
			}
			if asJSON {
				if n > 0 {
					fmt.Fprint(out, "\n")
				}
				_, err := fmt.Fprintln(out, "]")
				return err
			}
			return nil
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	cmd.Flags().Bool("json", false, "print a JSON array of accounts")
	return cmd
}

func writeListedUser(out io.Writer, i int, a registry.AccountSummary) error {
	b, err := json.Marshal(listedUser{Username: a.Username, Kind: accountKind(&a.Account), Email: a.Email, CreatedAt: a.CreatedAt.UTC().Truncate(time.Second),
		DisabledAt: truncatedTime(a.DisabledAt), Tokens: a.ActiveTokens, SSHKeys: a.SSHKeys, Packages: a.Packages, Sessions: a.Sessions})
	if err != nil {
		return err
	}
	sep := ",\n  "
	if i == 0 {
		sep = "\n  "
	}
	_, err = fmt.Fprint(out, sep+string(b))
	return err
}

// accountKind names an account's kind for people: user or organisation.
func accountKind(a *registry.Account) string {
	if a.IsOrg() {
		return "organisation"
	}
	return "user"
}

func truncatedTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Second)
	return &u
}

func newUserPasswdCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "passwd USERNAME",
		Short: "Set an account's password and end its sessions",
		Long: `Set a new password for an account, read from the first line of standard input;
the rules are those of sign-up (at least 8 characters). Every dashboard session of
the account ends. API tokens and SSH keys are not affected.`,
		Example: `  printf '%s\n' "$PASSWORD" | pactd user passwd alice --password-stdin`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if stdin, _ := cmd.Flags().GetBool("password-stdin"); !stdin {
				return usageError{errors.New("--password-stdin is required: pass the password on standard input, never as an argument")}
			}
			password, err := readLine(cmd.InOrStdin())
			if err != nil {
				return fmt.Errorf("reading the password from standard input: %w", err)
			}
			svc, closeStore, err := openService(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			acct, ended, err := svc.SetPassword(cmd.Context(), args[0], password)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "changed the password of %s; %s ended\n", acct.Username, plural(ended, "session"))
			return nil
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	cmd.Flags().Bool("password-stdin", false, "read the password from standard input (required)")
	return cmd
}

func newUserDisableCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "disable USERNAME",
		Short: "Disable an account: no log-ins, tokens or signed publishes",
		Long: `Disable an account. Its dashboard sessions end and it cannot log in (the log-in
page says the account is disabled); its API tokens are refused with 403 and its
SSH-signed publishes with 403, both saying the account is disabled. Its tokens, keys
and packages stay as they are: 'pactd user enable' makes them work again.`,
		Example: `  pactd user disable mallory`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, closeStore, err := openService(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			acct, ended, err := svc.DisableAccount(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "disabled %s (since %s); %s ended\n", acct.Username,
				acct.DisabledAt.UTC().Format(time.RFC3339), plural(ended, "session"))
			return nil
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	return cmd
}

func newUserEnableCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "enable USERNAME",
		Short:   "Enable a disabled account again",
		Long:    `Enable a disabled account: it may log in again, and its API tokens and SSH keys work again.`,
		Example: `  pactd user enable mallory`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, closeStore, err := openService(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			acct, err := svc.EnableAccount(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "enabled %s\n", acct.Username)
			return nil
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	return cmd
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
