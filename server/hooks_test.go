package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/internal/hooktest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/hooksig"
	"github.com/pact-registry/pact/pkg/wire"
)

const hookSecret = "a-secret-of-32-bytes-for-tests!!"

// hookDeliveries answers GET /api/hooks/{id}/deliveries.
func hookDeliveries(t *testing.T, env *servertest.Env, u *servertest.User, id int64) wire.HookDeliveryList {
	t.Helper()
	resp := env.API.Get(fmt.Sprintf("/api/hooks/%d/deliveries", id), u.Bearer())
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	var out wire.HookDeliveryList
	resp.Decode(t, &out)
	return out
}

// waitDeliveries polls a hook's deliveries until cond holds.
func waitDeliveries(t *testing.T, env *servertest.Env, u *servertest.User, id int64, what string, cond func([]wire.HookDelivery) bool) []wire.HookDelivery {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := hookDeliveries(t, env, u, id).Deliveries
		if cond(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("hook %d's deliveries never came to %s: %+v", id, what, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func addHook(t *testing.T, env *servertest.Env, u *servertest.User, body map[string]any) wire.Hook {
	t.Helper()
	resp := env.API.PostJSON("/api/hooks", body, u.Bearer())
	wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
	var out wire.HookResult
	resp.Decode(t, &out)
	return out.Hook
}

// The routes of hooks: what a hook holds, who manages it (the owner, an
// organisation's owners, a token with the hooks scope and the packs), and
// every bad input refused with a message and nothing stored.
func TestHookRoutes(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		// Hosts are not resolved with private addresses allowed: this
		// test is about the routes, TestHookPrivateAddressesRefused about
		// addresses.
		o := startOrgWith(t, dsn, servertest.Options{WebhookAllowPrivate: true})
		env := o.Env
		h := addHook(t, env, o.alice, map[string]any{"url": "http://127.0.0.1:9/hook", "secret": hookSecret, "events": []string{"yank", "publish", "publish"}})
		if h.Owner != "alice" || h.Package != "" || h.URL != "http://127.0.0.1:9/hook" || strings.Join(h.Events, ",") != "publish,yank" || h.DisabledAt != nil {
			t.Fatalf("hook = %+v", h)
		}
		org := addHook(t, env, o.alice, map[string]any{"owner": "acme", "package": "widget", "url": "https://hooks.example.com/x", "secret": hookSecret,
			"events": []string{"publish"}})
		if org.Owner != "acme" || org.Package != "widget" {
			t.Fatalf("org hook = %+v", org)
		}
		resp := env.API.Get("/api/hooks", o.alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if bytes.Contains(resp.Body, []byte(hookSecret)) {
			t.Fatalf("GET /api/hooks shows the secret: %s", resp.Body)
		}
		var list wire.HookList
		resp.Decode(t, &list)
		if len(list.Hooks) != 1 || list.Hooks[0].ID != h.ID {
			t.Fatalf("alice's hooks = %+v", list.Hooks)
		}
		resp = env.API.Get("/api/hooks?owner=acme", o.alice.Bearer())
		resp.Decode(t, &list)
		if len(list.Hooks) != 1 || list.Hooks[0].ID != org.ID {
			t.Fatalf("acme's hooks = %+v", list.Hooks)
		}

		// A maintainer and a stranger manage none of acme's or alice's hooks.
		wantError(t, env.API.Get("/api/hooks?owner=acme", o.bob.Bearer()).Status, env.API.Get("/api/hooks?owner=acme", o.bob.Bearer()).JSON(t), 403, "only owners of the organisation acme")
		resp = env.API.PostJSON("/api/hooks", map[string]any{"owner": "acme", "url": "https://x.example.com/", "secret": hookSecret, "events": []string{"publish"}}, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "only owners of the organisation acme")
		for _, u := range []*servertest.User{o.bob, o.mallory} {
			resp = env.API.Delete(fmt.Sprintf("/api/hooks/%d", org.ID), u.Bearer())
			wantError(t, resp.Status, resp.JSON(t), 404, fmt.Sprintf("no hook %d that you manage", org.ID))
			resp = env.API.Get(fmt.Sprintf("/api/hooks/%d/deliveries", h.ID), u.Bearer())
			wantError(t, resp.Status, resp.JSON(t), 404, "that you manage")
		}

		// The hooks scope, and a token's packs.
		token := func(scopes, packages []string) *servertest.User {
			body := map[string]any{"name": "t", "scopes": scopes}
			if packages != nil {
				body["packages"] = packages
			}
			resp := env.API.PostJSON("/api/tokens", body, o.alice.Bearer())
			wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
			return &servertest.User{Token: resp.JSON(t)["token"].(string)}
		}
		noHooks := token([]string{"publish"}, nil)
		resp = env.API.Get("/api/hooks", noHooks.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, `lacks the "hooks" scope`)
		widgetOnly := token([]string{"hooks", "publish"}, []string{"acme/widget"})
		resp = env.API.PostJSON("/api/hooks", map[string]any{"owner": "acme", "url": "https://x.example.com/", "secret": hookSecret, "events": []string{"publish"}}, widgetOnly.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, "cannot manage webhooks of every pack of acme")
		resp = env.API.PostJSON("/api/hooks", map[string]any{"owner": "acme", "package": "gadget", "url": "https://x.example.com/", "secret": hookSecret, "events": []string{"publish"}}, widgetOnly.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 403, `"acme/gadget" is not one of them`)
		addHook(t, env, widgetOnly, map[string]any{"owner": "acme", "package": "widget", "url": "https://x.example.com/", "secret": hookSecret, "events": []string{"yank"}})
		resp = env.API.Delete(fmt.Sprintf("/api/hooks/%d", h.ID), widgetOnly.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 404, "cannot manage webhooks of every pack of alice")

		for _, c := range []struct {
			name string
			body map[string]any
			msg  string
		}{
			{"ftp", map[string]any{"url": "ftp://x.example.com/", "secret": hookSecret, "events": []string{"publish"}}, "http:// or https:// URL"},
			{"no host", map[string]any{"url": "https:///x", "secret": hookSecret, "events": []string{"publish"}}, "with a host"},
			{"user", map[string]any{"url": "https://u:p@x.example.com/", "secret": hookSecret, "events": []string{"publish"}}, "user name or password"},
			{"long url", map[string]any{"url": "https://x.example.com/" + strings.Repeat("a", 2000), "secret": hookSecret, "events": []string{"publish"}}, "at most 2000"},
			{"short secret", map[string]any{"url": "https://x.example.com/", "secret": "short", "events": []string{"publish"}}, "secret must be 16 to 256 bytes"},
			{"long secret", map[string]any{"url": "https://x.example.com/", "secret": strings.Repeat("s", 257), "events": []string{"publish"}}, "secret must be 16 to 256 bytes"},
			{"no events", map[string]any{"url": "https://x.example.com/", "secret": hookSecret}, "events must name at least one"},
			{"unknown event", map[string]any{"url": "https://x.example.com/", "secret": hookSecret, "events": []string{"push"}}, `event "push" is not known`},
			{"many events", map[string]any{"url": "https://x.example.com/", "secret": hookSecret, "events": strings.Split(strings.Repeat("publish,", 17), ",")}, "at most 16"},
			{"key of a package", map[string]any{"package": "widget", "url": "https://x.example.com/", "secret": hookSecret, "events": []string{"key"}}, "concerns the whole owner"},
			{"bad package", map[string]any{"package": "a/b", "url": "https://x.example.com/", "secret": hookSecret, "events": []string{"publish"}}, "not a pack's name"},
			{"unknown field", map[string]any{"url": "https://x.example.com/", "secret": hookSecret, "events": []string{"publish"}, "active": true}, `field "active" is not known`},
		} {
			resp := env.API.PostJSON("/api/hooks", c.body, o.alice.Bearer())
			wantError(t, resp.Status, resp.JSON(t), 400, c.msg)
		}
		resp = env.API.PostJSON("/api/hooks", map[string]any{"owner": "nobody", "url": "https://x.example.com/", "secret": hookSecret, "events": []string{"publish"}}, o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 404, "no user or organisation nobody")
		resp = env.API.Get("/api/hooks", o.alice.Bearer())
		resp.Decode(t, &list)
		if len(list.Hooks) != 1 {
			t.Fatalf("after the refusals alice has %d hooks", len(list.Hooks))
		}
		// At most 20 hooks an owner.
		for i := len(list.Hooks); i < 20; i++ {
			addHook(t, env, o.alice, map[string]any{"url": fmt.Sprintf("https://x.example.com/%d", i), "secret": hookSecret, "events": []string{"publish"}})
		}
		resp = env.API.PostJSON("/api/hooks", map[string]any{"url": "https://x.example.com/21", "secret": hookSecret, "events": []string{"publish"}}, o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 409, "has 20 hooks already")

		resp = env.API.Delete(fmt.Sprintf("/api/hooks/%d", org.ID), o.alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = env.API.Delete(fmt.Sprintf("/api/hooks/%d", org.ID), o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 404, "no hook")
		resp = env.API.Delete("/api/hooks/x", o.alice.Bearer())
		wantStatus(t, resp.Status, http.StatusNotFound, resp.Body)
	})
}

// Each event reaches the hooks that asked for it as a POST the receiver
// verifies: the signature under the secret, and the log entry's inclusion
// in a checkpoint signed by the log's key, from the body alone.
func TestHookDeliveriesAreSignedAndProvable(t *testing.T) {
	t.Parallel()
	_, pub := sshtest.GenerateKey(t, t.TempDir(), "ed25519", 0)
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, WebhookAllowPrivate: true})
		alice := env.CreateUser(t, "alice")
		all, allURL := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{})
		widget, widgetURL := hooktest.NewServer(t, "another-secret-0123456789", hooktest.Behaviour{})
		hAll := addHook(t, env, alice, map[string]any{"url": allURL + "/all", "secret": hookSecret,
			"events": []string{"publish", "yank", "unyank", "deprecate", "key", "member", "release"}})
		hWidget := addHook(t, env, alice, map[string]any{"url": widgetURL, "package": "widget", "secret": "another-secret-0123456789", "events": []string{"publish"}})

		for _, step := range []struct {
			path string
			body map[string]any
		}{
			{"/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}},
			{"/api/publish", map[string]any{"content": packDoc("gadget", "1.0.0")}},
			{yankPath("widget", "1.0.0", "yank"), map[string]any{"reason": "broken"}},
			{yankPath("widget", "1.0.0", "unyank"), nil},
			{"/api/packages/alice/widget/deprecate", map[string]any{"message": "use gadget"}},
			{"/api/ssh-keys", map[string]any{"public_key": readPub(t, pub)}},
			{"/api/releases", nil},
		} {
			if step.path == "/api/releases" {
				step.body = releaseBody("alice/widget", "1.0.0")
				step.body["contract_digest"] = "sha256:" + docSHA(t, env, "alice", "widget", "1.0.0")
				step.body["contract_url"] = env.URL + "/raw/alice/widget@1.0.0.pact.md"
				step.body["source_git_commit"] = "abc1234"
			}
			resp := env.API.PostJSON(step.path, step.body, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		}
		// An organisation's hook hears its members.
		org, orgURL := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{})
		env.CreateUser(t, "bob")
		resp := env.API.PostJSON("/api/orgs", map[string]any{"name": "acme"}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
		addHook(t, env, alice, map[string]any{"owner": "acme", "url": orgURL, "secret": hookSecret, "events": []string{"member"}})
		resp = env.API.PutJSON("/api/orgs/acme/members/bob", map[string]any{"role": "maintainer"}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		ogot := hooktest.WaitFor(t, 20*time.Second, org.Deliveries, func(d []hooktest.Delivery) bool { return len(d) >= 1 })
		if p := ogot[0].Payload; len(ogot) != 1 || p.Event != "member" || p.Kind != "member" || p.Owner != "acme" || !strings.Contains(p.Entry, "\nmember bob\n") {
			t.Errorf("the organisation's hook got %+v", ogot)
		}

		got := hooktest.WaitFor(t, 20*time.Second, all.Deliveries, func(d []hooktest.Delivery) bool { return len(d) >= 7 })
		verifier, err := note.NewVerifier(env.Service.LogVerifierKey())
		if err != nil {
			t.Fatal(err)
		}
		policy := torchwood.ThresholdPolicy(2, torchwood.OriginPolicy("servertest/log"), torchwood.SingleVerifierPolicy(verifier))
		seen := map[string]bool{}
		for _, d := range got {
			p := d.Payload
			what := p.Event + " " + p.Package
			seen[what] = true
			if d.SignatureError != "" || d.Event != p.Event || d.ID != p.Delivery || p.Owner != "alice" || p.HookID != hAll.ID {
				t.Errorf("%s: delivery %+v", what, d)
			}
			if _, err := hooksig.Verify(d.Signature, "not the secret at all", d.Body, time.Now(), 0); err == nil {
				t.Errorf("%s: the signature verifies under another secret", what)
			}
			// A deprecation carries the pack-state entry that records it.
			if p.Event == "deprecate" && (p.Kind != "pack-state" || p.Message != "use gadget" || p.Package != "widget" ||
				!strings.Contains(p.Entry, "\ndeprecated \"use gadget\"\n")) {
				t.Errorf("deprecation: %+v", p)
			}
			if p.LogIndex == nil || !strings.Contains(p.Entry, "\nkind "+p.Kind+"\n") {
				t.Errorf("%s: log_index %v, entry %q, kind %q", what, p.LogIndex, p.Entry, p.Kind)
				continue
			}
			if err := torchwood.VerifyProof(policy, tlog.RecordHash([]byte(p.Entry)), []byte(p.Proof)); err != nil {
				t.Errorf("%s: the proof does not verify the entry: %v\n%s", what, err, p.Proof)
			}
			if extra, err := torchwood.ProofExtraData([]byte(p.Proof)); err != nil || string(extra) != p.Entry {
				t.Errorf("%s: the proof's entry %q is not the body's", what, extra)
			}
		}
		for _, want := range []string{"publish widget", "publish gadget", "yank widget", "unyank widget", "deprecate widget", "key ", "release widget"} {
			if !seen[want] {
				t.Errorf("no delivery of %q among %v", want, seen)
			}
		}
		// The package's hook: widget's publish only.
		// Its queue was filled with each event's transaction, so it is
		// complete now.
		if q := hookDeliveries(t, env, alice, hWidget.ID).Deliveries; len(q) != 1 || q[0].Package != "widget" || q[0].Event != "publish" {
			t.Errorf("the widget hook's deliveries are %+v", q)
		}
		wgot := hooktest.WaitFor(t, 20*time.Second, widget.Deliveries, func(d []hooktest.Delivery) bool { return len(d) >= 1 })
		if len(wgot) != 1 || wgot[0].Payload.Package != "widget" || wgot[0].Payload.Event != "publish" || wgot[0].SignatureError != "" {
			t.Errorf("the widget hook got %+v", wgot)
		}
		// The list shows each delivered, with its answer.
		list := waitDeliveries(t, env, alice, hAll.ID, "7 delivered", func(d []wire.HookDelivery) bool {
			n := 0
			for _, x := range d {
				if x.State == "delivered" {
					n++
				}
			}
			return n == 7
		})
		for _, d := range list {
			if d.Status != 200 || d.Attempts != 1 || d.Time == nil || d.Error != "" || d.NextAttemptAt != nil {
				t.Errorf("delivery %+v", d)
			}
		}
		// Redelivering sends the same delivery (its id) again.
		resp = env.API.Post(fmt.Sprintf("/api/hooks/%d/deliveries/%d/redeliver", hAll.ID, list[0].ID), "", nil, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		again := hooktest.WaitFor(t, 20*time.Second, all.Deliveries, func(d []hooktest.Delivery) bool { return len(d) >= 8 })
		if again[7].ID != fmt.Sprint(list[0].ID) || again[7].SignatureError != "" {
			t.Errorf("redelivery %+v, want delivery %d", again[7], list[0].ID)
		}
		resp = env.API.Post(fmt.Sprintf("/api/hooks/%d/deliveries/%d/redeliver", hAll.ID, list[0].ID+1000), "", nil, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 404, "has no delivery")
	})
}

// A failed delivery is tried again after 10 s, then after twice as long
// each time; one still failing 24 h after its event gives up, and a hook
// whose deliveries all failed for 3 days is disabled, with a note.
func TestHookRetriesGiveUpAndDisable(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, WebhookAllowPrivate: true})
		alice := env.CreateUser(t, "alice")
		recv, u := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{FailFirst: 2})
		h := addHook(t, env, alice, map[string]any{"url": u, "secret": hookSecret, "events": []string{"publish"}})
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		first := waitDeliveries(t, env, alice, h.ID, "a failed attempt", func(d []wire.HookDelivery) bool { return len(d) == 1 && d[0].Attempts == 1 })[0]
		if first.State != "pending" || first.Status != 500 || !strings.Contains(first.Error, "answered 500") ||
			first.NextAttemptAt == nil || first.NextAttemptAt.Sub(*first.Time) != 10*time.Second {
			t.Fatalf("after a 500: %+v", first)
		}
		// Not before its time: the clock has not moved.
		if n, err := env.Webhooks.RunOnce(context.Background()); n != 0 || err != nil {
			t.Fatalf("%d deliveries claimed before the retry is due, %v", n, err)
		}
		if n := recv.Requests(); n != 1 {
			t.Fatalf("%d requests before the retry is due", n)
		}
		env.Clock.Advance(10 * time.Second)
		second := waitDeliveries(t, env, alice, h.ID, "a second attempt", func(d []wire.HookDelivery) bool { return d[0].Attempts == 2 })[0]
		if second.NextAttemptAt == nil || second.NextAttemptAt.Sub(*second.Time) != 20*time.Second {
			t.Fatalf("after a second 500: %+v", second)
		}
		env.Clock.Advance(20 * time.Second)
		waitDeliveries(t, env, alice, h.ID, "delivered", func(d []wire.HookDelivery) bool { return d[0].State == "delivered" && d[0].Status == 200 })
		if got := hookDeliveries(t, env, alice, h.ID).Hook; got.FailingSince != nil {
			t.Errorf("a hook that succeeds is failing since %v", got.FailingSince)
		}

		// A receiver that never answers: given up on after 24 h.
		recv.SetFailFirst(1 << 30)
		resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		waitDeliveries(t, env, alice, h.ID, "a failed attempt", func(d []wire.HookDelivery) bool { return len(d) == 2 && d[0].Attempts == 1 })
		env.Clock.Advance(23 * time.Hour)
		d := waitDeliveries(t, env, alice, h.ID, "a retry within the day", func(d []wire.HookDelivery) bool { return d[0].Attempts == 2 })[0]
		if d.State != "pending" {
			t.Fatalf("23 h after the event: %+v", d)
		}
		env.Clock.Advance(2 * time.Hour)
		d = waitDeliveries(t, env, alice, h.ID, "given up", func(d []wire.HookDelivery) bool { return d[0].Attempts == 3 })[0]
		if d.State != "failed" || d.NextAttemptAt != nil {
			t.Fatalf("25 h after the event: %+v", d)
		}
		hook := hookDeliveries(t, env, alice, h.ID).Hook
		if hook.FailingSince == nil || hook.DisabledAt != nil {
			t.Fatalf("after a day of failures: %+v", hook)
		}

		// Three days after the first failure, the next failure disables it.
		env.Clock.Advance(48 * time.Hour)
		resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.2.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		waitDeliveries(t, env, alice, h.ID, "failed by the disabling", func(d []wire.HookDelivery) bool { return len(d) == 3 && d[0].State == "failed" })
		hook = hookDeliveries(t, env, alice, h.ID).Hook
		if hook.DisabledAt == nil || !strings.Contains(hook.DisabledNote, "every delivery failed since") {
			t.Fatalf("after 3 days of failures: %+v", hook)
		}
		resp = env.API.Post(fmt.Sprintf("/api/hooks/%d/deliveries/%d/redeliver", h.ID, d.ID), "", nil, alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), 409, "is disabled")
		// A disabled hook is not queued for.
		resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.3.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if n := len(hookDeliveries(t, env, alice, h.ID).Deliveries); n != 3 {
			t.Errorf("a disabled hook has %d deliveries, want 3", n)
		}
	})
}

