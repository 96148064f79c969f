package sqlstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// doc is a publish of owner's pack at version with a content that says
// which edition it is.
func doc(owner *registry.Account, pack, version, edition string) registry.PublishInput {
	content := "# " + pack + " " + version + "\n\n" + edition + "\n"
	sum := sha256.Sum256([]byte(content))
	return registry.PublishInput{
		OwnerID: owner.ID, OwnerSlug: owner.Username, PackSlug: pack, Name: pack, Version: version,
		Content: []byte(content), SHA256: hex.EncodeToString(sum[:]), Now: time.Now(),
	}
}

func account(t *testing.T, s *sqlstore.Store, name string) *registry.Account {
	t.Helper()
	a := &registry.Account{Username: name, Email: name + "@example.com", CreatedAt: time.Now()}
	if err := s.CreateAccount(context.Background(), a); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// What a Publish acknowledged is what every later read returns, however
// many reads run beside it (on SQLite they are served from memory).
func TestReadsAfterAPublishSeeIt(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{})
			ctx := context.Background()
			alice := account(t, s, "alice")

			// Readers keep the latest document and the first page hot while
			// the writer publishes, so reads race with every publish.
			stop := make(chan struct{})
			var readers sync.WaitGroup
			var failed atomic.Value
			for range 4 {
				readers.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := s.VersionDocument(ctx, "Alice", "foo", ""); err != nil && !registry.IsCode(err, registry.NotFound) {
							failed.Store(err)
						}
						if _, err := s.ListPackages(ctx, registry.PackageFilter{Limit: 2}); err != nil {
							failed.Store(err)
						}
					}
				})
			}
			for i := range 30 {
				version := fmt.Sprintf("1.0.%d", i)
				in := doc(alice, "foo", version, "edition "+version)
				if _, created, err := registry.PublishVersion(ctx, s, in); err != nil || !created {
					t.Fatalf("Publish %s: created %v, %v", version, created, err)
				}
				latest, err := s.VersionDocument(ctx, "alice", "foo", "")
				if err != nil || latest.Version != version || string(latest.Content) != string(in.Content) {
					t.Fatalf("after publishing %s the latest document is %+v, %v", version, latest, err)
				}
				page, err := s.ListPackages(ctx, registry.PackageFilter{Limit: 2})
				if err != nil || len(page) != 1 || page[0].Version != version || page[0].SHA256 != in.SHA256 {
					t.Fatalf("after publishing %s the first page is %+v, %v", version, page, err)
				}
			}
			close(stop)
			readers.Wait()
			if err, _ := failed.Load().(error); err != nil {
				t.Fatalf("a concurrent read failed: %v", err)
			}
		})
	}
}

// Reading a document must not hand out memory the next reader sees
// changed, and the document read before a key's deletion loses its link to
// the key afterwards, as the database says.
func TestDocumentsReadTwiceAreTheSame(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{})
			ctx := context.Background()
			alice := account(t, s, "alice")
			key := &registry.SSHKey{AccountID: alice.ID, Name: "laptop", Type: "ssh-ed25519", Fingerprint: "SHA256:laptop",
				PublicKey: "ssh-ed25519 AAAA", CreatedAt: time.Now()}
			if err := registry.CreateSSHKey(ctx, s, key, alice.Username); err != nil {
				t.Fatal(err)
			}
			in := doc(alice, "foo", "1.0.0", "signed")
			in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: 1, Nonce: "nonce-0000000001", Signature: "sig"}
			if _, _, err := registry.PublishVersion(ctx, s, in); err != nil {
				t.Fatal(err)
			}

			first, err := s.VersionDocument(ctx, "alice", "foo", "1.0.0")
			if err != nil {
				t.Fatal(err)
			}
			first.Version, first.Provenance.Nonce = "changed by a caller", "changed"
			second, err := s.VersionDocument(ctx, "alice", "foo", "1.0.0")
			if err != nil || second.Version != "1.0.0" || second.Provenance.KeyID != key.ID || second.Provenance.Nonce != "nonce-0000000001" {
				t.Fatalf("second read = %+v (provenance %+v), %v; want the stored version", second, second.Provenance, err)
			}

			if err := registry.RemoveSSHKey(ctx, s, alice.ID, key.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
			after, err := s.VersionDocument(ctx, "alice", "foo", "1.0.0")
			if err != nil || after.Provenance == nil || after.Provenance.KeyID != 0 || after.Provenance.Fingerprint != key.Fingerprint {
				t.Fatalf("after deleting the key: provenance %+v, %v; want the fingerprint kept and no key id", after.Provenance, err)
			}
		})
	}
}

