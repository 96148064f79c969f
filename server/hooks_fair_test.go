package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/hooktest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/registry"
)

// One user's slow receivers hold her share of the webhook workers, never
// the others': alice has 20 hooks, half of them her organisation's, at a
// receiver that takes a minute to answer, and publishes in both
// namespaces; at most 2 of her deliveries are in flight at once, across
// her namespace and her organisation's, and bob's delivery arrives within
// 5 s of his publish. On PostgreSQL two replicas deliver from the one
// queue, and the share holds across them.
func TestHookDeliveriesAreSharedFairly(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		opts := servertest.Options{Webhooks: true, WebhookAllowPrivate: true, WebhookTimeout: 30 * time.Second}
		a := servertest.Start(t, dsn, opts)
		b := a
		if strings.HasPrefix(dsn, "postgres") {
			b = servertest.Start(t, dsn, opts) // a second replica, delivering too
		}
		alice := a.CreateUser(t, "alice")
		bob := a.CreateUser(t, "bob")
		resp := a.API.PostJSON("/api/orgs", map[string]any{"name": "acme"}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusCreated, resp.Body)

		slow, slowURL := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{Slow: time.Minute})
		for i := range 20 {
			owner := "alice"
			if i%2 == 1 {
				owner = "acme"
			}
			addHook(t, a, alice, map[string]any{"owner": owner, "url": fmt.Sprintf("%s/%d", slowURL, i), "secret": hookSecret, "events": []string{"publish"}})
		}
		fast, fastURL := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{})
		addHook(t, b, bob, map[string]any{"url": fastURL, "secret": hookSecret, "events": []string{"publish"}})

		for _, owner := range []string{"alice", "acme"} {
			resp := a.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0"), "owner": owner}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		// 20 deliveries of alice's are due; her share is taken, and stays
		// 2 over a second of polls (every 20 ms, by each replica).
		deadline := time.Now().Add(10 * time.Second)
		for n, _ := slow.InFlight(); n < registry.DefaultHookDeliveriesPerUser; n, _ = slow.InFlight() {
			if time.Now().After(deadline) {
				t.Fatalf("after 10 s the slow receiver answers %d deliveries", n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)

		start := time.Now()
		resp = b.API.PostJSON("/api/publish", map[string]any{"content": packDoc("gadget", "1.0.0")}, bob.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		got := hooktest.WaitFor(t, 5*time.Second, fast.Deliveries, func(d []hooktest.Delivery) bool { return len(d) == 1 })
		took := time.Since(start)
		if p := got[0].Payload; p.Owner != "bob" || p.Package != "gadget" || got[0].SignatureError != "" {
			t.Errorf("bob's receiver got %+v", got[0])
		}
		now, most := slow.InFlight()
		t.Logf("bob's delivery arrived %s after his publish; alice's slow receiver answers %d, at most %d at once", took, now, most)
		if now != registry.DefaultHookDeliveriesPerUser || most != registry.DefaultHookDeliveriesPerUser {
			t.Errorf("alice's slow receiver answers %d deliveries, at most %d at once; want her share, %d", now, most, registry.DefaultHookDeliveriesPerUser)
		}
	})
}

// A receiver that keeps answering just under the timeout is given half of
// it: its first 3 answers, each taking more than half of the 2 s timeout,
// are delivered; the next attempt has 1 s, fails, says why, and is
// retried; the hook, failing since, is disabled 3 days later like any
// failing hook, instead of holding a worker for the whole timeout of
// each delivery for ever.
func TestHookSlowReceiverGetsAShorterTimeout(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, WebhookAllowPrivate: true, WebhookTimeout: 2 * time.Second})
		alice := env.CreateUser(t, "alice")
		recv, u := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{Slow: 1300 * time.Millisecond})
		h := addHook(t, env, alice, map[string]any{"url": u, "secret": hookSecret, "events": []string{"publish"}})
		for i := range registry.HookSlowStreak {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", fmt.Sprintf("1.0.%d", i))}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			d := waitDeliveries(t, env, alice, h.ID, "delivered", func(d []wire.HookDelivery) bool { return len(d) == i+1 && d[0].State == "delivered" })[0]
			if d.Status != 200 || d.DurationMS < 1000 || d.DurationMS >= 2000 {
				t.Fatalf("slow answer %d: %+v", i+1, d)
			}
		}
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		list := waitDeliveries(t, env, alice, h.ID, "an attempt", func(d []wire.HookDelivery) bool { return len(d) == 4 && d[0].Attempts == 1 })
		d := list[0]
		if d.State != "pending" || d.Status != 0 || d.DurationMS < 1000 || d.DurationMS >= 1300 ||
			!strings.Contains(d.Error, "no answer within 1s (half of --webhook-timeout, as its last 3 answers or more each took 1s or longer)") {
			t.Fatalf("the attempt after 3 slow answers: %+v; want it failed at 1 s, half the timeout", d)
		}
		hook := hookDeliveries(t, env, alice, h.ID).Hook
		if hook.FailingSince == nil || hook.DisabledAt != nil {
			t.Fatalf("after the shortened attempt failed: %+v", hook)
		}
		if n := len(recv.Deliveries()); n != registry.HookSlowStreak {
			t.Errorf("the receiver recorded %d deliveries, want %d", n, registry.HookSlowStreak)
		}
		// Still answering in 1.3 s three days on: disabled.
		env.Clock.Advance(registry.HookDisableAfter)
		waitDeliveries(t, env, alice, h.ID, "failed by the disabling", func(d []wire.HookDelivery) bool { return d[0].State == "failed" })
		hook = hookDeliveries(t, env, alice, h.ID).Hook
		if hook.DisabledAt == nil || !strings.Contains(hook.DisabledNote, "no answer within 1s") {
			t.Fatalf("after 3 days of slow answers: %+v", hook)
		}
	})
}

