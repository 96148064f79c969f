package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
	"github.com/pact-registry/pact/server/witness"
)

// The transparency log's settings and the `pactd log` commands
// (docs/operations.md, The transparency log).

type logSettings struct {
	KeyFile        string
	Origin         string
	WitnessPolicy  string
	WitnessRefresh time.Duration
}

func (c *logSettings) flags(f *pflag.FlagSet) {
	f.StringVar(&c.KeyFile, "log-key-file", "", "file holding the transparency log's signer key (pactd log genkey); default: the key kept in the database, made at the first start")
	f.StringVar(&c.Origin, "log-origin", "", "name of a log key made at the first start (default <host of --base-url>/log)")
	f.StringVar(&c.WitnessPolicy, "witness-policy", "", "file holding the log's witness policy (C2SP tlog-policy: log, witness NAME VKEY URL, group, quorum lines): checkpoints are pushed to its witnesses and /log/checkpoint serves the newest a quorum cosigned (default: none, checkpoints are served as signed)")
	f.DurationVar(&c.WitnessRefresh, "witness-refresh", registry.DefaultWitnessRefresh, "with --witness-policy, how old the witnesses' cosignatures of an unchanged checkpoint may grow before it is sent to them again (at least 1s)")
}

// validate checks the log's settings that need no file or database.
func (c *logSettings) validate() error {
	if c.WitnessRefresh < time.Second {
		return invalid("witness-refresh", "is not a duration of at least 1s, such as 1h")
	}
	return nil
}

// How the sequencer runs: right after this process appends, and every
// logPoll for other replicas' appends; at most one checkpoint per
// logMinGap. A publish is covered by a checkpoint well within a second.
// The witnesses' pusher runs as soon as this process signs a checkpoint,
// and every witnessPoll for other replicas' checkpoints, refreshes and
// retries: a publish is covered by a witnessed checkpoint within 2 s.
const (
	logPoll     = 500 * time.Millisecond
	logMinGap   = 100 * time.Millisecond
	witnessPoll = 500 * time.Millisecond
)

// startLog loads (or makes) the log's key and starts the sequencer for as
// long as ctx lasts. explicitBase says whether --base-url was given, addr
// is where pactd listens: a log named for localhost on a registry that
// others reach, or for a host that is not the base URL's, is warned of.
func startLog(ctx context.Context, svc *registry.Service, cfg logSettings, baseURL string, explicitBase bool, addr net.Addr, log *slog.Logger) error {
	operatorKey := ""
	if cfg.KeyFile != "" {
		b, err := os.ReadFile(cfg.KeyFile)
		if err != nil {
			return fmt.Errorf("--log-key-file: %w", err)
		}
		operatorKey = strings.TrimSpace(string(b))
	}
	origin := cfg.Origin
	if origin == "" {
		origin = logOrigin(baseURL)
	}
	if err := svc.InitLog(ctx, origin, operatorKey); err != nil {
		return fmt.Errorf("transparency log: %w", err)
	}
	warnOfLogOrigin(ctx, log, svc.LogOrigin(), cfg.Origin, baseURL, explicitBase, addr)
	if cfg.WitnessPolicy != "" {
		if err := startWitnesses(ctx, svc, cfg, log); err != nil {
			return err
		}
	}
	// The sequencer's first round signs the first checkpoint; serving does
	// not wait for it, so a registry upgraded to the log starts at once.
	go svc.RunLogSequencer(ctx, logPoll, logMinGap, func(err error) {
		level := slog.LevelError
		if errors.Is(err, registry.ErrStoreUnreachable) {
			level = slog.LevelDebug // the store logs the outage once, with why
		}
		log.Log(ctx, level, "transparency log: sequencing failed; retrying", "err", err.Error())
	})
	return nil
}

// startWitnesses reads the witness policy and starts the pusher beside the
// sequencer (docs/operations.md, Witnesses).
func startWitnesses(ctx context.Context, svc *registry.Service, cfg logSettings, log *slog.Logger) error {
	f, err := os.Open(cfg.WitnessPolicy)
	if err != nil {
		return fmt.Errorf("--witness-policy: %w", err)
	}
	text, err := io.ReadAll(io.LimitReader(f, translog.MaxPolicySize+1))
	f.Close()
	if err != nil {
		return fmt.Errorf("--witness-policy: %w", err)
	}
	policy, err := translog.ParsePolicy(text)
	if err != nil {
		return fmt.Errorf("--witness-policy %s: %w", cfg.WitnessPolicy, err)
	}
	if err := svc.InitWitnesses(registry.WitnessOptions{Policy: policy, Refresh: cfg.WitnessRefresh, Log: log,
		Client: witness.New(witness.DefaultTimeout, "pactd/"+version)}); err != nil {
		return fmt.Errorf("--witness-policy %s: %w", cfg.WitnessPolicy, err)
	}
	pushing := 0
	for _, w := range policy.Witnesses {
		if w.URL != "" {
			pushing++
		}
	}
	log.Info(fmt.Sprintf("transparency log: pushing checkpoints to %d of the %d witnesses of %s", pushing, len(policy.Witnesses), cfg.WitnessPolicy))
	go svc.RunWitnessPusher(ctx, witnessPoll, func(err error) {
		level := slog.LevelError
		if registry.IsCode(err, registry.Unavailable) {
			level = slog.LevelDebug // no checkpoint yet, or the store's outage, logged once
		}
		log.Log(ctx, level, "transparency log: pushing to the witnesses failed; retrying", "err", err.Error())
	})
	return nil
}

