// Package servertest starts a real pact server on a real database for
// tests, and makes accounts and tokens. Every HTTP suite uses it, on SQLite
// and on PostgreSQL alike.
package servertest

import (
	"context"
	"errors"
	"fmt"
	"github.com/gin-gonic/gin"
	"io"
	"io/fs"
	"log/slog"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/s3test"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/blobs"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
	"github.com/pact-registry/pact/server/webhook"
)

// Env is one running server.
type Env struct {
	URL     string // base URL of the listening server
	Store   registry.Store
	Service *registry.Service
	API     *apitest.Client // validates every response against openapi.json
	Clock   *Clock
	// Routes are every route the server serves (server.Server.Routes).
	Routes []gin.RouteInfo
	// Webhooks is the deliverer run with Options.Webhooks; nil without.
	Webhooks *webhook.Deliverer
}

// Options adjust a server for a test.
// TestPasswordCost is the argon2id cost of the passwords of servertest's
// servers: 64 KiB, one pass. pactd hashes at registry.DefaultPasswordCost
// (19 MiB, two passes), which server/registry's tests and every test of a
// real pactd process keep; under the race detector each such hash cost
// about 0.1 s of CPU and faulted in 19 MiB, at every sign-up and log-in of
// the pages' and routes' tests (measured with perf: a fifth of
// TestChangePassword's CPU).
var TestPasswordCost = registry.PasswordCost{MemoryKiB: 64, Passes: 1}

type Options struct {
	MaxDocumentBytes int64
	// MaxPendingDeviceLogins is registry.Options' (0: the registry's own).
	MaxPendingDeviceLogins int
	Signup                 string
	Limits                 server.Limits // zero: no limits
	// Logs receives pactd's JSON log lines; nil discards them.
	Logs io.Writer
	// OIDCIssuers are allowed for trusted publishing (--oidc-issuer).
	OIDCIssuers []string
	// Webhooks runs a webhook deliverer beside the server, polling often
	// (Env.Webhooks); WebhookAllowPrivate is --webhook-allow-private, and
	// ResolveHost replaces the resolver of a hook's host when it is made.
	Webhooks            bool
	WebhookAllowPrivate bool
	WebhookTimeout      time.Duration
	ResolveHost         func(ctx context.Context, host string) ([]netip.Addr, error)
	// Localhost names the server http://localhost:PORT instead of
	// http://127.0.0.1:PORT, in its base URL and Env.URL: passkeys need a
	// domain name for their RP ID, and browsers allow them on localhost.
	Localhost bool
	// NoSequencer runs no log sequencer beside the server: entries stay
	// uncovered until the test calls Service.SequenceLog.
	NoSequencer bool
	// Blobs keeps documents on a blob store (pactd serve --blobs). When
	// nil and PACT_TEST_BLOBS is dir (or s3), every server of the run
	// keeps them in a directory (or a bucket of a versitygw) of its own,
	// so any suite can be run on either engine unchanged.
	Blobs registry.BlobStore
	// StatementTimeout is the store's bound on a statement or transaction
	// (pactd serve --db-statement-timeout); 0 keeps its default, 5s.
	StatementTimeout time.Duration
	// CheckpointWait is how long a GET /log/checkpoint?wait=1 is held
	// (registry.Options.CheckpointWait); 0 keeps the default, 5s.
	CheckpointWait time.Duration
}

// Clock is a settable clock; it starts at the real time.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Backends runs fn once per store backend: sqlite always, postgres on
// PACT_TEST_POSTGRES_URL's server or a throwaway cluster, skipped only when
// there is neither (see storetest.RequirePostgres). Each database is new and
// migrated, a copy of the process's migrated template (see migrate).
func Backends(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, storetest.SQLiteDSN(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, storetest.MigratedPostgresURL(t, migrate)) })
}

// migrate brings a new database's schema up to date, as Start's Open
// would: the tests' databases are copies of one it migrated.
func migrate(dsn string) error {
	return sqlstore.Migrate(context.Background(), dsn, sqlstore.Options{LogBackfill: registry.Backfill()})
}