// A user makes at most 50 hooks, counted across her namespace and every
// organisation's she owns: with 20 in each of two organisations and 10 of
// her own, the 51st is refused, in a third organisation too, with a clear
// error and nothing stored; another user's hooks do not count, and once
// she deletes one she may make one again.
func TestHooksPerUserAreBounded(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{WebhookAllowPrivate: true})
		alice := env.CreateUser(t, "alice")
		bob := env.CreateUser(t, "bob")
		for _, org := range []string{"acme", "beta", "gamma"} {
			resp := env.API.PostJSON("/api/orgs", map[string]any{"name": org}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
		}
		resp := env.API.PutJSON("/api/orgs/gamma/members/bob", map[string]any{"role": "owner"}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		hook := func(owner string, i int) map[string]any {
			return map[string]any{"owner": owner, "url": fmt.Sprintf("https://203.0.113.9/%s/%d", owner, i), "secret": hookSecret, "events": []string{"publish"}}
		}
		var last wire.Hook
		for _, owner := range []string{"acme", "beta", "alice"} {
			n := registry.MaxHooksPerOwner
			if owner == "alice" {
				n = registry.MaxHooksPerUser - 2*registry.MaxHooksPerOwner
			}
			for i := range n {
				last = addHook(t, env, alice, hook(owner, i))
			}
		}
		resp = env.API.PostJSON("/api/hooks", hook("gamma", 0), alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict,
			"you have made 50 hooks, in your namespace and your organisations', the most one user may; remove one first")
		resp = env.API.Get("/api/hooks?owner=gamma", alice.Bearer())
		var list wire.HookList
		resp.Decode(t, &list)
		if len(list.Hooks) != 0 {
			t.Fatalf("gamma's hooks after the refusal: %+v", list.Hooks)
		}
		// bob, another owner of gamma, has his own count.
		addHook(t, env, bob, hook("gamma", 1))
		resp = env.API.Delete(fmt.Sprintf("/api/hooks/%d", last.ID), alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		addHook(t, env, alice, hook("gamma", 0))
	})
}
