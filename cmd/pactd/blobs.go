package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/server/blobs"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// blobsUsage is --blobs' help, the same on every command that has it.
const blobsUsage = "where documents are kept: file:///absolute/path (a directory), s3://bucket/prefix?endpoint=https://host:port&region=r " +
	"(S3-compatible; AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or none (in the database); default: on SQLite, the directory <db>.blobs beside the database " +
	"when it exists or the database is new, else in the database (docs/operations.md, Blob store)"

// defaultBlobDir is the directory beside a SQLite database that keeps its
// documents by default; "" for PostgreSQL and for databases in memory.
func defaultBlobDir(db string) string {
	path, ok := sqlitePath(db)
	if !ok || path == "" || strings.Contains(path, ":memory:") || strings.Contains(db, "mode=memory") {
		return ""
	}
	return path + ".blobs"
}

// blobsURL is the blob store of db: --blobs when given; else, on SQLite,
// the directory beside the database when it exists already or the
// database is new (fresh), so a registry made by this version keeps its
// documents there from its first publish, and one made before keeps them
// in its database until pactd blobs migrate makes the directory; "" keeps
// documents in the database.
func blobsURL(db, setting string, fresh bool) string {
	if setting == blobsNone {
		return ""
	}
	if setting != "" {
		return setting
	}
	dir := defaultBlobDir(db)
	if dir == "" {
		return ""
	}
	if fi, err := os.Stat(dir); fresh || err == nil && fi.IsDir() {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return ""
		}
		return "file://" + abs
	}
	return ""
}

// blobsNone is the --blobs that keeps documents in the database.
const blobsNone = "none"

// checkBlobsURL is validate's check of --blobs.
func checkBlobsURL(raw string) error {
	if raw == "" || raw == blobsNone {
		return nil
	}
	if err := blobs.CheckURL(raw); err != nil {
		return invalid("blobs", "is not a blob store: %v", err)
	}
	return nil
}

