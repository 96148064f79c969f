package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

func (su suite) testNonces(t *testing.T) {
	t.Run("a nonce is spent once per key", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		laptop, desktop := createKey(t, s, alice, "laptop", t0), createKey(t, s, alice, "desktop", t0)
		steps := []struct {
			name    string
			key     *registry.SSHKey
			nonce   string
			version string
			reused  bool
		}{
			{"first use", laptop, "nonce-aaaaaaaaaaaa", "1.0.0", false},
			{"same nonce, same key", laptop, "nonce-aaaaaaaaaaaa", "1.1.0", true},
			{"same nonce, other key", desktop, "nonce-aaaaaaaaaaaa", "1.2.0", false},
			{"new nonce, first key", laptop, "nonce-bbbbbbbbbbbb", "1.3.0", false},
			{"same nonce, other key again", desktop, "nonce-aaaaaaaaaaaa", "1.4.0", true},
		}
		for i, step := range steps {
			in := signed(input(alice, "foo", step.version, step.name, at(i)), step.key, step.nonce)
			_, created, err := registry.PublishVersion(ctx(), s, in)
			if step.reused {
				if !errors.Is(err, registry.ErrNonceReused) {
					t.Fatalf("%s: Publish error %v, want ErrNonceReused", step.name, err)
				}
				if _, err := s.VersionDocument(ctx(), "alice", "foo", step.version); !registry.IsCode(err, registry.NotFound) {
					t.Errorf("%s: version %s was stored (VersionDocument error %v)", step.name, step.version, err)
				}
				continue
			}
			if err != nil || !created {
				t.Fatalf("%s: Publish = created %v, error %v", step.name, created, err)
			}
		}
	})

	t.Run("a refused publish does not spend its nonce", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		publish(t, s, input(alice, "foo", "1.0.0", "original", t0))

		_, _, err := registry.PublishVersion(ctx(), s, signed(input(alice, "foo", "1.0.0", "changed", at(1)), key, "nonce-cccccccccccc"))
		wantCode(t, "conflicting signed publish", err, registry.Conflict)
		_, created, err := registry.PublishVersion(ctx(), s, signed(input(alice, "foo", "1.1.0", "next", at(2)), key, "nonce-cccccccccccc"))
		if err != nil || !created {
			t.Fatalf("publish with the nonce of a refused publish = created %v, error %v", created, err)
		}
	})

	t.Run("an accepted identical publish spends its nonce", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		publish(t, s, input(alice, "foo", "1.0.0", "original", t0))

		_, created, err := registry.PublishVersion(ctx(), s, signed(input(alice, "foo", "1.0.0", "original", at(1)), key, "nonce-dddddddddddd"))
		if err != nil || created {
			t.Fatalf("signed publish of identical content = created %v, error %v; want no change, no error", created, err)
		}
		_, _, err = registry.PublishVersion(ctx(), s, signed(input(alice, "foo", "1.1.0", "next", at(2)), key, "nonce-dddddddddddd"))
		if !errors.Is(err, registry.ErrNonceReused) {
			t.Fatalf("second use of the nonce: %v, want ErrNonceReused", err)
		}
	})

	t.Run("pruning forgets nonces spent before a time", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", t0)
		nonces := []struct {
			nonce  string
			minute int
		}{{"nonce-old-000000001", 0}, {"nonce-old-000000002", 4}, {"nonce-new-000000003", 5}, {"nonce-new-000000004", 20}}
		for i, n := range nonces {
			publish(t, s, signed(input(alice, "foo", fmt.Sprintf("1.%d.0", i), n.nonce, at(n.minute)), key, n.nonce))
		}
		pruned, err := s.PruneNonces(ctx(), at(5).In(cet))
		if err != nil {
			t.Fatalf("PruneNonces: %v", err)
		}
		if pruned != 2 {
			t.Errorf("PruneNonces pruned %d nonces, want 2", pruned)
		}
		for i, n := range nonces {
			_, _, err := registry.PublishVersion(ctx(), s, signed(input(alice, "foo", fmt.Sprintf("2.%d.0", i), "again", at(30)), key, n.nonce))
			if spentAt := n.minute; spentAt < 5 && err != nil {
				t.Errorf("nonce spent at minute %d was pruned, yet using it again fails: %v", spentAt, err)
			} else if spentAt >= 5 && !errors.Is(err, registry.ErrNonceReused) {
				t.Errorf("nonce spent at minute %d was kept, yet using it again gives %v", spentAt, err)
			}
		}
		if pruned, err := s.PruneNonces(ctx(), t0); err != nil || pruned != 0 {
			t.Errorf("PruneNonces with nothing to prune = %d, %v", pruned, err)
		}
	})
}