// Start opens dsn and serves pact on a loopback port until the test ends.
// A SQLite file that does not exist yet starts as a copy of the process's
// migrated template (storetest.MigratedSQLite), as a file Open migrated
// would be.
func Start(t testing.TB, dsn string, opts Options) *Env {
	t.Helper()
	if !sqlstore.IsPostgres(dsn) && !strings.HasPrefix(dsn, "file:") {
		if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
			storetest.MigratedSQLite(t, dsn, migrate)
		}
	}
	// Suggestions get a budget no test reaches (sqlstore's
	// TestSuggestionsHaveABudget tests the budget): the first statements
	// of a new session on a new database pay its cold caches, past the
	// default 10 ms on a busy machine.
	store, err := sqlstore.Open(context.Background(), dsn, sqlstore.Options{LogBackfill: registry.Backfill(), SuggestBudget: time.Minute,
		StatementTimeout: opts.StatementTimeout})
	if err != nil {
		t.Fatalf("opening store %s: %v", dsn, err)
	}
	t.Cleanup(func() { store.Close() })
	clock := &Clock{now: time.Now().UTC().Truncate(time.Second)}
	if opts.Blobs == nil {
		switch os.Getenv("PACT_TEST_BLOBS") {
		case "dir":
			dir, err := blobs.OpenDir(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			opts.Blobs = dir
		case "s3":
			s3 := s3test.Start(t)
			bucket, err := blobs.Open(context.Background(), s3.Bucket(t), s3.Creds)
			if err != nil {
				t.Fatal(err)
			}
			opts.Blobs = bucket
		}
	}
	svc := registry.NewService(store, registry.Options{Now: clock.Now, MaxDocumentBytes: opts.MaxDocumentBytes,
		OIDCIssuers: opts.OIDCIssuers, WebhookAllowPrivate: opts.WebhookAllowPrivate, ResolveHost: opts.ResolveHost,
		Blobs: opts.Blobs, CheckpointWait: opts.CheckpointWait, PasswordCost: TestPasswordCost,
		MaxPendingDeviceLogins: opts.MaxPendingDeviceLogins})
	// The transparency log, as pactd serve runs it.
	if err := svc.InitLog(context.Background(), "servertest/log", ""); err != nil {
		t.Fatalf("starting the log: %v", err)
	}
	if _, err := svc.SequenceLog(context.Background()); err != nil {
		t.Fatalf("first checkpoint: %v", err)
	}
	if !opts.NoSequencer {
		sequencing, stopSequencer := context.WithCancel(context.Background())
		sequencerDone := make(chan struct{})
		go func() {
			defer close(sequencerDone)
			svc.RunLogSequencer(sequencing, 500*time.Millisecond, 10*time.Millisecond, nil)
		}()
		t.Cleanup(func() { stopSequencer(); <-sequencerDone })
	}
	// The base URL is only known once the listener exists, so the handler
	// is installed after the server starts.
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.MaxHeaderBytes = 64 << 10 // as pactd serve
	ts.Start()
	t.Cleanup(ts.Close)
	baseURL := ts.URL
	if opts.Localhost {
		baseURL = strings.Replace(baseURL, "//127.0.0.1:", "//localhost:", 1)
	}
	logs := opts.Logs
	if logs == nil {
		logs = io.Discard
	}
	srv := server.New(svc, server.Config{BaseURL: baseURL, Signup: opts.Signup, Limits: opts.Limits,
		Logger: slog.New(slog.NewJSONHandler(logs, nil)), RequestLog: logs})
	ts.Config.Handler = srv.Handler()
	env := &Env{URL: baseURL, Store: store, Service: svc, API: apitest.New(t, baseURL), Clock: clock, Routes: srv.Routes()}
	if opts.Webhooks {
		env.Webhooks = webhook.New(svc, webhook.Config{Timeout: opts.WebhookTimeout, Poll: 20 * time.Millisecond,
			Logger: slog.New(slog.NewJSONHandler(logs, nil))})
		delivering, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); env.Webhooks.Run(delivering) }()
		t.Cleanup(func() { stop(); <-done })
	}
	return env
}

// User is an account with a working API token.
type User struct {
	Account  *registry.Account
	Token    string
	Password string
}

// CreateUser makes an account named username and a token for it.
func (e *Env) CreateUser(t testing.TB, username string) *User {
	t.Helper()
	ctx := context.Background()
	password := "correct horse " + username
	acct, err := e.Service.CreateAccount(ctx, username+"@example.com", username, password)
	if err != nil {
		t.Fatalf("creating user %s: %v", username, err)
	}
	secret, _, err := e.Service.CreateToken(ctx, acct.ID, "test", nil)
	if err != nil {
		t.Fatalf("creating token for %s: %v", username, err)
	}
	return &User{Account: acct, Token: secret, Password: password}
}

// Bearer is the Authorization header of u's token, for apitest calls.
func (u *User) Bearer() string { return "Authorization: Bearer " + u.Token }

// PackDoc is a pack document with the given name and version around some
// prose, as users write them; extra lines go into the yaml block.
func PackDoc(name, version string, extra ...string) string {
	return fmt.Sprintf("# %s\n\nSome prose about the pack.\n\n```yaml pact:pack\nname: %s\nversion: %s\n%s```\n\nMore prose.\n",
		name, name, version, strings.Join(extra, ""))
}

// EachBackend runs a test against a fresh server on every store backend.
func EachBackend(t *testing.T, fn func(t *testing.T, env *Env)) {
	Backends(t, func(t *testing.T, dsn string) {
		fn(t, Start(t, dsn, Options{}))
	})
}

// WantStatus stops the test unless an answer has the status wanted.
func WantStatus(t *testing.T, got, want int, body []byte) {
	t.Helper()
	if got != want {
		t.Fatalf("status = %d, want %d; body: %s", got, want, body)
	}
}
