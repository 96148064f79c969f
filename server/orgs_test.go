package server_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/apitest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/sshtest"
	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

const testIssuer = "https://token.actions.githubusercontent.com"

// orgEnv is a server with the organisation acme: alice its owner, bob a
// maintainer, mallory no member.
type orgEnv struct {
	*servertest.Env
	alice, bob, mallory *servertest.User
}

func startOrg(t *testing.T, dsn string) orgEnv {
	t.Helper()
	return startOrgWith(t, dsn, servertest.Options{})
}

// startOrgWith is startOrg on a server with opts (and testIssuer).
func startOrgWith(t *testing.T, dsn string, opts servertest.Options) orgEnv {
	t.Helper()
	opts.OIDCIssuers = append(opts.OIDCIssuers, testIssuer)
	env := servertest.Start(t, dsn, opts)
	o := orgEnv{Env: env, alice: env.CreateUser(t, "alice"), bob: env.CreateUser(t, "bob"), mallory: env.CreateUser(t, "mallory")}
	resp := env.API.PostJSON("/api/orgs", map[string]any{"name": "Acme", "display_name": "Acme Corp"}, o.alice.Bearer())
	wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
	org := resp.JSON(t)["org"].(map[string]any)
	if org["name"] != "acme" || org["display_name"] != "Acme Corp" {
		t.Fatalf("created %v, want acme named Acme Corp", org)
	}
	resp = env.API.PutJSON("/api/orgs/acme/members/bob", map[string]any{"role": "maintainer"}, o.alice.Bearer())
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	return o
}

func (o orgEnv) publish(t *testing.T, u *servertest.User, body map[string]any) *apitest.Response {
	t.Helper()
	return o.API.PostJSON("/api/publish", body, u.Bearer())
}

// members answers GET /api/orgs/acme/members as username → role.
func (o orgEnv) members(t *testing.T) map[string]string {
	t.Helper()
	resp := o.API.Get("/api/orgs/acme/members")
	wantStatus(t, resp.Status, http.StatusOK, resp.Body)
	out := map[string]string{}
	for _, m := range resp.JSON(t)["members"].([]any) {
		m := m.(map[string]any)
		out[m["username"].(string)] = m["role"].(string)
	}
	return out
}