// Without --webhook-allow-private, a hook's URL that resolves to a
// loopback, private, link-local or metadata address is refused when it is
// made, and a host that resolved to a public address then and to loopback
// when dialled (DNS rebinding) is refused at delivery: the address dialled
// is checked. The receiver on loopback gets nothing. Neither refusal names
// the addresses a name resolves to, nor the resolver: the caller learns
// only that the host is not public.
func TestHookPrivateAddressesRefused(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		// "localhost" resolves to a public address when the hook is made,
		// and, dialled, to loopback as the system resolves it.
		rebind := func(ctx context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "localhost":
				return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
			case "gone.invalid": // public when made, and no longer resolving when dialled
				return []netip.Addr{netip.MustParseAddr("203.0.113.9")}, nil
			case "db.internal.example.com":
				return []netip.Addr{netip.MustParseAddr("203.0.113.8"), netip.MustParseAddr("10.9.8.7")}, nil
			}
			if a, err := netip.ParseAddr(host); err == nil {
				return []netip.Addr{a}, nil
			}
			// As the system's resolver says it.
			return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.255.255.53:53", IsNotFound: true}
		}
		env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, ResolveHost: rebind})
		alice := env.CreateUser(t, "alice")
		for _, u := range []string{"http://127.0.0.1:8080/", "http://[::1]/", "http://10.1.2.3/", "http://192.168.0.1/", "http://172.16.0.1/",
			"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://0.0.0.0/", "http://100.64.0.1/", "http://[::ffff:127.0.0.1]/", "http://[fe80::1]/",
			"http://[::127.0.0.1]/", "http://[::ffff:0:127.0.0.1]/", "http://[::10.1.2.3]/"} {
			resp := env.API.PostJSON("/api/hooks", map[string]any{"url": u, "secret": hookSecret, "events": []string{"publish"}}, alice.Bearer())
			wantError(t, resp.Status, resp.JSON(t), 400, "not public")
		}
		for host, hidden := range map[string]string{"nowhere.invalid": "10.255.255.53", "db.internal.example.com": "10.9.8.7"} {
			resp := env.API.PostJSON("/api/hooks", map[string]any{"url": "https://" + host + "/", "secret": hookSecret, "events": []string{"publish"}}, alice.Bearer())
			msg := "url's host " + host + " is not public: it must resolve, and only to public addresses"
			wantError(t, resp.Status, resp.JSON(t), 400, msg)
			if bytes.Contains(resp.Body, []byte(hidden)) || bytes.Contains(resp.Body, []byte("203.0.113.8")) || bytes.Contains(resp.Body, []byte("no such host")) {
				t.Errorf("the refusal of %s tells the addresses or the resolver: %s", host, resp.Body)
			}
		}
		if hooks, err := env.Service.ListHooks(context.Background(), alice.Account, nil, "alice"); err != nil || len(hooks) != 0 {
			t.Errorf("hooks stored: %+v, %v", hooks, err)
		}

		recv, u := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{})
		rebound := strings.Replace(u, "127.0.0.1", "localhost", 1)
		h := addHook(t, env, alice, map[string]any{"url": rebound, "secret": hookSecret, "events": []string{"publish"}})
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		d := waitDeliveries(t, env, alice, h.ID, "a refused attempt", func(d []wire.HookDelivery) bool { return len(d) == 1 && d[0].Attempts == 1 })[0]
		if d.State != "pending" || d.Status != 0 || !strings.Contains(d.Error, "not public") || strings.Contains(d.Error, "127.0.0.1") {
			t.Errorf("a delivery dialling loopback: %+v; want it refused, naming no address", d)
		}
		if n := recv.Requests(); n != 0 {
			t.Errorf("the receiver on loopback got %d requests", n)
		}
		// A name that no longer resolves when dialled: said so, without
		// the resolver's address.
		gone := addHook(t, env, alice, map[string]any{"url": "http://gone.invalid/hook", "secret": hookSecret, "events": []string{"publish"}})
		resp = env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.1.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		d = waitDeliveries(t, env, alice, gone.ID, "a failed attempt", func(d []wire.HookDelivery) bool { return len(d) == 1 && d[0].Attempts == 1 })[0]
		if d.State != "pending" || d.Error != "the receiver's host does not resolve" {
			t.Errorf("a delivery to a name that does not resolve: %+v", d)
		}
	})
}

