package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/hooktest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/pkg/wire"
)

const webhookSecret = "pactd-test-secret-0123456789"

var backends = []struct {
	name string
	dsn  func(testing.TB) string
}{{"sqlite", storetest.SQLiteDSN}, {"postgres", storetest.PostgresURL}}

func addWebhook(t *testing.T, base, token, url string) wire.Hook {
	t.Helper()
	resp := call(t, httpClient, http.MethodPost, base+"/api/hooks", token,
		map[string]any{"url": url, "secret": webhookSecret, "events": []string{"publish"}})
	wantAnswer(t, "POST /api/hooks", resp, http.StatusCreated)
	var out wire.HookResult
	if err := json.Unmarshal(resp.body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Hook
}

// kill -9 of pactd while a receiver (a process of its own) holds a
// delivery: the delivery is in the database, so the restarted pactd sends
// it once the dead one's lease ends, and the receiver gets it, signed.
func TestWebhookDeliveredAfterKill9MidDelivery(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db := b.dsn(t)
			flags := []string{"--webhook-allow-private", "--webhook-timeout", "3s"}
			srv, token := startWithToken(t, "alice", db, flags...)
			recv := hooktest.StartProcess(t, webhookSecret, hooktest.Behaviour{SlowFirst: time.Minute})
			addWebhook(t, srv.URL, token, recv.URL+"/hook")
			wantAnswer(t, "publish", publish(t, srv.URL, token, packDocument("widget", "1.0.0", "")), http.StatusOK)

			deadline := time.Now().Add(20 * time.Second)
			for recv.Requests(t) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("no delivery reached the receiver in 20s; pactd logged:\n%s", withoutAccessLog(srv.Logs()))
				}
				time.Sleep(20 * time.Millisecond)
			}
			// pactd is in the middle of the delivery: the receiver holds it.
			if err := srv.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if err := srv.Wait(10 * time.Second); err != nil && strings.Contains(err.Error(), "still running") {
				t.Fatal(err)
			}
			if n := len(recv.Deliveries(t)); n != 0 {
				t.Fatalf("the receiver answered %d deliveries before the kill", n)
			}
			restarted := startPactd(t, db, flags...)
			deadline = time.Now().Add(30 * time.Second)
			var got []hooktest.Delivery
			for len(got) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the restarted pactd delivered nothing in 30s; it logged:\n%s", withoutAccessLog(restarted.Logs()))
				}
				time.Sleep(50 * time.Millisecond)
				got = recv.Deliveries(t)
			}
			d := got[0]
			if d.SignatureError != "" || d.Event != "publish" || d.Payload.Package != "widget" || d.Payload.Version != "1.0.0" || d.Payload.Proof == "" {
				t.Errorf("delivered after the restart: %+v", d)
			}
			if n := recv.Requests(t); n != 2 {
				t.Errorf("the receiver got %d requests, want the one cut off and the one answered", n)
			}
		})
	}
}

// Without --webhook-allow-private, pactd refuses a hook on a loopback or
// private address, by IP or by a name that resolves to one.
func TestWebhookPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			srv, token := startWithToken(t, "alice", b.dsn(t))
			recv := hooktest.StartProcess(t, webhookSecret, hooktest.Behaviour{})
			for _, u := range []string{recv.URL, strings.Replace(recv.URL, "127.0.0.1", "localhost", 1), "http://169.254.169.254/", "http://10.0.0.1/"} {
				resp := call(t, httpClient, http.MethodPost, srv.URL+"/api/hooks", token,
					map[string]any{"url": u, "secret": webhookSecret, "events": []string{"publish"}})
				if resp.status != http.StatusBadRequest || !strings.Contains(string(resp.body), "not public") {
					t.Errorf("POST /api/hooks %s: %s, want 400 naming the address not public", u, resp)
				}
			}
			if list := get(t, srv.URL+"/api/hooks", token); !strings.Contains(string(list.body), `"hooks":[]`) {
				t.Errorf("after the refusals: %s", list)
			}
		})
	}
}

// Two replicas on one PostgreSQL database share the queue: every delivery
// of 20 publishes arrives, and none twice (FOR UPDATE SKIP LOCKED: a
// delivery claimed by one replica is not claimed by the other).
func TestWebhookReplicasShareTheQueue(t *testing.T) {
	t.Parallel()
	db := storetest.PostgresURL(t)
	flags := []string{"--webhook-allow-private"}
	a, token := startWithToken(t, "alice", db, flags...)
	b := startPactd(t, db, flags...)
	recv := hooktest.StartProcess(t, webhookSecret, hooktest.Behaviour{})
	addWebhook(t, a.URL, token, recv.URL+"/hook")
	const n = 20
	for i := range n {
		base := a.URL
		if i%2 == 1 {
			base = b.URL
		}
		wantAnswer(t, "publish", publish(t, base, token, packDocument(fmt.Sprintf("pack-%02d", i), "1.0.0", "")), http.StatusOK)
	}
	deadline := time.Now().Add(30 * time.Second)
	var got []hooktest.Delivery
	for len(got) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d deliveries in 30s", len(got), n)
		}
		time.Sleep(50 * time.Millisecond)
		got = recv.Deliveries(t)
	}
	time.Sleep(time.Second) // room for a second copy to arrive
	got = recv.Deliveries(t)
	seen := map[string]int{}
	for _, d := range got {
		seen[d.ID]++
		if d.SignatureError != "" {
			t.Errorf("delivery %s: %s", d.ID, d.SignatureError)
		}
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("delivery %s arrived %d times", id, c)
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct deliveries, want %d", len(seen), n)
	}
}