// Every route that acts on an organisation's packages or members, asked
// by its owner, a maintainer and a non-member: owners do everything,
// maintainers publish and yank, non-members nothing, and every refusal
// names the organisation and stores nothing.
func TestOrgRolesOnEveryRoute(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)

		// Public reads.
		resp := o.API.Get("/api/orgs/acme")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if got := o.members(t); got["alice"] != "owner" || got["bob"] != "maintainer" || len(got) != 2 {
			t.Fatalf("members = %v", got)
		}
		wantStatus(t, o.API.Get("/api/orgs/alice").Status, http.StatusNotFound, nil)
		wantStatus(t, o.API.Get("/api/orgs/nobody/members").Status, http.StatusNotFound, nil)

		// Publish: the owner and the maintainer, by owner or owner/pack.
		resp = o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.0"), "owner": "acme"})
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		if pkg := resp.JSON(t)["package"].(map[string]any); pkg["owner_slug"] != "acme" {
			t.Fatalf("published into %v, want acme", pkg["owner_slug"])
		}
		resp = o.publish(t, o.alice, map[string]any{"content": packDoc("widget", "1.1.0"), "name": "acme/widget"})
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = o.API.PostMultipart("/api/publish", map[string]string{"owner": "acme"},
			map[string]apitest.FileField{"file": {Name: "gadget.pact.md", Content: []byte(packDoc("gadget", "0.1.0"))}}, o.bob.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)

		// A non-member: 403 naming the organisation, nothing stored.
		for _, body := range []map[string]any{
			{"content": packDoc("widget", "2.0.0"), "owner": "acme"},
			{"content": packDoc("intruder", "1.0.0"), "name": "acme/intruder"},
		} {
			resp = o.publish(t, o.mallory, body)
			wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "not a member of the organisation acme")
		}
		wantStatus(t, o.API.Get("/api/packages/acme/intruder").Status, http.StatusNotFound, nil)
		resp = o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.0"), "owner": "nobody"})
		wantError(t, resp.Status, resp.JSON(t), http.StatusNotFound, "no user or organisation nobody")
		var d detailAnswer
		resp = o.API.Get("/api/packages/acme/widget")
		resp.Decode(t, &d)
		if len(d.Versions) != 2 || d.Package.Version != "1.1.0" {
			t.Fatalf("acme/widget = %+v, want 1.0.0 and 1.1.0 only", d)
		}
		// Into another user's namespace: refused as before.
		resp = o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.0"), "owner": "alice"})
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "only alice may publish")
		resp = o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.0"), "owner": "acme", "name": "other/widget"})
		wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "differ")

		// Yank and un-yank: owner and maintainer.
		yank := "/api/packages/acme/widget/versions/1.0.0/"
		wantStatus(t, o.API.PostJSON(yank+"yank", map[string]any{}, o.bob.Bearer()).Status, http.StatusOK, nil)
		wantStatus(t, o.API.PostJSON(yank+"unyank", map[string]any{}, o.alice.Bearer()).Status, http.StatusOK, nil)
		resp = o.API.PostJSON(yank+"yank", map[string]any{}, o.mallory.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "organisation acme")

		// Deprecate: owners only.
		dep := "/api/packages/acme/widget/deprecate"
		resp = o.API.PostJSON(dep, map[string]any{"message": "use gadget"}, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "only owners of the organisation acme")
		resp = o.API.PostJSON(dep, map[string]any{"message": "use gadget"}, o.mallory.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "not a member of the organisation acme")
		wantStatus(t, o.API.PostJSON(dep, map[string]any{"message": "use gadget"}, o.alice.Bearer()).Status, http.StatusOK, nil)

		// Trusted publishers of the organisation: owners only.
		tp := map[string]any{"owner": "acme", "issuer": testIssuer, "packages": []string{"widget"}, "claims": map[string]string{"repository": "acme/widget"}}
		resp = o.API.PostJSON("/api/trusted-publishers", tp, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "only owners of the organisation acme")
		resp = o.API.PostJSON("/api/trusted-publishers", tp, o.mallory.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "organisation acme")
		resp = o.API.PostJSON("/api/trusted-publishers", tp, o.alice.Bearer())
		wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
		tpID := int64(resp.JSON(t)["id"].(float64))
		resp = o.API.Get("/api/trusted-publishers?owner=acme", o.alice.Bearer())
		if n := len(resp.JSON(t)["trusted_publishers"].([]any)); n != 1 {
			t.Fatalf("acme has %d trusted publishers, want 1", n)
		}
		if n := len(o.API.Get("/api/trusted-publishers", o.alice.Bearer()).JSON(t)["trusted_publishers"].([]any)); n != 0 {
			t.Fatalf("alice's own trusted publishers: %d, want 0", n)
		}
		wantStatus(t, o.API.Get("/api/trusted-publishers?owner=acme", o.bob.Bearer()).Status, http.StatusForbidden, nil)
		wantStatus(t, o.API.Delete("/api/trusted-publishers/"+itoa(tpID)+"?owner=acme", o.bob.Bearer()).Status, http.StatusForbidden, nil)
		wantStatus(t, o.API.Delete("/api/trusted-publishers/"+itoa(tpID), o.alice.Bearer()).Status, http.StatusNotFound, nil)
		wantStatus(t, o.API.Delete("/api/trusted-publishers/"+itoa(tpID)+"?owner=acme", o.alice.Bearer()).Status, http.StatusOK, nil)

		// Members: owners only.
		resp = o.API.PutJSON("/api/orgs/acme/members/mallory", map[string]any{"role": "owner"}, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "only owners of the organisation acme")
		resp = o.API.PutJSON("/api/orgs/acme/members/mallory", map[string]any{"role": "owner"}, o.mallory.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "not a member of the organisation acme")
		wantStatus(t, o.API.Delete("/api/orgs/acme/members/alice", o.bob.Bearer()).Status, http.StatusForbidden, nil)
		resp = o.API.PutJSON("/api/orgs/acme/members/bob", map[string]any{"role": "admin"}, o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "owner or maintainer")
		resp = o.API.PutJSON("/api/orgs/acme/members/acme", map[string]any{"role": "owner"}, o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "is an organisation")
		wantStatus(t, o.API.PutJSON("/api/orgs/acme/members/nobody", map[string]any{"role": "owner"}, o.alice.Bearer()).Status, http.StatusNotFound, nil)
		wantStatus(t, o.API.Delete("/api/orgs/acme/members/mallory", o.alice.Bearer()).Status, http.StatusNotFound, nil)
		if got := o.members(t); len(got) != 2 {
			t.Fatalf("refused changes changed the members: %v", got)
		}

		// Who published what, and how, on the API.
		resp = o.API.Get("/api/packages/acme/gadget")
		v := resp.JSON(t)["versions"].([]any)[0].(map[string]any)
		by, _ := v["published_by"].(map[string]any)
		if by["username"] != "bob" || by["auth"] != "token" || by["token_id"] == nil {
			t.Errorf("published_by = %v, want bob with a token", v["published_by"])
		}
		resp = o.API.Get("/api/orgs/acme")
		if n := resp.JSON(t)["org"].(map[string]any)["packages"]; n != float64(2) {
			t.Errorf("acme has %v packages, want 2", n)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// An organisation always keeps an owner; removing a member stops its
// publishing at once.
func TestOrgLastOwnerAndRemoval(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		resp := o.API.PutJSON("/api/orgs/acme/members/alice", map[string]any{"role": "maintainer"}, o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict, "last owner")
		resp = o.API.Delete("/api/orgs/acme/members/alice", o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict, "last owner")

		// With a second owner, the first may step down and leave.
		wantStatus(t, o.API.PutJSON("/api/orgs/acme/members/bob", map[string]any{"role": "owner"}, o.alice.Bearer()).Status, http.StatusOK, nil)
		wantStatus(t, o.API.PutJSON("/api/orgs/acme/members/alice", map[string]any{"role": "maintainer"}, o.alice.Bearer()).Status, http.StatusOK, nil)
		resp = o.API.Delete("/api/orgs/acme/members/bob", o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict, "last owner")
		wantStatus(t, o.publish(t, o.alice, map[string]any{"content": packDoc("widget", "1.0.0"), "owner": "acme"}).Status, http.StatusOK, nil)
		wantStatus(t, o.API.Delete("/api/orgs/acme/members/alice", o.bob.Bearer()).Status, http.StatusOK, nil)
		if got := o.members(t); len(got) != 1 || got["bob"] != "owner" {
			t.Fatalf("members = %v, want bob the owner alone", got)
		}
		resp = o.publish(t, o.alice, map[string]any{"content": packDoc("widget", "1.0.1"), "owner": "acme"})
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "not a member of the organisation acme")

		// Every change is in the transparency log.
		ctx := context.Background()
		st, err := o.Store.LogState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := o.Store.LogEntries(ctx, 0, st.Entries)
		if err != nil {
			t.Fatal(err)
		}
		var events []string
		for _, raw := range entries {
			e, err := translog.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if e.Kind == translog.KindMember || e.Kind == translog.KindMemberRemove {
				m, _ := e.MemberEvent()
				events = append(events, e.Kind+" "+m.Owner+" "+m.Member+" "+m.Role+" by "+m.By)
			}
		}
		want := []string{
			"member acme alice owner by alice", "member acme bob maintainer by alice",
			"member acme bob owner by alice", "member acme alice maintainer by alice", "member-remove acme alice  by bob",
		}
		if strings.Join(events, "\n") != strings.Join(want, "\n") {
			t.Errorf("member events:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
		}
	})
}