// A receiver that answers a delivery with 307 or 308 to another host gets
// that answer recorded as a failure, and the other host gets nothing: the
// redirect is not followed, for its target was never checked when the hook
// was made. Private addresses are allowed here, so that nothing but the
// refusal to follow stops the body going to the receiver on loopback, as
// nothing would stop it going to another public host.
func TestHookRedirectsAreNotFollowed(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, WebhookAllowPrivate: true})
		alice := env.CreateUser(t, "alice")
		elsewhere, elsewhereURL := hooktest.NewServer(t, hookSecret, hooktest.Behaviour{})
		target := strings.Replace(elsewhereURL, "127.0.0.1", "localhost", 1) + "/stolen"
		for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			var asked atomic.Int64
			redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked.Add(1)
				io.Copy(io.Discard, r.Body)
				http.Redirect(w, r, target, status)
			}))
			t.Cleanup(redirector.Close)
			h := addHook(t, env, alice, map[string]any{"url": redirector.URL + "/hook", "secret": hookSecret, "package": fmt.Sprintf("p%d", status), "events": []string{"publish"}})
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc(fmt.Sprintf("p%d", status), "1.0.0")}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			d := waitDeliveries(t, env, alice, h.ID, "one attempt", func(d []wire.HookDelivery) bool { return len(d) == 1 && d[0].Attempts >= 1 })[0]
			if d.Status != status || d.State == "delivered" {
				t.Errorf("a delivery answered %d: %+v", status, d)
			}
			if asked.Load() < 1 {
				t.Errorf("the receiver answering %d was never asked", status)
			}
		}
		// The deliverer has finished both deliveries; give a followed
		// redirect, were there one, time to arrive.
		time.Sleep(200 * time.Millisecond)
		if n := elsewhere.Requests(); n != 0 {
			t.Errorf("the redirects' target got %d requests: %+v", n, elsewhere.Deliveries())
		}
	})
}

