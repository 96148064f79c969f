package sqlstore_test

import (
	"context"
	"database/sql"
	"slices"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// hookStore is a store with the account alice, a hook of hers hearing
// every event and one hearing widget's publishes, and a Service over it
// whose log is signed, so deliveries can be claimed once sequenced.
func hookStore(t *testing.T, dsn string, opts sqlstore.Options) (*sqlstore.Store, *registry.Service, *registry.Account, *registry.Hook, *registry.Hook) {
	t.Helper()
	ctx := context.Background()
	s := open(t, dsn, opts)
	svc := registry.NewService(s, registry.Options{})
	if err := svc.InitLog(ctx, "hooks/log", ""); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	alice := &registry.Account{Email: "alice@example.com", Username: "alice", CreatedAt: now}
	if err := s.CreateAccount(ctx, alice); err != nil {
		t.Fatal(err)
	}
	all := &registry.Hook{OwnerID: alice.ID, Owner: "alice", URL: "https://hooks.example.com/all", Secret: "store-secret-0123456789",
		Events: registry.HookEvents, CreatedBy: alice.ID, CreatedAt: now}
	widget := &registry.Hook{OwnerID: alice.ID, Owner: "alice", Package: "widget", URL: "https://hooks.example.com/widget", Secret: "store-secret-0123456789",
		Events: []string{"publish"}, CreatedBy: alice.ID, CreatedAt: now}
	for _, h := range []*registry.Hook{all, widget} {
		if err := registry.StoreHook(ctx, s, h); err != nil {
			t.Fatal(err)
		}
	}
	return s, svc, alice, all, widget
}

func publishIn(t *testing.T, s *sqlstore.Store, alice *registry.Account, pack, version, content string, at time.Time) error {
	t.Helper()
	in := registry.PublishInput{OwnerID: alice.ID, OwnerSlug: "alice", PackSlug: pack, Name: pack, Version: version,
		Content: []byte(content), SHA256: sha([]byte(content)), Now: at, PublisherID: alice.ID}
	_, _, err := registry.PublishVersion(context.Background(), s, in)
	return err
}

func queued(t *testing.T, s *sqlstore.Store, h *registry.Hook) []registry.HookDelivery {
	t.Helper()
	d, err := s.ListHookDeliveries(context.Background(), h.ID, 50)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Deliveries are queued in the transaction of their event: one for each
// hook that hears it, none for a change that did not happen (an identical
// publish, a refused one), a deprecation with its pack-state entry; a claim
// takes only deliveries whose entry the tree holds, and leases them.
func TestHookQueueFollowsItsEvents(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, svc, alice, all, widget := hookStore(t, b.dsn(t), sqlstore.Options{})
			at := time.Now().UTC().Truncate(time.Second)
			if err := publishIn(t, s, alice, "widget", "1.0.0", "# widget\n", at); err != nil {
				t.Fatal(err)
			}
			if err := publishIn(t, s, alice, "gadget", "1.0.0", "# gadget\n", at); err != nil {
				t.Fatal(err)
			}
			// The same version again changes nothing; another content is refused.
			if err := publishIn(t, s, alice, "widget", "1.0.0", "# widget\n", at); err != nil {
				t.Fatal(err)
			}
			if err := publishIn(t, s, alice, "widget", "1.0.0", "# other\n", at); !registry.IsCode(err, registry.Conflict) {
				t.Fatalf("a conflicting publish: %v", err)
			}
			p, err := s.PackageBySlug(ctx, "alice", "widget")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := registry.SetDeprecated(ctx, s, p, "use gadget", at); err != nil {
				t.Fatal(err)
			}
			if _, err := registry.SetDeprecated(ctx, s, &registry.Package{ID: p.ID + 1000, OwnerSlug: "alice", PackSlug: "gone"}, "gone", at); !registry.IsCode(err, registry.NotFound) {
				t.Fatalf("deprecating no package: %v", err)
			}
			got := queued(t, s, all)
			if len(got) != 3 || got[0].Event != "deprecate" || got[0].Kind != "pack-state" || got[0].LogIndex == nil || got[0].Message != "use gadget" ||
				got[1].Package != "gadget" || got[2].Package != "widget" || got[2].Kind != "publish" || got[2].LogIndex == nil || *got[2].LogIndex != 0 {
				t.Fatalf("the hook of every event queued %+v", got)
			}
			if !got[2].CreatedAt.Equal(at) || !got[2].NextAttemptAt.Equal(at) || !got[2].GiveUpAt.Equal(at.Add(registry.HookRetryFor)) {
				t.Errorf("queued at %v, next %v, giving up %v; want %v and a day later", got[2].CreatedAt, got[2].NextAttemptAt, got[2].GiveUpAt, at)
			}
			if w := queued(t, s, widget); len(w) != 1 || w[0].Package != "widget" || w[0].Event != "publish" {
				t.Fatalf("the widget hook queued %+v", w)
			}

			// Before the log is sequenced, nothing can be sent.
			claims, err := s.ClaimHookDeliveries(ctx, at, at.Add(time.Minute), 10, 10)
			if err != nil || len(claims) != 0 {
				t.Fatalf("claims before sequencing: %+v, %v", claims, err)
			}
			if _, err := svc.SequenceLog(ctx); err != nil {
				t.Fatal(err)
			}
			claims, err = s.ClaimHookDeliveries(ctx, at, at.Add(time.Minute), 10, 10)
			if err != nil || len(claims) != 4 || claims[0].Hook.Secret == "" {
				t.Fatalf("claims after sequencing: %+v, %v", claims, err)
			}
			// Leased: nobody takes them again until the lease ends.
			if again, err := s.ClaimHookDeliveries(ctx, at.Add(59*time.Second), at.Add(2*time.Minute), 10, 10); err != nil || len(again) != 0 {
				t.Fatalf("claims during the lease: %+v, %v", again, err)
			}
			if again, err := s.ClaimHookDeliveries(ctx, at.Add(time.Minute), at.Add(2*time.Minute), 10, 10); err != nil || len(again) != 4 {
				t.Fatalf("claims after the lease: %d, %v; want all 4 again", len(again), err)
			}
		})
	}
}