// Users and organisations share one namespace, both ways; an
// organisation cannot log in or hold tokens or keys.
// The operator disables an organisation: its members can no longer act
// for it, and enabling it gives them their rights back.
func TestOrgDisabledByTheOperator(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		wantStatus(t, o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.0"), "owner": "acme"}).Status, http.StatusOK, nil)
		ctx := context.Background()
		if _, _, err := o.Service.DisableAccount(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
		resp := o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.1"), "owner": "acme"})
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "the organisation acme is disabled")
		resp = o.API.PostJSON("/api/packages/acme/widget/versions/1.0.0/yank", map[string]any{}, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "the organisation acme is disabled")
		resp = o.API.PutJSON("/api/orgs/acme/members/mallory", map[string]any{"role": "owner"}, o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "the organisation acme is disabled")
		// Its members' own namespaces are not touched.
		wantStatus(t, o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.0")}).Status, http.StatusOK, nil)
		// Nothing was stored for acme.
		detail := o.API.Get("/api/packages/acme/widget")
		wantStatus(t, detail.Status, http.StatusOK, detail.Body)
		if versions, _ := detail.JSON(t)["versions"].([]any); len(versions) != 1 {
			t.Errorf("acme/widget has %d versions after a refused publish, want 1", len(versions))
		}

		if _, err := o.Service.EnableAccount(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, o.publish(t, o.bob, map[string]any{"content": packDoc("widget", "1.0.1"), "owner": "acme"}).Status, http.StatusOK, nil)
	})
}

