package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

func newDumpCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dump",
		Short: "Write the whole database to a backup file",
		Long: `Write every account (with its password hash), API token hash, SSH key, package,
version (the raw documents byte for byte, those on the blob store too, yanks
included), signature provenance,
spent nonce and dashboard session of --db to a backup file: JSON lines, one
record per row, after a {"format":"pact-dump","version":3,...} header and
before an end record with the counts (restore reads versions 1 to 3).

The dump reads one consistent snapshot row by row, so it runs beside serving
replicas and its memory use does not grow with the database. It is the same
format for SQLite and PostgreSQL: restore it into either with 'pactd restore'.
The file holds password and token hashes: keep it as private as the database.`,
		Example: `  # Back up the SQLite database to a file
  pactd dump --db ./pact.db -o pact-backup.jsonl

  # Back up PostgreSQL, compressed
  pactd dump --db postgres://pact@db/pact | gzip > pact-backup.jsonl.gz

  # Move from SQLite to PostgreSQL in one go
  pactd dump --db ./pact.db | pactd restore --db postgres://pact@db/pact`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := existingDBSetting(cmd)
			if err != nil {
				return err
			}
			output, _ := cmd.Flags().GetString("output")
			return runDump(cmd, db, output)
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	cmd.Flags().String("blobs", "", blobsUsage)
	cmd.Flags().StringP("output", "o", "-", "file to write, or - for standard output")
	return cmd
}

func runDump(cmd *cobra.Command, db, output string) error {
	setting := blobsSetting(cmd)
	if err := checkBlobsURL(setting); err != nil {
		return usageError{err}
	}
	blobStore, _, err := openBlobs(cmd.Context(), db, setting, false)
	if err != nil {
		return err
	}
	store, err := sqlstore.Open(cmd.Context(), db, sqlstore.Options{LogBackfill: registry.Backfill()})
	if err != nil {
		return fmt.Errorf("opening database: %w", err)
	}
	defer store.Close()
	// Documents on the blob store go into the dump as the others do.
	var documents sqlstore.Documents
	if blobStore != nil {
		documents = registry.NewService(store, registry.Options{Blobs: blobStore}).BlobDocument
	}

	if output == "-" {
		counts, err := store.DumpWith(cmd.Context(), cmd.OutOrStdout(), documents)
		if err != nil {
			return fmt.Errorf("dump: %w", err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "dumped %s from %s\n", counts, store.Dialect())
		return nil
	}
	// Write beside the target and rename at the end, so a failed dump never
	// leaves a file that looks like a backup.
	tmp, err := os.CreateTemp(filepath.Dir(output), "."+filepath.Base(output)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	counts, err := store.DumpWith(cmd.Context(), tmp, documents)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	if err := os.Rename(tmp.Name(), output); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "dumped %s from %s to %s\n", counts, store.Dialect(), output)
	return nil
}

func newRestoreCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "restore",
		Short: "Load a backup file into an empty database",
		Long: `Load a file written by 'pactd dump' into --db, SQLite or PostgreSQL, whichever
engine the dump came from. Every row keeps its id, so packages, tokens, keys and
API answers are the same as before.

The database must be empty (a new SQLite file, or a new PostgreSQL database):
restore refuses a database that holds anything. It loads everything in one
transaction: a damaged or cut-short file loads nothing. Restore first, then
start pactd on the database. Dumps of format version 1 (older pactd) load too.`,
		Example: `  # Restore a backup into a new SQLite file
  pactd restore --db ./restored.db -i pact-backup.jsonl

  # Restore a compressed backup into a new PostgreSQL database
  createdb pact && gunzip -c pact-backup.jsonl.gz | pactd restore --db postgres://pact@db/pact`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := dbSetting(cmd)
			if err != nil {
				return err
			}
			input, _ := cmd.Flags().GetString("input")
			return runRestore(cmd, db, input)
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL; must be empty")
	cmd.Flags().StringP("input", "i", "-", "file to read, or - for standard input")
	return cmd
}

func runRestore(cmd *cobra.Command, db, input string) error {
	var in io.Reader = cmd.InOrStdin()
	source := "standard input"
	if input != "-" {
		f, err := os.Open(input)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("no dump file %s", input)
			}
			return err
		}
		defer f.Close()
		in, source = f, input
	}
	store, err := sqlstore.Open(cmd.Context(), db, sqlstore.Options{LogBackfill: registry.Backfill()})
	if err != nil {
		return fmt.Errorf("opening database: %w", err)
	}
	defer store.Close()
	counts, err := store.Restore(cmd.Context(), in)
	if err != nil {
		return fmt.Errorf("restore from %s: %w", source, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "restored %s into %s\n", counts, store.Dialect())
	return nil
}

// sqlitePath is the file of a SQLite --db (a path or a file: URI); ok is
// false for PostgreSQL URLs.
func sqlitePath(db string) (path string, ok bool) {
	if sqlstore.IsPostgres(db) {
		return "", false
	}
	path, _, _ = strings.Cut(db, "?")
	return strings.TrimPrefix(path, "file:"), true
}
