package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/oidctest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/translog"
)

// A grant never exceeds its maker: what a token may give with a
// trusted publisher, an organisation or a membership is bounded by what it
// holds itself.

// issueToken makes a token through POST /api/tokens and answers its
// secret and its fields as the API shows them.
func issueToken(t *testing.T, env *servertest.Env, header string, body map[string]any) (string, map[string]any) {
	t.Helper()
	resp := env.API.PostJSON("/api/tokens", body, header)
	wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
	fields := resp.JSON(t)
	return fields["token"].(string), fields
}

// narrowToken is the issue's token: limited to the pack widget, for a day.
var narrowToken = map[string]any{"name": "narrow", "scopes": []string{"tokens", "publish"}, "packages": []string{"widget"}, "expires_in_days": 1}

func trustBody(issuer, owner, repo string, packages ...string) map[string]any {
	body := map[string]any{"issuer": issuer, "packages": packages, "claims": map[string]string{"repository": repo}}
	if owner != "" {
		body["owner"] = owner
	}
	return body
}

func trustedPublishers(t *testing.T, env *servertest.Env, header, owner string) []any {
	t.Helper()
	path := "/api/trusted-publishers"
	if owner != "" {
		path += "?owner=" + owner
	}
	resp := env.API.Get(path, header)
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	return resp.JSON(t)["trusted_publishers"].([]any)
}

// A token limited to widget for a day, or one without the publish scope,
// cannot make a trusted publisher for every pack that lasts forever: the
// packs must lie within the token's, and the trusted publisher expires
// with it; the exchange stops matching it then. Each records its maker.
func TestTrustedPublishersNeverExceedTheirMaker(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		narrow, narrowFields := issueToken(t, env, alice.Bearer(), narrowToken)
		tokensOnly, _ := issueToken(t, env, alice.Bearer(), map[string]any{"name": "tokens only", "scopes": []string{"tokens"}})

		refusals := []struct {
			name, header string
			packages     []string
			says         string
		}{
			{"every pack from a token limited to widget", bearer(narrow), []string{"*"}, `package glob "*" is not among this token's publish packs widget`},
			{"a pack beside widget", bearer(narrow), []string{"widget", "gadget"}, `"gadget" is not among this token's publish packs widget`},
			{"a glob that covers widget", bearer(narrow), []string{"widge?"}, `"widge?" is not among`},
			{"a token that cannot publish", bearer(tokensOnly), []string{"widget"}, `lacks the "publish" scope`},
		}
		for _, r := range refusals {
			t.Run(r.name, func(t *testing.T) {
				resp := env.API.PostJSON("/api/trusted-publishers", trustBody(idp.Issuer, "", "alice/widget", r.packages...), r.header)
				wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, r.says)
			})
		}
		if list := trustedPublishers(t, env, alice.Bearer(), ""); len(list) != 0 {
			t.Fatalf("refused requests stored %v", list)
		}

		// Within the token: widget itself, expiring with the token.
		tp := addTrust(t, env, bearer(narrow), trustBody(idp.Issuer, "", "alice/narrow", "widget"))
		if tp["expires_at"] != narrowFields["expires_at"] || tp["expires_at"] == nil {
			t.Errorf("expires_at = %v, want the token's %v", tp["expires_at"], narrowFields["expires_at"])
		}
		if by := fmt.Sprint(tp["created_by"]); by != fmt.Sprintf("map[token_id:%v username:alice]", narrowFields["id"]) {
			t.Errorf("created_by = %s, want alice with token %v", by, narrowFields["id"])
		}
		// A glob's token gives its glob or a pack it matches, never another glob.
		globbed, _ := issueToken(t, env, alice.Bearer(), map[string]any{"name": "globbed", "scopes": []string{"tokens", "publish"}, "packages": []string{"tool-*"}})
		addTrust(t, env, bearer(globbed), trustBody(idp.Issuer, "", "alice/tool", "tool-*", "tool-cli"))
		resp := env.API.PostJSON("/api/trusted-publishers", trustBody(idp.Issuer, "", "alice/tool", "tool-?"), bearer(globbed))
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, `"tool-?" is not among this token's publish packs tool-*`)
		// A token of every scope that never expires makes one that lasts until removed.
		lasting := addTrust(t, env, alice.Bearer(), trustBody(idp.Issuer, "", "alice/all", "*"))
		if lasting["expires_at"] != nil || lasting["created_by"].(map[string]any)["token_id"] == nil {
			t.Errorf("a lasting trusted publisher: %v", lasting)
		}

		list := trustedPublishers(t, env, alice.Bearer(), "")
		if len(list) != 3 || fmt.Sprint(list[0].(map[string]any)["created_by"]) != fmt.Sprint(tp["created_by"]) ||
			list[0].(map[string]any)["expires_at"] != tp["expires_at"] || list[2].(map[string]any)["expires_at"] != nil {
			t.Errorf("GET lists %v", list)
		}

		// Five minutes before the token expires, the exchanged token expires with the trusted publisher.
		expires, err := time.Parse(time.RFC3339, tp["expires_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		env.Clock.Advance(expires.Sub(env.Clock.Now()) - 5*time.Minute)
		job := func() string {
			return idp.Mint("RS256", false, oidctest.GitHubClaims(idp.Issuer, env.URL, "alice/narrow", "release.yml", "refs/heads/main", env.Clock.Now()))
		}
		status, body := exchange(t, env, job())
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		if body["expires_at"] != tp["expires_at"] {
			t.Errorf("the exchanged token expires at %v, want with its trusted publisher at %v", body["expires_at"], tp["expires_at"])
		}
		// Once it has expired, it matches no job.
		env.Clock.Advance(6 * time.Minute)
		status, body = exchange(t, env, job())
		wantError(t, status, body, http.StatusForbidden, "claims check failed")
	})
}