func TestOrgNamespaceAndWhatAnOrgCannotDo(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		ctx := context.Background()
		resp := o.API.PostJSON("/api/orgs", map[string]any{"name": "bob"}, o.alice.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict, "taken")
		resp = o.API.PostJSON("/api/orgs", map[string]any{"name": "ACME"}, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusConflict, "taken")
		resp = o.API.PostJSON("/api/orgs", map[string]any{"name": "api"}, o.bob.Bearer())
		wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, "reserved")
		resp = o.API.PostJSON("/api/orgs", map[string]any{"name": "beta", "members": []string{"x"}}, o.bob.Bearer())
		wantStatus(t, resp.Status, http.StatusBadRequest, resp.Body)
		if _, err := o.Service.CreateAccount(ctx, "acme@example.com", "acme", "long enough password"); !registry.IsCode(err, registry.Conflict) {
			t.Fatalf("a user named like an organisation: %v, want Conflict", err)
		}
		// Two organisations need no email each.
		wantStatus(t, o.API.PostJSON("/api/orgs", map[string]any{"name": "beta"}, o.bob.Bearer()).Status, http.StatusCreated, nil)

		org, err := o.Service.AccountByUsername(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Service.Login(ctx, "acme", ""); !registry.IsCode(err, registry.Unauthorized) {
			t.Errorf("log-in as an organisation: %v, want Unauthorized", err)
		}
		if _, _, err := o.Service.CreateToken(ctx, org.ID, "t", nil); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a token for an organisation: %v, want Forbidden", err)
		}
		if _, _, err := o.Service.IssueToken(ctx, org.ID, nil, registry.TokenSpec{Name: "t"}); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a token issued to an organisation: %v, want Forbidden", err)
		}
		dir := t.TempDir()
		_, pub := sshtest.GenerateKey(t, dir, "ed25519", 0)
		if _, err := o.Service.AddSSHKey(ctx, org.ID, readPub(t, pub), "k"); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a key for an organisation: %v, want Forbidden", err)
		}
		if _, _, err := o.Service.SetPassword(ctx, "acme", "long enough password"); !registry.IsCode(err, registry.Forbidden) {
			t.Errorf("a password for an organisation: %v, want Forbidden", err)
		}
	})
}

// A token limited to acme/* publishes into acme only; a glob without an
// organisation covers the holder's own packs only.
func TestOrgScopedTokens(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		resp := o.API.PostJSON("/api/tokens", map[string]any{"name": "ci", "scopes": []string{"publish", "yank"}, "packages": []string{"acme/widget-*"}}, o.bob.Bearer())
		wantStatus(t, resp.Status, http.StatusCreated, resp.Body)
		scoped := "Authorization: Bearer " + resp.JSON(t)["token"].(string)
		wantStatus(t, o.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget-a", "1.0.0"), "owner": "acme"}, scoped).Status, http.StatusOK, nil)
		resp = o.API.PostJSON("/api/publish", map[string]any{"content": packDoc("gadget", "1.0.0"), "owner": "acme"}, scoped)
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, `"acme/gadget" is not one of them`)
		resp = o.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget-a", "1.0.0")}, scoped)
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, `"widget-a" is not one of them`)
		wantStatus(t, o.API.PostJSON("/api/packages/acme/widget-a/versions/1.0.0/yank", map[string]any{}, scoped).Status, http.StatusOK, nil)

		// A glob without an organisation keeps to bob's own packs.
		resp = o.API.PostJSON("/api/tokens", map[string]any{"name": "own", "scopes": []string{"publish"}, "packages": []string{"widget-*"}}, o.bob.Bearer())
		own := "Authorization: Bearer " + resp.JSON(t)["token"].(string)
		resp = o.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget-b", "1.0.0"), "owner": "acme"}, own)
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "acme/widget-b")
		wantStatus(t, o.API.PostJSON("/api/publish", map[string]any{"content": packDoc("widget-b", "1.0.0")}, own).Status, http.StatusOK, nil)
		resp = o.API.PostJSON("/api/tokens", map[string]any{"name": "bad", "scopes": []string{"publish"}, "packages": []string{"ac*/x"}}, o.bob.Bearer())
		wantStatus(t, resp.Status, http.StatusBadRequest, resp.Body)
	})
}

