package sqlstore_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// Organisations survive a dump and restore, across engines: the
// organisation's account (kind, display name), its members and roles, and
// who published each version with which token.
func TestDumpRestoreKeepsOrganisations(t *testing.T) {
	acrossEngines(t, []string{"alice", "bob"}, func(t *testing.T, source *sqlstore.Store, accounts []*registry.Account, to newDSN) {
		ctx := context.Background()
		now := dumpTime
		alice, bob := accounts[0], accounts[1]
		acme := &registry.Account{Username: "acme", DisplayName: "Acme Corp", CreatedAt: now}
		if err := registry.CreateOrg(ctx, source, acme, alice); err != nil {
			t.Fatal(err)
		}
		if _, err := registry.SetOrgMember(ctx, source, registry.NewMemberUpdate(acme, bob, alice, registry.RoleMaintainer, now)); err != nil {
			t.Fatal(err)
		}
		tok := &registry.Token{AccountID: bob.ID, Name: "t", Hash: []byte("0123456789abcdef0123456789abcdef"), CreatedAt: now}
		if err := source.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		content := []byte("# widget\n")
		in := registry.PublishInput{OwnerID: acme.ID, OwnerSlug: "acme", PackSlug: "widget", Name: "widget", Version: "1.0.0",
			Content: content, SHA256: sha(content), Now: now, PublisherID: bob.ID, TokenID: tok.ID}
		if _, _, err := registry.PublishVersion(ctx, source, in); err != nil {
			t.Fatal(err)
		}
		counts, target := roundTrip(t, source, to, `"kind":"org","display_name":"Acme Corp"`, `"type":"org_member"`)
		if counts.Accounts != 3 || counts.OrgMembers != 2 {
			t.Errorf("Restore counts %s, want 3 accounts and 2 organisation members", counts)
		}
		org, err := target.AccountByUsername(ctx, "acme")
		if err != nil || org.Kind != registry.KindOrg || org.DisplayName != "Acme Corp" {
			t.Fatalf("restored acme = %+v, %v", org, err)
		}
		wantMembers, _ := source.OrgMembers(ctx, acme.ID)
		gotMembers, _ := target.OrgMembers(ctx, org.ID)
		if !reflect.DeepEqual(gotMembers, wantMembers) || len(gotMembers) != 2 {
			t.Errorf("restored members %+v, want %+v", gotMembers, wantMembers)
		}
		p, err := target.PackageBySlug(ctx, "acme", "widget")
		if err != nil {
			t.Fatal(err)
		}
		vs, err := target.ListVersions(ctx, p.ID)
		if err != nil || len(vs) != 1 || vs[0].Publisher == nil || vs[0].Publisher.Username != "bob" || vs[0].TokenID != tok.ID {
			t.Errorf("restored version %+v, %v; want published by bob with token %d", vs, err, tok.ID)
		}
		// Membership rules hold on the restored database.
		if _, err := registry.RemoveOrgMember(ctx, target, registry.NewMemberUpdate(org, alice, bob, "", now)); !registry.IsCode(err, registry.Conflict) {
			t.Errorf("removing the last owner after restore: %v, want Conflict", err)
		}
	})
}

// Webhooks survive a dump and restore, across engines, secret and state
// included; their queue of deliveries does not travel.
func TestDumpRestoreKeepsHooks(t *testing.T) {
	acrossEngines(t, []string{"alice"}, func(t *testing.T, source *sqlstore.Store, accounts []*registry.Account, to newDSN) {
		ctx := context.Background()
		now := dumpTime
		alice := accounts[0]
		h := &registry.Hook{OwnerID: alice.ID, Owner: "alice", Package: "widget", URL: "https://hooks.example.com/x",
			Secret: "dump-secret-0123456789", Events: []string{"publish", "yank"}, CreatedBy: alice.ID, CreatedAt: now}
		if err := registry.StoreHook(ctx, source, h); err != nil {
			t.Fatal(err)
		}
		content := []byte("# widget\n")
		in := registry.PublishInput{OwnerID: alice.ID, OwnerSlug: "alice", PackSlug: "widget", Name: "widget", Version: "1.0.0",
			Content: content, SHA256: sha(content), Now: now, PublisherID: alice.ID}
		if _, _, err := registry.PublishVersion(ctx, source, in); err != nil {
			t.Fatal(err)
		}
		if d, _ := source.ListHookDeliveries(ctx, h.ID, 50); len(d) != 1 {
			t.Fatalf("the publish queued %d deliveries, want 1", len(d))
		}
		counts, target := roundTrip(t, source, to, `"type":"hook"`, `"secret":"dump-secret-0123456789"`)
		if counts.Hooks != 1 {
			t.Errorf("Restore counts %s, want 1 webhook", counts)
		}
		got, err := target.HookByID(ctx, h.ID)
		if err != nil || got.Secret != h.Secret || got.URL != h.URL || !reflect.DeepEqual(got.Events, h.Events) || got.Owner != "alice" {
			t.Fatalf("restored hook %+v, %v; want %+v", got, err, h)
		}
		if d, _ := target.ListHookDeliveries(ctx, h.ID, 50); len(d) != 0 {
			t.Errorf("the restored hook has %d deliveries, want none", len(d))
		}
		// Its id's sequence moved on: a new hook gets a new id.
		next := &registry.Hook{OwnerID: got.OwnerID, Owner: "alice", URL: "https://hooks.example.com/y", Secret: h.Secret, Events: []string{"key"}, CreatedBy: got.OwnerID, CreatedAt: now}
		if err := registry.StoreHook(ctx, target, next); err != nil || next.ID == h.ID {
			t.Errorf("a new hook after restore: id %d, %v", next.ID, err)
		}
	})
}