// Without --webhook-allow-private, the IPv4-mapped forms of the shared
// (100.64.0.0/10), benchmarking (198.18.0.0/15) and reserved (240.0.0.0/4)
// ranges, and the IPv6 prefixes that embed an IPv4 address (NAT64
// 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, IPv4-compatible ::/96
// and IPv4-translated ::ffff:0:0/96; here each embedding 10.0.0.1 or
// 127.0.0.1) are refused when a hook is made; and, when the resolver said
// otherwise then, at dial: the address dialled is checked.
func TestHookMappedAndEmbeddedAddressesRefused(t *testing.T) {
	t.Parallel()
	hosts := []string{"::ffff:100.64.0.1", "::ffff:198.18.0.1", "::ffff:240.0.0.1", "64:ff9b::a00:1", "64:ff9b:1::a00:1", "2002:a00:1::1",
		"::a00:1", "::127.0.0.1", "::ffff:0:a00:1", "::ffff:0:127.0.0.1"}
	t.Run("made", func(t *testing.T) {
		servertest.Backends(t, func(t *testing.T, dsn string) {
			env := servertest.Start(t, dsn, servertest.Options{})
			alice := env.CreateUser(t, "alice")
			for _, host := range hosts {
				resp := env.API.PostJSON("/api/hooks", map[string]any{"url": "http://[" + host + "]/hook", "secret": hookSecret, "events": []string{"publish"}}, alice.Bearer())
				wantError(t, resp.Status, resp.JSON(t), 400, "not public")
			}
			if hooks, err := env.Service.ListHooks(context.Background(), alice.Account, nil, "alice"); err != nil || len(hooks) != 0 {
				t.Errorf("hooks stored: %+v, %v", hooks, err)
			}
		})
	})
	t.Run("dialled", func(t *testing.T) {
		servertest.Backends(t, func(t *testing.T, dsn string) {
			// The resolver of a hook's host, when it is made, calls each of
			// these addresses public, as a resolver lying about a name would.
			public := func(ctx context.Context, host string) ([]netip.Addr, error) {
				return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
			}
			env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, ResolveHost: public, WebhookTimeout: 2 * time.Second})
			alice := env.CreateUser(t, "alice")
			var ids []int64
			for _, host := range hosts {
				ids = append(ids, addHook(t, env, alice, map[string]any{"url": "http://[" + host + "]/hook", "secret": hookSecret, "events": []string{"publish"}}).ID)
			}
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			for i, id := range ids {
				d := waitDeliveries(t, env, alice, id, "a refused attempt", func(d []wire.HookDelivery) bool { return len(d) == 1 && d[0].Attempts >= 1 })[0]
				if d.State != "pending" || d.Status != 0 || !strings.Contains(d.Error, "not public") || strings.Contains(d.Error, hosts[i]) {
					t.Errorf("a delivery dialling %s: %+v; want it refused, naming no address", hosts[i], d)
				}
			}
		})
	})
}