// Creating an organisation and changing its members act on all of it: a
// token limited to some packs may do neither, and nothing changes.
func TestOrgChangesNeedATokenWithoutAPackLimit(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		narrow, _ := issueToken(t, o.Env, o.alice.Bearer(), narrowToken)
		orgOnly, _ := issueToken(t, o.Env, o.alice.Bearer(), map[string]any{"name": "acme only", "scopes": []string{"tokens", "publish"}, "packages": []string{"acme/*"}})
		for _, header := range []string{bearer(narrow), bearer(orgOnly)} {
			resp := o.API.PutJSON("/api/orgs/acme/members/mallory", map[string]any{"role": "owner"}, header)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "so it cannot change an organisation's members")
			resp = o.API.Delete("/api/orgs/acme/members/bob", header)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "so it cannot change an organisation's members")
			resp = o.API.PostJSON("/api/orgs", map[string]any{"name": "evil"}, header)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "so it cannot create an organisation")
		}
		resp := o.API.PutJSON("/api/orgs/acme/members/mallory", map[string]any{"role": "owner"}, bearer(narrow))
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "this token is limited to the packs widget, so it cannot change an organisation's members")
		if m := o.members(t); len(m) != 2 || m["alice"] != "owner" || m["bob"] != "maintainer" {
			t.Errorf("members after the refusals: %v", m)
		}
		wantStatus(t, o.API.Get("/api/orgs/evil").Status, http.StatusNotFound, nil)
	})
}

// trustRemovals are the log's trusted-publisher-remove entries, as
// "owner member id revoked-tokens by".
func trustRemovals(t *testing.T, env *servertest.Env) []string {
	t.Helper()
	st, err := env.Store.LogState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	raws, err := env.Store.LogEntries(t.Context(), 0, st.Entries)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, raw := range raws {
		e, err := translog.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == translog.KindTrustedPublisherRemove {
			out = append(out, strings.Join([]string{e.Get("owner"), e.Get("member"), e.Get("trusted-publisher"), e.Get("revoked-tokens"), e.Get("by")}, " "))
		}
	}
	return out
}

