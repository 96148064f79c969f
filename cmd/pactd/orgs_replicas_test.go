package main_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
)

// A member removed on one replica cannot publish into the organisation on
// either at once: no replica keeps membership in memory.
func TestOrgMemberRemovalHoldsOnEveryReplica(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	first, alice := startWithToken(t, "alice", dsn)
	second := startPactd(t, dsn)
	bob, err := first.CreateUserWithToken("bob")
	if err != nil {
		t.Fatal(err)
	}
	a, b := first.URL, second.URL
	into := func(base, version string) answer {
		return call(t, httpClient, http.MethodPost, base+"/api/publish", bob,
			map[string]string{"content": packDocument("widget", version, "Team pack."), "owner": "acme"})
	}

	wantAnswer(t, "create acme on A", call(t, httpClient, http.MethodPost, a+"/api/orgs", alice, map[string]string{"name": "acme"}), http.StatusCreated)
	wantAnswer(t, "bob not yet a member, on B", into(b, "0.9.0"), http.StatusForbidden)
	wantAnswer(t, "add bob on B", call(t, httpClient, http.MethodPut, b+"/api/orgs/acme/members/bob", alice, map[string]string{"role": "maintainer"}), http.StatusOK)
	wantAnswer(t, "bob publishes on A", into(a, "1.0.0"), http.StatusOK)
	wantAnswer(t, "bob publishes on B", into(b, "1.1.0"), http.StatusOK)

	wantAnswer(t, "remove bob on A", call(t, httpClient, http.MethodDelete, a+"/api/orgs/acme/members/bob", alice, nil), http.StatusOK)
	wantAnswer(t, "bob publishes on B right after", into(b, "1.2.0"), http.StatusForbidden)
	wantAnswer(t, "bob publishes on A right after", into(a, "1.2.0"), http.StatusForbidden)
	wantAnswer(t, "bob yanks on B right after", call(t, httpClient, http.MethodPost, b+"/api/packages/acme/widget/versions/1.1.0/yank", bob, map[string]string{}), http.StatusForbidden)
	for _, r := range []string{a, b} {
		var detail struct {
			Versions []struct{ Version string } `json:"versions"`
		}
		got := get(t, r+"/api/packages/acme/widget", "")
		if err := json.Unmarshal(got.body, &detail); err != nil || len(detail.Versions) != 2 {
			t.Errorf("acme/widget on %s: %s, want 1.0.0 and 1.1.0 only", r, got)
		}
		if got := get(t, r+"/api/orgs/acme/members", ""); got.status != http.StatusOK || strings.Contains(string(got.body), "bob") {
			t.Errorf("members on %s: %s, want alice alone", r, got)
		}
	}
}