// warnOfLogOrigin warns when the log's name (its origin, fixed in its key at
// the first start: clients pin it) does not fit this start: --log-origin
// or the base URL's host names another, or pactd listens where others reach
// it without --base-url, so that links and a new log say localhost.
func warnOfLogOrigin(ctx context.Context, log *slog.Logger, name, flag, baseURL string, explicitBase bool, addr net.Addr) {
	host, _, _ := net.SplitHostPort(addr.String())
	if ip := net.ParseIP(host); !explicitBase && ip != nil && !ip.IsLoopback() {
		log.WarnContext(ctx, "pactd listens on "+addr.String()+" without --base-url: its links say "+baseURL+
			" and the transparency log is named "+name+"; set --base-url (PACTD_BASE_URL) to the registry's public URL",
			"log_origin", name, "base_url", baseURL)
	}
	switch {
	case flag != "" && flag != name:
		log.WarnContext(ctx, "--log-origin "+flag+" is not the log's name: the log was named "+name+
			" at its first start, and a log keeps its name (clients pin it)", "log_origin", name)
	case explicitBase && flag == "" && name != logOrigin(baseURL):
		log.WarnContext(ctx, "the transparency log is named "+name+", not after --base-url's host ("+logOrigin(baseURL)+
			"): it was named at its first start and keeps its name (clients pin it)", "log_origin", name, "base_url", baseURL)
	}
}

// logOrigin is the default name of the log: the host of the base URL and /log.
func logOrigin(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return registry.DefaultLogOrigin("localhost")
	}
	return registry.DefaultLogOrigin(u.Host)
}

func newLogCmd() *cobra.Command {
	cmd := groupCmd(&cobra.Command{
		Use:   "log",
		Short: "The transparency log: its key, and a check of the whole log",
		Long: `Every version published and every SSH key added or removed is an entry of the
registry's transparency log (docs/protocol.md, Transparency log). These
commands read the database directly (--db, PACTD_DB or the config file).`,
	})
	cmd.AddCommand(newLogKeyCmd(), newLogCheckCmd(), newLogGenkeyCmd())
	return cmd
}

func newLogKeyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Print the log's verifier key",
		Long: `Print the verifier key of the transparency log (the signed-note name+hash+key
form), which clients pin: pact get --log-key KEY or PACT_LOG_KEY.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withService(cmd, func(ctx context.Context, svc *registry.Service) error {
				key, err := svc.StoredLogVerifierKey(ctx)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), key)
				return nil
			})
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	return cmd
}

func newLogCheckCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Recompute the log and compare it with every checkpoint, document, release and package state",
		Long: `Recompute the Merkle tree from the stored entries, compare it with every stored
hash, full tile and signed checkpoint, compare each version's document (its bytes and
sha256) with its log entry, each release record with its digest and its release
entry, each package's trusted-publishing-only setting with its last
trusted-publishing-only entry, and each package's latest version, yanked versions,
deprecation and log head with its newest pack-state entry. Every pack-state entry
is also checked against the package's events before it: it names the previous
one, lists the versions the yank and unyank entries leave yanked, and names the
latest version the rule of latest picks among the versions published and not
yanked. A document on the blob store (--blobs) is read from it and checked the
same way: a blob missing or whose bytes differ is named. Exits 1 naming the
first mismatch (the package, what differs, the database's value and the log's).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withBlobService(cmd, false, func(ctx context.Context, svc *registry.Service, _ string) error {
				err := svc.CheckLog(ctx, func(line string) { fmt.Fprintln(cmd.OutOrStdout(), line) })
				if err != nil {
					return fmt.Errorf("log check failed: %w", err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), "log check passed")
				return nil
			})
		},
	}
	cmd.Flags().String("db", defaultDB, "SQLite file path, or a postgres:// URL")
	cmd.Flags().String("blobs", "", blobsUsage)
	return cmd
}

func newLogGenkeyCmd() *cobra.Command {
	var origin string
	cmd := &cobra.Command{
		Use:   "genkey",
		Short: "Print a new log signer key, for --log-key-file",
		Long: `Print a new Ed25519 signer key for the transparency log, in note's
PRIVATE+KEY+name+hash+key form, for operators who keep the key out of the
database (pactd serve --log-key-file). Its name is --origin. Keep it secret;
pactd log key prints the matching verifier key once pactd has started with it.`,
		Example: `  pactd log genkey --origin pact.example.com/log > /etc/pact/log.key`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if origin == "" {
				return usageError{errors.New("--origin is required, e.g. pact.example.com/log")}
			}
			skey, _, err := translog.GenerateKey(rand.Reader, origin)
			if err != nil {
				return usageError{err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), skey)
			return nil
		},
	}
	cmd.Flags().StringVar(&origin, "origin", "", "the log's name, e.g. pact.example.com/log")
	return cmd
}

// withService opens db and runs fn with a service over it.
func withService(cmd *cobra.Command, fn func(context.Context, *registry.Service) error) error {
	db, err := existingDBSetting(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	store, err := sqlstore.Open(ctx, db, sqlstore.Options{StatementTimeout: time.Minute, LogBackfill: registry.Backfill()})
	if err != nil {
		return fmt.Errorf("opening database: %w", err)
	}
	defer store.Close()
	return fn(ctx, registry.NewService(store, registry.Options{}))
}
