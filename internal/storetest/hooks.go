package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

// storeHook is a hook of owner made by maker, hearing publishes.
func storeHook(owner, maker *registry.Account, i int) *registry.Hook {
	return &registry.Hook{OwnerID: owner.ID, Owner: owner.Username, URL: fmt.Sprintf("https://hooks.example.com/%s/%d", owner.Username, i),
		Secret: "store-secret-0123456789", Events: []string{"publish"}, CreatedBy: maker.ID, CreatedAt: t0.In(cet)}
}

func (su suite) testHooks(t *testing.T) {
	t.Run("an owner holds at most MaxHooksPerOwner, even to two creations at once", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		for i := range registry.MaxHooksPerOwner - 1 {
			h := storeHook(alice, alice, i)
			if err := registry.StoreHook(ctx(), s, h); err != nil || h.ID == 0 {
				t.Fatalf("StoreHook %d: %v, id %d", i, err, h.ID)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() { errs[i] = registry.StoreHook(ctx(), s, storeHook(alice, alice, 100+i)) })
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two creations at once with one place left: %v, %v; want one to pass and one Conflict", errs[0], errs[1])
		}
		refused := errs[0]
		if refused == nil {
			refused = errs[1]
		}
		wantCode(t, "the hook beyond the owner's bound", refused, registry.Conflict)
		wantMessage(t, "the hook beyond the owner's bound", refused, fmt.Sprintf("alice has %d hooks already, the most an owner may have", registry.MaxHooksPerOwner))
		if list, err := s.ListHooks(ctx(), alice.ID); err != nil || len(list) != registry.MaxHooksPerOwner {
			t.Fatalf("alice holds %d hooks, %v; want %d", len(list), err, registry.MaxHooksPerOwner)
		}
	})

	t.Run("a user makes at most MaxHooksPerUser, counted in every namespace", func(t *testing.T) {
		s := su.store(t)
		bob, carol, dave := createAccount(t, s, "bob"), createAccount(t, s, "carol"), createAccount(t, s, "dave")
		made := 0
		for _, owner := range []*registry.Account{carol, dave, bob} {
			for i := 0; i < registry.MaxHooksPerOwner && made < registry.MaxHooksPerUser; i++ {
				if err := registry.StoreHook(ctx(), s, storeHook(owner, bob, i)); err != nil {
					t.Fatalf("hook %d of bob's: %v", made+1, err)
				}
				made++
			}
		}
		erin := createAccount(t, s, "erin")
		err := registry.StoreHook(ctx(), s, storeHook(erin, bob, 0))
		wantCode(t, "the hook beyond the maker's bound", err, registry.Conflict)
		wantMessage(t, "the hook beyond the maker's bound", err, fmt.Sprintf("you have made %d hooks", registry.MaxHooksPerUser))
		if list, _ := s.ListHooks(ctx(), erin.ID); len(list) != 0 {
			t.Errorf("the refused hook was stored: %+v", list)
		}
		// Another maker's hooks in erin's namespace do not count bob's.
		if err := registry.StoreHook(ctx(), s, storeHook(erin, erin, 0)); err != nil {
			t.Errorf("erin's own hook: %v", err)
		}
	})

	t.Run("a hook of a missing account is not found", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		nobody := &registry.Account{ID: alice.ID + 1000, Username: "nobody"}
		wantCode(t, "a hook of a missing owner", registry.StoreHook(ctx(), s, storeHook(nobody, alice, 0)), registry.NotFound)
		wantCode(t, "a hook by a missing maker", registry.StoreHook(ctx(), s, storeHook(alice, nobody, 0)), registry.NotFound)
	})
}