// Concurrent publishes each get their own answer: on SQLite they share
// transactions, and one that is refused must not take the others down.
func TestConcurrentPublishesAnswerEachOnItsOwn(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			s := open(t, dsn, sqlstore.Options{})
			ctx := context.Background()
			alice := account(t, s, "alice")
			key := &registry.SSHKey{AccountID: alice.ID, Name: "laptop", Type: "ssh-ed25519", Fingerprint: "SHA256:laptop",
				PublicKey: "ssh-ed25519 AAAA", CreatedAt: time.Now()}
			if err := registry.CreateSSHKey(ctx, s, key, alice.Username); err != nil {
				t.Fatal(err)
			}
			if _, _, err := registry.PublishVersion(ctx, s, doc(alice, "taken", "1.0.0", "first")); err != nil {
				t.Fatal(err)
			}

			const n = 48
			type outcome struct {
				created bool
				err     error
			}
			outcomes := make([]outcome, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					var in registry.PublishInput
					switch i % 3 {
					case 0: // a new version of its own package
						in = doc(alice, fmt.Sprintf("pack-%d", i), "1.0.0", "fresh")
					case 1: // a version that exists with other content
						in = doc(alice, "taken", "1.0.0", fmt.Sprintf("other %d", i))
					case 2: // signed, all with one nonce: only one may spend it
						in = doc(alice, fmt.Sprintf("signed-%d", i), "1.0.0", "signed")
						in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: 1,
							Nonce: "the-one-nonce-0001", Signature: "sig"}
					}
					_, created, err := registry.PublishVersion(ctx, s, in)
					outcomes[i] = outcome{created, err}
				})
			}
			wg.Wait()

			spent := 0
			for i, o := range outcomes {
				switch i % 3 {
				case 0:
					if o.err != nil || !o.created {
						t.Errorf("publish %d of a new package: created %v, %v", i, o.created, o.err)
					}
				case 1:
					if !registry.IsCode(o.err, registry.Conflict) {
						t.Errorf("publish %d over an existing version: %v, want a conflict", i, o.err)
					}
				case 2:
					switch {
					case o.err == nil && o.created:
						spent++
					case !errors.Is(o.err, registry.ErrNonceReused):
						t.Errorf("publish %d with a spent nonce: created %v, %v; want ErrNonceReused", i, o.created, o.err)
					}
				}
			}
			if spent != 1 {
				t.Errorf("%d publishes spent the one nonce, want 1", spent)
			}

			// What was acknowledged survives a restart; what was refused
			// left nothing behind.
			s.Close()
			again := open(t, dsn, sqlstore.Options{})
			for i, o := range outcomes {
				pack := fmt.Sprintf("pack-%d", i)
				if i%3 == 2 {
					pack = fmt.Sprintf("signed-%d", i)
				}
				_, err := again.VersionDocument(ctx, "alice", pack, "1.0.0")
				switch {
				case i%3 == 1:
				case o.created && err != nil:
					t.Errorf("acknowledged %s is gone after reopening: %v", pack, err)
				case !o.created && !registry.IsCode(err, registry.NotFound):
					t.Errorf("refused %s exists after reopening: %v", pack, err)
				}
			}
			taken, err := again.VersionDocument(ctx, "alice", "taken", "1.0.0")
			if err != nil || string(taken.Content) != string(doc(alice, "taken", "1.0.0", "first").Content) {
				t.Errorf("taken@1.0.0 after the conflicts = %+v, %v; want the first content", taken, err)
			}
		})
	}
}

// A publish after Close fails at once instead of waiting forever.
func TestPublishAfterCloseFails(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{})
			alice := account(t, s, "alice")
			s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, _, err := registry.PublishVersion(ctx, s, doc(alice, "foo", "1.0.0", "late")); err == nil {
				t.Fatal("Publish on a closed store succeeded")
			}
			if ctx.Err() != nil {
				t.Fatal("Publish on a closed store waited for its deadline")
			}
		})
	}
}

// Seed fills a fresh database that then reads and publishes like any other;
// a batch naming an existing package is refused whole.
func TestSeed(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := open(t, b.dsn(t), sqlstore.Options{})
			ctx := context.Background()
			alice := account(t, s, "alice")
			var batch []registry.PublishInput
			for i := range 50 {
				batch = append(batch, doc(alice, fmt.Sprintf("pack-%02d", i), "1.0.0", "seeded"))
			}
			if err := s.Seed(ctx, registry.ReadyAll(batch)); err != nil {
				t.Fatalf("Seed: %v", err)
			}
			page, err := s.ListPackages(ctx, registry.PackageFilter{Limit: 100})
			if err != nil || len(page) != 50 || page[0].PackSlug != "pack-49" || page[49].PackSlug != "pack-00" {
				t.Fatalf("after seeding, the list holds %d packages (%v), want 50, newest first", len(page), err)
			}
			got, err := s.VersionDocument(ctx, "alice", "pack-07", "")
			if err != nil || string(got.Content) != string(batch[7].Content) || got.SHA256 != batch[7].SHA256 {
				t.Fatalf("seeded document = %+v, %v", got, err)
			}
			if _, created, err := registry.PublishVersion(ctx, s, doc(alice, "pack-07", "1.1.0", "later")); err != nil || !created {
				t.Fatalf("publishing over a seeded package: created %v, %v", created, err)
			}
			if latest, err := s.VersionDocument(ctx, "alice", "pack-07", ""); err != nil || latest.Version != "1.1.0" {
				t.Fatalf("latest after publishing over a seeded package = %+v, %v", latest, err)
			}

			again := []registry.PublishInput{doc(alice, "new-one", "1.0.0", "x"), doc(alice, "pack-01", "1.0.0", "x")}
			if err := s.Seed(ctx, registry.ReadyAll(again)); err == nil {
				t.Fatal("seeding an existing package succeeded")
			}
			if _, err := s.VersionDocument(ctx, "alice", "new-one", ""); !registry.IsCode(err, registry.NotFound) {
				t.Fatalf("a refused seed batch left new-one behind: %v", err)
			}
		})
	}
}
