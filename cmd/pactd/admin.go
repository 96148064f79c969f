package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// openService opens the database named by --db for an admin command.
func openService(ctx context.Context, cmd *cobra.Command) (*registry.Service, func(), error) {
	db, err := existingDBSetting(cmd)
	if err != nil {
		return nil, nil, err
	}
	store, err := sqlstore.Open(ctx, db, sqlstore.Options{LogBackfill: registry.Backfill()})
	if err != nil {
		return nil, nil, fmt.Errorf("opening database: %w", err)
	}
	return registry.NewService(store, registry.Options{}), func() { store.Close() }, nil
}

func newUserCmd() *cobra.Command {
	user := groupCmd(&cobra.Command{Use: "user", Short: "Manage accounts"})
	create := &cobra.Command{
		Use:     "create",
		Short:   "Create an account",
		Long:    `Create an account. The password is read from the first line of standard input.`,
		Example: `  printf '%s\n' "$PASSWORD" | pactd user create --email alice@example.com --username alice --password-stdin`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			email, _ := cmd.Flags().GetString("email")
			username, _ := cmd.Flags().GetString("username")
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
			acct, err := svc.CreateAccount(cmd.Context(), email, username, password)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created user %s (id %d)\n", acct.Username, acct.ID)
			return nil
		},
	}
	create.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	create.Flags().String("email", "", "email address (required)")
	create.Flags().String("username", "", "username: 1-39 of a-z, 0-9 and '-' (required)")
	create.Flags().Bool("password-stdin", false, "read the password from standard input")
	_ = create.MarkFlagRequired("email")
	_ = create.MarkFlagRequired("username")
	user.AddCommand(create)
	addAccountCommands(user)
	return user
}

func readLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		if errors.Is(err, io.EOF) {
			return "", errors.New("standard input is empty")
		}
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func newTokenCmd() *cobra.Command {
	token := groupCmd(&cobra.Command{Use: "token", Short: "Manage API tokens"})
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an API token and print it",
		Long: `Create an API token for an account and print it alone on standard output, for
scripts. The token is shown only this once; pact stores only its SHA-256.
Without --scope it holds every scope; --scope and --package limit it as
'pact token create' does. Without --expires-in it never expires.`,
		Example: `  PACT_TOKEN=$(pactd token create --user alice --name ci)
  pactd token create --user alice --name ci --scope publish --package 'widget-*' --expires-in 30d`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			username, _ := cmd.Flags().GetString("user")
			name, _ := cmd.Flags().GetString("name")
			spec, err := tokenSpecFlags(cmd, name)
			if err != nil {
				return err
			}
			svc, closeStore, err := openService(cmd.Context(), cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			acct, err := svc.AccountByUsername(cmd.Context(), username)
			if err != nil {
				return err
			}
			secret, _, err := svc.IssueToken(cmd.Context(), acct.ID, nil, spec)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), secret)
			return nil
		},
	}
	create.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	create.Flags().String("user", "", "username of the account (required)")
	create.Flags().String("name", "cli", "label of the token")
	create.Flags().String("expires-in", "never", "lifetime: days (30d or 30), a duration (720h) or never")
	create.Flags().StringArray("scope", nil, "a scope the token holds: publish, yank, keys, tokens, hooks, or none (repeatable; default: every scope)")
	create.Flags().StringArray("package", nil, "a pack-name glob the token is limited to: it then acts only on matching packs and holds no account-wide power (SSH keys, tokens, organisations) (repeatable; default: every pack)")
	_ = create.MarkFlagRequired("user")
	token.AddCommand(create, newTokenListCmd(), newTokenRevokeCmd())
	return token
}

func newMigrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply database migrations and exit",
		Long:  `Apply the embedded schema migrations to --db. serve does this on start too; run it alone before rolling out new replicas.`,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := dbSetting(cmd)
			if err != nil {
				return err
			}
			fresh := isNewDB(db)
			if err := sqlstore.Migrate(cmd.Context(), db, sqlstore.Options{LogBackfill: registry.Backfill()}); err != nil {
				return err
			}
			// A new SQLite registry keeps its documents in the directory
			// beside it (blobsURL): made here, serve finds it.
			if dir := defaultBlobDir(db); dir != "" && fresh {
				if err := os.Mkdir(dir, 0o750); err != nil && !errors.Is(err, fs.ErrExist) {
					return err
				}
			}
			fmt.Fprintln(cmd.OutOrStdout(), "database is up to date")
			return nil
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	return cmd
}