// testNoncesByFingerprint: a spent nonce belongs to the key's fingerprint,
// not to its row or account. Deleting the key and registering the same
// public key again, in another account, must not make the nonce new.
func (su suite) testNoncesByFingerprint(t *testing.T) {
	// replayKey deletes alice's key and registers the same public key to
	// mallory at registered.
	replayKey := func(t *testing.T, s registry.Store, alice, mallory *registry.Account, key *registry.SSHKey, registered time.Time) *registry.SSHKey {
		t.Helper()
		if err := registry.RemoveSSHKey(ctx(), s, alice.ID, key.ID, at(9)); err != nil {
			t.Fatalf("DeleteSSHKey: %v", err)
		}
		again := &registry.SSHKey{AccountID: mallory.ID, Name: "alice's", Type: key.Type, Fingerprint: key.Fingerprint,
			PublicKey: key.PublicKey, CreatedAt: registered}
		if err := registry.CreateSSHKey(ctx(), s, again, mallory.Username); err != nil {
			t.Fatalf("CreateSSHKey with the fingerprint of a deleted key: %v", err)
		}
		if again.ID == key.ID {
			t.Fatalf("the key registered again has the deleted key's id %d", key.ID)
		}
		return again
	}
	// replay is alice's signed publish of foo, replayed into mallory's
	// account with mallory's key row at now.
	replay := func(alice registry.PublishInput, mallory *registry.Account, key *registry.SSHKey, now time.Time) registry.PublishInput {
		in := alice
		in.OwnerID, in.OwnerSlug, in.Now = mallory.ID, mallory.Username, now
		p := *alice.Provenance
		p.KeyID = key.ID
		in.Provenance = &p
		return in
	}
	wantNothingFor := func(t *testing.T, s registry.Store, owner string) {
		t.Helper()
		if _, err := s.PackageBySlug(ctx(), owner, "foo"); !registry.IsCode(err, registry.NotFound) {
			t.Errorf("%s/foo exists after a refused replay (PackageBySlug error %v)", owner, err)
		}
	}

	t.Run("a nonce outlives its key and is refused to the key registered again elsewhere", func(t *testing.T) {
		s := su.store(t)
		alice, mallory := createAccount(t, s, "alice"), createAccount(t, s, "mallory")
		key := createKey(t, s, alice, "laptop", t0)
		original := signed(input(alice, "foo", "1.0.0", "alice's", t0), key, "nonce-replayed-0001")
		publish(t, s, original)
		again := replayKey(t, s, alice, mallory, key, at(1))

		_, _, err := registry.PublishVersion(ctx(), s, replay(original, mallory, again, at(2)))
		if !errors.Is(err, registry.ErrNonceReused) {
			t.Fatalf("alice's signed publish replayed into mallory's account: %v, want ErrNonceReused", err)
		}
		wantNothingFor(t, s, "mallory")
		// The same key may still sign new publishes with new nonces.
		fresh := signed(input(mallory, "bar", "1.0.0", "mallory's own", at(3)), again, "nonce-fresh-000001")
		publish(t, s, fresh)
	})

	t.Run("a nonce of a deleted key is pruned only after the window", func(t *testing.T) {
		s := su.store(t)
		alice, mallory := createAccount(t, s, "alice"), createAccount(t, s, "mallory")
		key := createKey(t, s, alice, "laptop", t0)
		original := signed(input(alice, "foo", "1.0.0", "alice's", t0), key, "nonce-replayed-0002")
		publish(t, s, original)
		again := replayKey(t, s, alice, mallory, key, at(1))

		// The service prunes what was spent before now - NonceWindow.
		for _, now := range []time.Time{t0, at(5), t0.Add(registry.NonceWindow)} {
			if n, err := s.PruneNonces(ctx(), now.Add(-registry.NonceWindow)); err != nil || n != 0 {
				t.Fatalf("PruneNonces at %v (spent at %v) = %d, %v; want 0 pruned", now, t0, n, err)
			}
			if _, _, err := registry.PublishVersion(ctx(), s, replay(original, mallory, again, now)); !errors.Is(err, registry.ErrNonceReused) {
				t.Fatalf("replay at %v, within the window: %v, want ErrNonceReused", now, err)
			}
		}
		wantNothingFor(t, s, "mallory")
		after := t0.Add(registry.NonceWindow + time.Second)
		if n, err := s.PruneNonces(ctx(), after.Add(-registry.NonceWindow)); err != nil || n != 1 {
			t.Fatalf("PruneNonces once the window has passed = %d, %v; want 1", n, err)
		}
		// Only now is the nonce forgotten (by then the service refuses its
		// timestamp instead).
		if _, created, err := registry.PublishVersion(ctx(), s, replay(original, mallory, again, after)); err != nil || !created {
			t.Fatalf("publish with the pruned nonce = created %v, %v", created, err)
		}
	})

	t.Run("a signed publish whose key row is gone is refused and spends nothing", func(t *testing.T) {
		s := su.store(t)
		alice, mallory := createAccount(t, s, "alice"), createAccount(t, s, "mallory")
		key := createKey(t, s, alice, "laptop", t0)
		in := signed(input(alice, "foo", "1.0.0", "alice's", t0), key, "nonce-keygone-0001")
		again := replayKey(t, s, alice, mallory, key, at(1))
		// Verified against alice's row, which was deleted before the
		// publish got to the store; the fingerprint now names mallory's.
		_, _, err := registry.PublishVersion(ctx(), s, in)
		wantCode(t, "publish signed by a deleted key row", err, registry.NotFound)
		wantMessage(t, "publish signed by a deleted key row", err, key.Fingerprint)
		wantNothingFor(t, s, "alice")
		// The refused publish did not spend the nonce.
		publish(t, s, signed(input(mallory, "bar", "1.0.0", "mallory's", at(2)), again, "nonce-keygone-0001"))
	})
}