// openBlobs opens the blob store blobsURL names, nil for none.
func openBlobs(ctx context.Context, db, setting string, fresh bool) (registry.BlobStore, string, error) {
	u := blobsURL(db, setting, fresh)
	if u == "" {
		return nil, "", nil
	}
	// The usual environment of S3 clients, read here at the edge.
	b, err := blobs.Open(ctx, u, blobs.Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"), SessionToken: os.Getenv("AWS_SESSION_TOKEN")})
	if err != nil {
		return nil, "", fmt.Errorf("opening the blob store %s: %w", u, err)
	}
	return b, u, nil
}

// isNewDB says whether db is a SQLite file that does not exist yet.
func isNewDB(db string) bool {
	path, ok := sqlitePath(db)
	if !ok {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// blobsSetting is an admin command's --blobs, with its settings applied
// (dbSetting ran first).
func blobsSetting(cmd *cobra.Command) string {
	v, _ := cmd.Flags().GetString("blobs")
	return v
}

// withBlobService is withService with the blob store: --blobs, or the
// directory beside the SQLite database when it exists (create: make it,
// for pactd blobs migrate).
func withBlobService(cmd *cobra.Command, create bool, fn func(context.Context, *registry.Service, string) error) error {
	db, err := existingDBSetting(cmd)
	if err != nil {
		return err
	}
	setting := blobsSetting(cmd)
	if err := checkBlobsURL(setting); err != nil {
		return usageError{err}
	}
	ctx := cmd.Context()
	b, where, err := openBlobs(ctx, db, setting, create)
	if err != nil {
		return err
	}
	if b == nil && create {
		return usageError{errors.New("--blobs is required with a PostgreSQL database: name the blob store every replica shares")}
	}
	store, err := sqlstore.Open(ctx, db, sqlstore.Options{StatementTimeout: time.Minute, LogBackfill: registry.Backfill()})
	if err != nil {
		return fmt.Errorf("opening database: %w", err)
	}
	defer store.Close()
	return fn(ctx, registry.NewService(store, registry.Options{Blobs: b}), where)
}

func newBlobsCmd() *cobra.Command {
	cmd := groupCmd(&cobra.Command{
		Use:   "blobs",
		Short: "The blob store of documents and log tiles: move them out of the database, remove what nothing names",
		Long: `Documents and full log tiles can live on a blob store instead of in the database:
a directory (the default for a new SQLite registry, <db>.blobs beside it) or
S3-compatible object storage (--blobs s3://...). The database then keeps only
the rows that name them by sha256 (docs/operations.md, Blob store).`,
	})
	cmd.AddCommand(newBlobsMigrateCmd(), newBlobsGCCmd())
	return cmd
}

func newBlobsMigrateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Move every document and full log tile the database holds to the blob store",
		Long: `Copy every document that a version's row still holds, and every full log tile
and entry bundle, to the blob store (--blobs, or <db>.blobs beside a SQLite
database, made if missing), read it back and check it against its sha256, then
free the row's copy. Each one moves alone: stop it at any time (Ctrl-C) and run
it again to move the rest. Run it while pactd is
stopped, or while every pactd serves with the same --blobs: a pactd started
before the directory existed keeps documents in the database and cannot read
the rows this frees.`,
		Example: `  pactd blobs migrate --db /var/lib/pact/pact.db
  pactd blobs migrate --db postgres://pact@db/pact --blobs 's3://pact-docs/docs?endpoint=s3.example.com&region=eu-west-1'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withBlobService(cmd, true, func(ctx context.Context, svc *registry.Service, where string) error {
				r, err := svc.MigrateDocuments(ctx, func(r registry.MigrationReport) {
					fmt.Fprintf(cmd.ErrOrStderr(), "moved %d documents (%d bytes)\n", r.Moved, r.Bytes)
				})
				if err != nil {
					return fmt.Errorf("blobs migrate (moved %d documents before): %w", r.Moved, err)
				}
				tiles, tileBytes, err := svc.MoveFullTiles(ctx)
				if err != nil {
					return fmt.Errorf("blobs migrate (moved %d documents and %d full log tiles before): %w", r.Moved, tiles, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "moved %d documents (%d bytes) and %d full log tiles (%d bytes) to %s; the database holds none\n",
					r.Moved, r.Bytes, tiles, tileBytes, where)
				return nil
			})
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	cmd.Flags().String("blobs", "", blobsUsage)
	return cmd
}

func newBlobsGCCmd() *cobra.Command {
	var grace time.Duration
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove the blobs no version or log tile names, older than --grace",
		Long: `Remove every blob that no version or full log tile names and that is older
than --grace: what a publish leaves when it fails or pactd stops between
putting the document and committing its row, and (in a directory) the partial
writes of a publish cut short, as old. Safe beside serving replicas: a publish commits its row
within seconds of putting its document.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if grace <= 0 {
				return usageError{errors.New("--grace must be a positive duration, such as 24h")}
			}
			return withBlobService(cmd, false, func(ctx context.Context, svc *registry.Service, where string) error {
				if !svc.HasBlobStore() {
					return usageError{errors.New("no blob store: documents are in the database (give --blobs)")}
				}
				r, err := svc.CollectBlobs(ctx, grace)
				if err != nil {
					return fmt.Errorf("blobs gc (removed %d before): %w", r.Removed, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "removed %d unreferenced blobs (%d bytes) older than %s from %s; kept %d\n", r.Removed, r.RemovedBytes, grace, where, r.Kept)
				if r.Leftovers > 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "removed %d partial writes left by interrupted publishes\n", r.Leftovers)
				}
				return nil
			})
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	cmd.Flags().String("blobs", "", blobsUsage)
	cmd.Flags().DurationVar(&grace, "grace", registry.DefaultBlobGrace, "how old an unreferenced blob must be to be removed")
	return cmd
}