// A hook keeps its newest finished deliveries only; pending ones stay
// whatever their number.
func TestHookDeliveriesArePruned(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, _, alice, all, _ := hookStore(t, b.dsn(t), sqlstore.Options{})
			at := time.Now().UTC().Truncate(time.Second)
			p := func(v string) {
				if err := publishIn(t, s, alice, "widget", v, "# widget "+v+"\n", at); err != nil {
					t.Fatal(err)
				}
			}
			for _, v := range []string{"1.0.0", "1.0.1", "1.0.2", "1.0.3", "1.0.4"} {
				p(v)
			}
			list := queued(t, s, all)
			for _, d := range list[1:] { // all but the newest
				if err := s.FinishHookDelivery(ctx, registry.HookAttempt{DeliveryID: d.ID, HookID: all.ID, At: at, Status: 200,
					State: registry.DeliveryDelivered, NextAttemptAt: at}, 2); err != nil {
					t.Fatal(err)
				}
			}
			got := queued(t, s, all)
			if len(got) != 2 || got[0].ID != list[0].ID || got[0].State != "pending" || got[1].ID != list[1].ID || got[1].State != "delivered" {
				t.Fatalf("after pruning to 2: %+v", got)
			}
		})
	}
}

// On PostgreSQL a claim skips the deliveries another transaction holds
// locked (a replica claiming at the same moment) instead of waiting for
// them: FOR UPDATE SKIP LOCKED.
func TestHookClaimSkipsLockedDeliveries(t *testing.T) {
	dsn := storetest.PostgresURL(t)
	ctx := context.Background()
	s, svc, alice, all, _ := hookStore(t, dsn, sqlstore.Options{StatementTimeout: 3 * time.Second})
	at := time.Now().UTC().Truncate(time.Second)
	for _, v := range []string{"1.0.0", "1.0.1"} {
		if err := publishIn(t, s, alice, "widget", v, "# widget "+v+"\n", at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.SequenceLog(ctx); err != nil {
		t.Fatal(err)
	}
	list := queued(t, s, all)
	tx := otherSession(t, dsn)
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM hook_deliveries WHERE id = $1 FOR UPDATE`, list[0].ID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	claims, err := s.ClaimHookDeliveries(ctx, at, at.Add(time.Minute), 10, 10)
	if err != nil || len(claims) != 3 {
		t.Fatalf("a claim beside a locked delivery: %+v, %v (after %s); want the 3 others at once", claims, err, time.Since(start))
	}
	for _, c := range claims {
		if c.Delivery.ID == list[0].ID {
			t.Errorf("delivery %d, locked by another transaction, was claimed", c.Delivery.ID)
		}
	}
}

// otherSession begins a transaction in a session of its own on the
// PostgreSQL database at dsn, rolled back when the test ends (if not
// before), for a test that holds a lock beside the store's.
func otherSession(t *testing.T, dsn string) *sql.Tx {
	t.Helper()
	other, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	tx, err := other.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx
}

// A claim goes round the users who made the hooks, and never holds more
// than perUser deliveries of one user's hooks in flight: alice's 6 due
// deliveries are older than bob's one, yet a claim of 3 takes alice's
// two oldest and bob's; further claims take none of hers
// until one of her attempts is recorded, however many workers are free.
func TestHookClaimsGoRoundTheUsers(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			s, svc, alice, all, widget := hookStore(t, b.dsn(t), sqlstore.Options{})
			at := time.Now().UTC().Truncate(time.Second)
			for _, v := range []string{"1.0.0", "1.0.1", "1.0.2"} {
				if err := publishIn(t, s, alice, "widget", v, "# widget "+v+"\n", at); err != nil {
					t.Fatal(err)
				}
			}
			bob := &registry.Account{Email: "bob@example.com", Username: "bob", CreatedAt: at}
			if err := s.CreateAccount(ctx, bob); err != nil {
				t.Fatal(err)
			}
			bobsHook := &registry.Hook{OwnerID: bob.ID, Owner: "bob", URL: "https://hooks.example.com/bob", Secret: "store-secret-0123456789",
				Events: []string{"publish"}, CreatedBy: bob.ID, CreatedAt: at}
			if err := registry.StoreHook(ctx, s, bobsHook); err != nil {
				t.Fatal(err)
			}
			in := registry.PublishInput{OwnerID: bob.ID, OwnerSlug: "bob", PackSlug: "gadget", Name: "gadget", Version: "1.0.0",
				Content: []byte("# gadget\n"), SHA256: sha([]byte("# gadget\n")), Now: at.Add(time.Second), PublisherID: bob.ID}
			if _, _, err := registry.PublishVersion(ctx, s, in); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.SequenceLog(ctx); err != nil {
				t.Fatal(err)
			}
			now := at.Add(time.Second)
			claims, err := s.ClaimHookDeliveries(ctx, now, now.Add(time.Minute), 3, 2)
			if err != nil || len(claims) != 3 {
				t.Fatalf("the first claim: %d, %v; want 3", len(claims), err)
			}
			// Alice's all and widget hooks queued 2 deliveries a publish:
			// her oldest are the first publish's.
			var alices []int64
			bobs := 0
			for _, c := range claims {
				switch c.Hook.CreatedBy {
				case alice.ID:
					alices = append(alices, c.Delivery.ID)
				case bob.ID:
					bobs++
				}
			}
			slices.Sort(alices)
			var oldest []int64
			for _, h := range []*registry.Hook{all, widget} {
				for _, d := range queued(t, s, h) {
					oldest = append(oldest, d.ID)
				}
			}
			slices.Sort(oldest)
			if bobs != 1 || !slices.Equal(alices, oldest[:2]) {
				t.Fatalf("the first claim took alice's %v and %d of bob's; want alice's oldest two, %v, and bob's one", alices, bobs, oldest[:2])
			}
			if again, err := s.ClaimHookDeliveries(ctx, now, now.Add(time.Minute), 10, 2); err != nil || len(again) != 0 {
				t.Fatalf("a claim with alice's share in flight took %d, %v; want none", len(again), err)
			}
			c := claims[slices.IndexFunc(claims, func(c registry.HookClaim) bool { return c.Hook.CreatedBy == alice.ID })]
			if err := s.FinishHookDelivery(ctx, registry.HookAttempt{DeliveryID: c.Delivery.ID, HookID: c.Hook.ID, At: now, Status: 200,
				State: registry.DeliveryDelivered, NextAttemptAt: now}, 50); err != nil {
				t.Fatal(err)
			}
			again, err := s.ClaimHookDeliveries(ctx, now, now.Add(time.Minute), 10, 2)
			if err != nil || len(again) != 1 || again[0].Hook.CreatedBy != alice.ID {
				t.Fatalf("once one of alice's was recorded, a claim took %d, %v; want one of hers", len(again), err)
			}
			// A lease that ends frees its share, as a worker that died:
			// alice's 2 and bob's 1 are taken again.
			later := now.Add(time.Minute)
			if again, err := s.ClaimHookDeliveries(ctx, later, later.Add(time.Minute), 10, 2); err != nil || len(again) != 3 {
				t.Fatalf("after the leases ended a claim took %d, %v; want alice's share, 2, and bob's 1", len(again), err)
			}
		})
	}
}

// Replicas on one PostgreSQL database claiming at the same moment keep a
// user's share together: two stores, eight claims each at once, never hold
// more than perUser of alice's deliveries in flight, nor one delivery
// twice.
func TestHookClaimsKeepTheShareAcrossReplicas(t *testing.T) {
	dsn := storetest.PostgresURL(t)
	ctx := context.Background()
	s, svc, alice, _, _ := hookStore(t, dsn, sqlstore.Options{})
	other := open(t, dsn, sqlstore.Options{})
	at := time.Now().UTC().Truncate(time.Second)
	for _, v := range []string{"1.0.0", "1.0.1", "1.0.2", "1.0.3", "1.0.4"} {
		if err := publishIn(t, s, alice, "widget", v, "# widget "+v+"\n", at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.SequenceLog(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 16 {
		replica := s
		if i%2 == 1 {
			replica = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			claims, err := replica.ClaimHookDeliveries(ctx, at, at.Add(time.Minute), 1+i%3, 2)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, c := range claims {
				seen[c.Delivery.ID]++
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(seen) != 2 {
		t.Errorf("alice's deliveries claimed by the replicas together: %v; want her share, 2", seen)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("delivery %d was claimed %d times", id, n)
		}
	}
}