// A delivery has a timeout (--webhook-timeout), and at most 64 KiB of the
// answer is read: a receiver that never ends its answer does not hold the
// delivery past its first 64 KiB, one that never answers fails it at the
// timeout.
func TestHookDeliveryIsBounded(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		env := servertest.Start(t, dsn, servertest.Options{Webhooks: true, WebhookAllowPrivate: true, WebhookTimeout: 2 * time.Second})
		alice := env.CreateUser(t, "alice")
		endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusOK)
			chunk := bytes.Repeat([]byte("x"), 4096)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}))
		defer endless.Close()
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // so that the server sees the sender go
			<-r.Context().Done()
		}))
		defer silent.Close()
		hEndless := addHook(t, env, alice, map[string]any{"url": endless.URL, "secret": hookSecret, "events": []string{"publish"}})
		hSilent := addHook(t, env, alice, map[string]any{"url": silent.URL, "secret": hookSecret, "events": []string{"publish"}})
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", "1.0.0")}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)

		d := waitDeliveries(t, env, alice, hEndless.ID, "an attempt", func(d []wire.HookDelivery) bool { return len(d) == 1 && d[0].Attempts == 1 })[0]
		if d.State != "delivered" || d.Status != 200 || d.DurationMS >= 2000 {
			t.Errorf("an endless answer: %+v; want delivered once 64 KiB were read, before the timeout", d)
		}
		d = waitDeliveries(t, env, alice, hSilent.ID, "an attempt", func(d []wire.HookDelivery) bool { return len(d) == 1 && d[0].Attempts == 1 })[0]
		if d.State != "pending" || d.Status != 0 || d.DurationMS < 2000 || d.DurationMS > 5000 || !strings.Contains(d.Error, "no answer within 2s (--webhook-timeout)") {
			t.Errorf("no answer: %+v; want an attempt failed at the 2 s timeout", d)
		}
	})
}