// A removed or demoted owner stops publishing through the trusted
// publishers it added for the organisation: they go with its role, the
// tokens exchanged through them are revoked, and the remaining owners see
// both in the answer and in the log.
func TestRemovedOwnerTakesItsTrustedPublishers(t *testing.T) {
	t.Parallel()
	idp := oidctest.Start(t)
	eachTrustBackend(t, idp, func(t *testing.T, env *servertest.Env) {
		alice, bob, carol := env.CreateUser(t, "alice"), env.CreateUser(t, "bob"), env.CreateUser(t, "carol")
		wantStatus(t, env.API.PostJSON("/api/orgs", map[string]any{"name": "acme"}, alice.Bearer()).Status, http.StatusCreated, nil)
		for _, u := range []string{"bob", "carol"} {
			resp := env.API.PutJSON("/api/orgs/acme/members/"+u, map[string]any{"role": "owner"}, alice.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			if body := resp.JSON(t); fmt.Sprint(body["removed_trusted_publishers"], body["revoked_tokens"]) != "[] []" {
				t.Errorf("promoting %s took away %v", u, body)
			}
		}
		bobs := addTrust(t, env, bob.Bearer(), trustBody(idp.Issuer, "acme", "bob/ci", "*"))
		carols := addTrust(t, env, carol.Bearer(), trustBody(idp.Issuer, "acme", "carol/ci", "*"))
		alices := addTrust(t, env, alice.Bearer(), trustBody(idp.Issuer, "acme", "acme/release", "*"))
		job := func(repo string) string {
			return idp.Mint("RS256", false, oidctest.GitHubClaims(idp.Issuer, env.URL, repo, "release.yml", "refs/heads/main", env.Clock.Now()))
		}
		status, body := exchange(t, env, job("bob/ci"))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		bobsCI := bearer(body["token"].(string))
		publish := func(header, version string) *apitest.Response {
			return env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget", version), "owner": "acme"}, header)
		}
		wantStatus(t, publish(bobsCI, "1.0.0").Status, http.StatusOK, nil)
		status, body = exchange(t, env, job("acme/release"))
		wantStatus(t, status, http.StatusOK, []byte(fmt.Sprint(body)))
		alicesCI := bearer(body["token"].(string))

		resp := env.API.Delete("/api/orgs/acme/members/bob", alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		gone := resp.JSON(t)
		removed := gone["removed_trusted_publishers"].([]any)
		if len(removed) != 1 || removed[0].(map[string]any)["id"] != bobs["id"] ||
			removed[0].(map[string]any)["created_by"].(map[string]any)["username"] != "bob" || len(gone["revoked_tokens"].([]any)) != 1 {
			t.Errorf("removing bob answered %v, want his trusted publisher %v and his CI job's token", gone, bobs["id"])
		}
		// bob's CI job publishes no more, with its token or a new exchange.
		resp = publish(bobsCI, "1.1.0")
		wantStatus(t, resp.Status, http.StatusUnauthorized, resp.Body)
		status, body = exchange(t, env, job("bob/ci"))
		wantError(t, status, body, http.StatusForbidden, "claims check failed")
		// The other owners' trusted publishers and tokens are kept.
		wantStatus(t, publish(alicesCI, "1.2.0").Status, http.StatusOK, nil)
		if list := trustedPublishers(t, env, alice.Bearer(), "acme"); len(list) != 2 {
			t.Errorf("acme keeps %v, want alice's and carol's", list)
		}

		// Demoting carol takes hers, though no token came through it.
		resp = env.API.PutJSON("/api/orgs/acme/members/carol", map[string]any{"role": "maintainer"}, alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		demoted := resp.JSON(t)
		if removed := demoted["removed_trusted_publishers"].([]any); len(removed) != 1 || removed[0].(map[string]any)["id"] != carols["id"] ||
			len(demoted["revoked_tokens"].([]any)) != 0 || demoted["member"].(map[string]any)["role"] != "maintainer" {
			t.Errorf("demoting carol answered %v", demoted)
		}
		if list := trustedPublishers(t, env, alice.Bearer(), "acme"); len(list) != 1 || list[0].(map[string]any)["id"] != alices["id"] {
			t.Errorf("acme keeps %v, want alice's only", list)
		}
		want := []string{fmt.Sprintf("acme bob %v 1 alice", bobs["id"]), fmt.Sprintf("acme carol %v 0 alice", carols["id"])}
		if got := trustRemovals(t, env); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("log = %q, want %q", got, want)
		}

		// An organisation's trusted publisher names its packs without
		// acme/, which a token of the owner names with it.
		acmeWidgets, _ := issueToken(t, env, alice.Bearer(), map[string]any{"name": "acme widgets", "scopes": []string{"tokens", "publish"}, "packages": []string{"acme/widget-*"}})
		addTrust(t, env, bearer(acmeWidgets), trustBody(idp.Issuer, "acme", "acme/widgets", "widget-*", "widget-cli"))
		resp = env.API.PostJSON("/api/trusted-publishers", trustBody(idp.Issuer, "acme", "acme/widgets", "*"), bearer(acmeWidgets))
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, `"acme/*" is not among this token's publish packs acme/widget-*`)
	})
}
