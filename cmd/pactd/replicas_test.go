package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// Two pactd processes on one PostgreSQL database behave as one registry:
// what one acknowledges the other serves at once (a new latest raw
// document within --db-read-cache-ttl), and the rules that guard
// publishing (nonces, immutable versions, revoked tokens, deleted keys) hold
// across them.
func TestReplicasShareOnePostgres(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	// pactd user create and token create run on the shared database.
	first, token := startWithToken(t, "alice", dsn, "--db-read-cache-ttl", replicaCacheTTL.String())
	second := startPactd(t, dsn, "--db-read-cache-ttl", replicaCacheTTL.String())
	replicas := []string{first.URL, second.URL}
	a, b := replicas[0], replicas[1]

	t.Run("what one acknowledges the other serves at once", func(t *testing.T) {
		for i := range 20 {
			writer, reader := replicas[i%2], replicas[(i+1)%2]
			version := fmt.Sprintf("1.0.%d", i)
			content := packDocument("fresh", version, fmt.Sprintf("Edition %d.", i))
			wantAnswer(t, "publish "+version, publish(t, writer, token, content), http.StatusOK)

			// The reader may have the previous latest cached: it
			// serves the new one within the cache's ttl.
			var latest answer
			if !within(replicaCacheTTL, func() bool {
				latest = get(t, reader+"/raw/alice/fresh.pact.md", "")
				return latest.status == http.StatusOK && string(latest.body) == content
			}) {
				t.Fatalf("%s after publishing %s on one replica, the other serves the latest as %s", replicaCacheTTL, version, latest)
			}
			pinned := get(t, reader+"/raw/alice/fresh@"+version+".pact.md", "")
			if pinned.status != http.StatusOK || string(pinned.body) != content {
				t.Fatalf("right after publishing %s on one replica, the other serves it as %s", version, pinned)
			}
			var list struct {
				Packages []struct{ PackSlug, Version string } `json:"packages"`
			}
			listed := get(t, reader+"/api/packages?limit=1", "")
			if err := json.Unmarshal(listed.body, &list); err != nil || len(list.Packages) != 1 || list.Packages[0].Version != version {
				t.Fatalf("right after publishing %s on one replica, the other lists %s", version, listed)
			}
		}
	})

	key := registerKey(t, a, token, "laptop")
	t.Run("a nonce spent on one replica is refused by the other", func(t *testing.T) {
		const nonce = "replica-nonce-0000000001"
		body := key.signedPublish(t, packDocument("signed", "1.0.0", "Signed."), nonce)
		wantAnswer(t, "signed publish on A", call(t, httpClient, http.MethodPost, a+"/api/publish-signed", "", body), http.StatusOK)

		replayed := call(t, httpClient, http.MethodPost, b+"/api/publish-signed", "", body)
		if replayed.status != http.StatusBadRequest || !strings.Contains(string(replayed.body), "nonce") {
			t.Errorf("the same signed publish replayed on B: %s, want 400 about the nonce", replayed)
		}
		// A new document signed with the spent nonce is refused too.
		reused := key.signedPublish(t, packDocument("signed", "1.1.0", "Signed again."), nonce)
		if got := call(t, httpClient, http.MethodPost, b+"/api/publish-signed", "", reused); got.status != http.StatusBadRequest {
			t.Errorf("another document with the spent nonce on B: %s, want 400", got)
		}
		fresh := key.signedPublish(t, packDocument("signed", "1.1.0", "Signed again."), "replica-nonce-0000000002")
		wantAnswer(t, "signed publish with a new nonce on B", call(t, httpClient, http.MethodPost, b+"/api/publish-signed", "", fresh), http.StatusOK)
	})

	t.Run("the same new version published on both at once: one 200, one 409", func(t *testing.T) {
		for round := range 8 {
			version := fmt.Sprintf("2.0.%d", round)
			contents := []string{
				packDocument("race", version, "Written by the client of replica A."),
				packDocument("race", version, "Written by the client of replica B."),
			}
			answers := make([]answer, 2)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range replicas {
				wg.Go(func() {
					<-start
					answers[i] = publish(t, replicas[i], token, contents[i])
				})
			}
			close(start)
			wg.Wait()
			statuses := []int{answers[0].status, answers[1].status}
			slices.Sort(statuses)
			if !slices.Equal(statuses, []int{http.StatusOK, http.StatusConflict}) {
				t.Fatalf("round %d: A answered %s, B answered %s; want one 200 and one 409", round, answers[0], answers[1])
			}
			winner := contents[0]
			if answers[1].status == http.StatusOK {
				winner = contents[1]
			}
			for _, r := range replicas {
				if got := get(t, r+"/raw/alice/race@"+version+".pact.md", ""); string(got.body) != winner {
					t.Fatalf("round %d: a replica serves %s, want the content of the publish that got 200", round, got)
				}
			}
		}
	})

	t.Run("a key deleted on one replica stops working on the other at once", func(t *testing.T) {
		wantAnswer(t, "delete the key on B", call(t, httpClient, http.MethodDelete, fmt.Sprintf("%s/api/ssh-keys/%d", b, key.id), token, nil), http.StatusOK)
		body := key.signedPublish(t, packDocument("signed", "9.0.0", "After deletion."), "replica-nonce-0000000003")
		if got := call(t, httpClient, http.MethodPost, a+"/api/publish-signed", "", body); got.status != http.StatusBadRequest {
			t.Errorf("signed publish on A with the key deleted on B: %s, want 400", got)
		}
		if got := get(t, a+"/api/ssh-keys", token); strings.Contains(string(got.body), key.fingerprint) {
			t.Errorf("A still lists the key deleted on B: %s", got)
		}
	})

	t.Run("a token revoked on one replica stops working on the other at once", func(t *testing.T) {
		// alice's tokens so far: 1 (token). The next one is 2.
		doomed, err := first.CreateToken("alice")
		if err != nil {
			t.Fatal(err)
		}
		wantAnswer(t, "the new token on B", get(t, b+"/api/me", doomed), http.StatusOK)

		dashboard := dashboardSession(t, a, "alice", "correct horse battery staple")
		resp, err := dashboard.PostForm(a+"/dashboard/tokens/2/revoke", url.Values{"confirm": {"yes"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("revoke token 2 in A's dashboard: status %d, want 303", resp.StatusCode)
		}
		for _, r := range replicas {
			if got := get(t, r+"/api/me", doomed); got.status != http.StatusUnauthorized {
				t.Errorf("the revoked token on %s: %s, want 401", r, got)
			}
			wantAnswer(t, "the other token", get(t, r+"/api/me", token), http.StatusOK)
		}
	})
}

// replicaCacheTTL is --db-read-cache-ttl of the replicas under test: how
// long another replica's write may take to show on a raw path.
const replicaCacheTTL = 300 * time.Millisecond

// within reports whether ok holds by the time bound has passed since the
// call, asking every 10 ms; one more ask is allowed for the time a request
// takes on a loaded machine.
func within(bound time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(bound)
	for {
		if ok() {
			return true
		}
		if time.Now().After(deadline) {
			return ok()
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Each replica caches raw documents (docs/design.md, The read cache): a
// yank, an un-yank or a new latest version made through replica A shows on
// replica B's raw path within --db-read-cache-ttl, and B does serve from
// its cache until then (a replica with a long ttl keeps the old answer).
func TestReplicaRawCacheIsCoherentWithinItsTTL(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	a, token := startWithToken(t, "alice", dsn, "--db-read-cache-ttl", replicaCacheTTL.String())
	b := startPactd(t, dsn, "--db-read-cache-ttl", replicaCacheTTL.String())
	slow := startPactd(t, dsn, "--db-read-cache-ttl", "1h")
	raw := func(base, path string) (int, string, http.Header) {
		t.Helper()
		resp, err := httpClient.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), resp.Header
	}

	v1 := packDocument("coherent", "1.0.0", "First.")
	wantAnswer(t, "publish 1.0.0 on A", publish(t, a.URL, token, v1), http.StatusOK)
	for _, r := range []string{b.URL, slow.URL} {
		// Never read before: read from the database, and now cached.
		if status, body, _ := raw(r, "/raw/alice/coherent.pact.md"); status != http.StatusOK || body != v1 {
			t.Fatalf("a replica serves the first latest as %d %q", status, body)
		}
		if status, _, h := raw(r, "/raw/alice/coherent@1.0.0.pact.md"); status != http.StatusOK || h.Get("Pact-Yanked") != "" {
			t.Fatalf("a replica serves 1.0.0 as %d, Pact-Yanked %q", status, h.Get("Pact-Yanked"))
		}
	}

	t.Run("a new latest version", func(t *testing.T) {
		v2 := packDocument("coherent", "2.0.0", "Second.")
		wantAnswer(t, "publish 2.0.0 on A", publish(t, a.URL, token, v2), http.StatusOK)
		var got string
		if !within(replicaCacheTTL, func() bool { _, got, _ = raw(b.URL, "/raw/alice/coherent.pact.md"); return got == v2 }) {
			t.Errorf("%s after A published 2.0.0, B serves the latest as %q", replicaCacheTTL, got)
		}
		if _, got, _ := raw(slow.URL, "/raw/alice/coherent.pact.md"); got != v1 {
			t.Errorf("a replica with a 1h ttl serves %q, want the cached 1.0.0 (is the cache in use?)", got)
		}
	})

	t.Run("a yank with a reason, and an un-yank", func(t *testing.T) {
		yank := call(t, httpClient, http.MethodPost, a.URL+"/api/packages/alice/coherent/versions/1.0.0/yank", token,
			map[string]string{"reason": "broken steps"})
		wantAnswer(t, "yank 1.0.0 on A", yank, http.StatusOK)
		var h http.Header
		if !within(replicaCacheTTL, func() bool {
			_, _, h = raw(b.URL, "/raw/alice/coherent@1.0.0.pact.md")
			return h.Get("Pact-Yanked") == "true" && h.Get("Pact-Yank-Reason") == "broken steps"
		}) {
			t.Errorf("%s after A yanked 1.0.0, B answers with Pact-Yanked %q, Pact-Yank-Reason %q",
				replicaCacheTTL, h.Get("Pact-Yanked"), h.Get("Pact-Yank-Reason"))
		}
		if _, _, h := raw(slow.URL, "/raw/alice/coherent@1.0.0.pact.md"); h.Get("Pact-Yanked") != "" {
			t.Errorf("a replica with a 1h ttl already shows the yank (is the cache in use?)")
		}
		wantAnswer(t, "un-yank 1.0.0 on A", call(t, httpClient, http.MethodPost,
			a.URL+"/api/packages/alice/coherent/versions/1.0.0/unyank", token, nil), http.StatusOK)
		if !within(replicaCacheTTL, func() bool {
			_, _, h = raw(b.URL, "/raw/alice/coherent@1.0.0.pact.md")
			return h.Get("Pact-Yanked") == ""
		}) {
			t.Errorf("%s after A un-yanked 1.0.0, B still answers Pact-Yanked %q", replicaCacheTTL, h.Get("Pact-Yanked"))
		}
	})
}