// The signed name line acme/widget names the namespace: a member's key
// publishes into it, a non-member's is refused and stores nothing.
func TestOrgSignedPublish(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		dir := t.TempDir()
		bobPriv, bobPub := sshtest.GenerateKey(t, dir, "ed25519", 0)
		malDir := filepath.Join(dir, "m")
		malPriv, malPub := sshtest.GenerateKey(t, mkdir(t, malDir), "ed25519", 0)
		bobKey := registerKey(t, o.Env, o.bob, bobPriv, bobPub)
		malKey := registerKey(t, o.Env, o.mallory, malPriv, malPub)
		now := o.Clock.Now().Add(time.Second).Unix()
		o.Clock.Advance(2 * time.Second)
		doc := packDoc("widget", "1.0.0")

		resp := o.API.PostJSON("/api/publish-signed", signedBody(t, malKey, now, "nonce-mallory-0001", doc, "acme/widget", ""))
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, "not a member of the organisation acme")
		wantStatus(t, o.API.Get("/api/packages/acme/widget").Status, http.StatusNotFound, nil)

		resp = o.API.PostJSON("/api/publish-signed", signedBody(t, bobKey, now, "nonce-bob-000000001", doc, "acme/widget", ""))
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		resp = o.API.Get("/api/packages/acme/widget")
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		v := resp.JSON(t)["versions"].([]any)[0].(map[string]any)
		sig := v["signature"].(map[string]any)
		by := v["published_by"].(map[string]any)
		if sig["signed_name"] != "acme/widget" || v["name"] != "widget" || by["username"] != "bob" || by["auth"] != "ssh-signature" || by["token_id"] != nil {
			t.Errorf("version = %v", v)
		}
		// /acme.keys lists the keys of the members who may publish.
		resp = o.API.Get("/acme.keys")
		if body := string(resp.Body); !strings.Contains(body, strings.Fields(readPub(t, bobPub))[1]) || strings.Contains(body, strings.Fields(readPub(t, malPub))[1]) {
			t.Errorf("/acme.keys = %s", body)
		}
	})
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A glob of one's own namespace never reaches an organisation's packs: the
// owner part and the pack part are matched apart, and a glob naming no
// pack or a pattern of organisations is refused.
func TestOwnGlobDoesNotReachAnOrganisation(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		own := makeToken(t, o.Env, o.bob.Bearer(), map[string]any{"name": "own", "scopes": []string{"publish"}, "packages": []string{"acme[^x]*"}})
		resp := o.API.PostJSON("/api/publish", map[string]any{"content": packDoc("rocket", "1.0.0"), "owner": "acme"}, bearer(own))
		wantError(t, resp.Status, resp.JSON(t), http.StatusForbidden, `"acme/rocket" is not one of them`)
		wantStatus(t, o.API.Get("/api/packages/acme/rocket").Status, http.StatusNotFound, nil)
		wantStatus(t, o.API.PostJSON("/api/publish", map[string]any{"content": packDoc("acmeco", "1.0.0")}, bearer(own)).Status, http.StatusOK, nil)

		for glob, says := range map[string]string{
			"acme/":     "names no pack after the organisation",
			"ac[m]e/x":  "has a pattern in its organisation's name",
			"a?me/*":    "has a pattern in its organisation's name",
			"*/widget":  "has a pattern in its organisation's name",
			"acme/ x/y": "may hold only",
		} {
			resp := o.API.PostJSON("/api/tokens", map[string]any{"name": "bad", "scopes": []string{"publish"}, "packages": []string{glob}}, o.bob.Bearer())
			wantError(t, resp.Status, resp.JSON(t), http.StatusBadRequest, says)
		}
	})
}

// GET /api/orgs lists the caller's organisations, by name, with its role
// in each; an account in none gets an empty list, and no token a 401.
func TestMyOrgsListsTheCallersOrganisations(t *testing.T) {
	t.Parallel()
	servertest.Backends(t, func(t *testing.T, dsn string) {
		o := startOrg(t, dsn)
		resp := o.API.PostJSON("/api/orgs", map[string]any{"name": "beta"}, o.bob.Bearer())
		wantStatus(t, resp.Status, http.StatusCreated, resp.Body)

		mine := func(u *servertest.User) []string {
			t.Helper()
			resp := o.API.Get("/api/orgs", u.Bearer())
			wantStatus(t, resp.Status, http.StatusOK, resp.Body)
			var got []string
			for _, m := range resp.JSON(t)["orgs"].([]any) {
				m := m.(map[string]any)
				if _, err := time.Parse(time.RFC3339, m["added_at"].(string)); err != nil {
					t.Errorf("added_at %v: %v", m["added_at"], err)
				}
				got = append(got, m["name"].(string)+" "+m["role"].(string))
			}
			return got
		}
		if got := strings.Join(mine(o.alice), ", "); got != "acme owner" {
			t.Errorf("alice's organisations: %q, want acme owner", got)
		}
		if got := strings.Join(mine(o.bob), ", "); got != "acme maintainer, beta owner" {
			t.Errorf("bob's organisations: %q, want acme maintainer, beta owner", got)
		}
		if got := mine(o.mallory); len(got) != 0 {
			t.Errorf("mallory's organisations: %q, want none", got)
		}
		resp = o.API.Get("/api/orgs")
		wantStatus(t, resp.Status, http.StatusUnauthorized, resp.Body)
	})
}