func (su suite) testConcurrentPublish(t *testing.T) {
	t.Run("one new version with two contents from 20 goroutines", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		contents := []registry.PublishInput{
			input(alice, "foo", "1.0.0", "content A", t0),
			input(alice, "foo", "1.0.0", "content B", t0),
		}
		type result struct {
			in      registry.PublishInput
			created bool
			err     error
		}
		results := make([]result, 20)
		var wg sync.WaitGroup
		for i := range results {
			wg.Go(func() {
				in := contents[i%2]
				_, created, err := registry.PublishVersion(ctx(), s, in)
				results[i] = result{in, created, err}
			})
		}
		wg.Wait()

		var winner *registry.PublishInput
		for _, r := range results {
			if r.created {
				if winner != nil {
					t.Fatalf("two publishes created version 1.0.0")
				}
				winner = &r.in
			}
		}
		if winner == nil {
			t.Fatalf("no publish created version 1.0.0; results %+v", results)
		}
		for i, r := range results {
			switch {
			case r.created:
			case r.in.SHA256 == winner.SHA256 && r.err != nil:
				t.Errorf("publish %d of the winning content: %v, want success without change", i, r.err)
			case r.in.SHA256 != winner.SHA256 && !registry.IsCode(r.err, registry.Conflict):
				t.Errorf("publish %d of the losing content: %v, want a conflict", i, r.err)
			}
		}
		doc, err := s.VersionDocument(ctx(), "alice", "foo", "1.0.0")
		if err != nil {
			t.Fatalf("VersionDocument: %v", err)
		}
		if doc.SHA256 != winner.SHA256 || string(doc.Content) != string(winner.Content) {
			t.Errorf("stored %q, but the winner published %q", doc.Content, winner.Content)
		}
	})

	t.Run("many versions of one package at once", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		publish(t, s, input(alice, "foo", "0.0.1", "base", t0))
		var wg sync.WaitGroup
		errs := make([]error, 10)
		for i := range errs {
			wg.Go(func() {
				_, _, errs[i] = registry.PublishVersion(ctx(), s, input(alice, "foo", fmt.Sprintf("1.%d.0", i), "v", at(1)))
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("publish of 1.%d.0: %v", i, err)
			}
		}
		pkg, err := s.PackageBySlug(ctx(), "alice", "foo")
		if err != nil {
			t.Fatalf("PackageBySlug: %v", err)
		}
		versions := listVersions(t, s, pkg.ID)
		if len(versions) != 11 {
			t.Fatalf("%d versions, want 11", len(versions))
		}
		// The latest is the highest version, whatever order the
		// transactions finished in.
		i := slices.IndexFunc(versions, func(v registry.Version) bool { return v.Version == "1.9.0" })
		if i < 0 {
			t.Fatalf("version 1.9.0 is missing")
		}
		if highest := versions[i]; pkg.LatestVersionID != highest.ID || pkg.Version != highest.Version || pkg.SHA256 != highest.SHA256 {
			t.Errorf("package says latest is %s (id %d), the highest version is %s (id %d)", pkg.Version, pkg.LatestVersionID, highest.Version, highest.ID)
		}
	})
}
