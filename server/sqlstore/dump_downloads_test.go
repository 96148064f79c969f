package sqlstore_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// Download counts survive a dump and restore, across engines: each
// version's count of each day, and each package's total.
func TestDumpRestoreKeepsDownloads(t *testing.T) {
	acrossEngines(t, []string{"alice"}, func(t *testing.T, source *sqlstore.Store, accounts []*registry.Account, to newDSN) {
		ctx := context.Background()
		now := dumpTime
		alice := accounts[0]
		var p *registry.Package
		for _, v := range []string{"1.0.0", "2.0.0"} {
			content := []byte("# widget " + v + "\n")
			in := registry.PublishInput{OwnerID: alice.ID, OwnerSlug: "alice", PackSlug: "widget", Name: "widget", Version: v,
				Content: content, SHA256: sha(content), Now: now, PublisherID: alice.ID}
			var err error
			if p, _, err = registry.PublishVersion(ctx, source, in); err != nil {
				t.Fatal(err)
			}
		}
		vs, err := source.ListVersions(ctx, p.ID)
		if err != nil || len(vs) != 2 {
			t.Fatal(vs, err)
		}
		day := registry.DayOf(now)
		counts := []registry.DownloadCount{
			{PackageID: p.ID, VersionID: vs[0].ID, Day: day - 1, Count: 3},
			{PackageID: p.ID, VersionID: vs[0].ID, Day: day, Count: 4},
			{PackageID: p.ID, VersionID: vs[1].ID, Day: day, Count: 5},
		}
		if err := source.AddDownloads(ctx, counts); err != nil {
			t.Fatal(err)
		}
		restored, target := roundTrip(t, source, to, `"type":"download"`, `"downloads":12`)
		if restored.Downloads != 3 {
			t.Errorf("Restore counts %s, want 3 download counts", restored)
		}
		rp, err := target.PackageBySlug(ctx, "alice", "widget")
		if err != nil || rp.Downloads != 12 {
			t.Fatalf("restored package %+v, %v; want 12 downloads", rp, err)
		}
		wantV, wantD, _ := source.PackageDownloads(ctx, p.ID, day-89)
		gotV, gotD, err := target.PackageDownloads(ctx, rp.ID, day-89)
		if err != nil || !reflect.DeepEqual(gotV, wantV) || !reflect.DeepEqual(gotD, wantD) || len(gotD) != 2 {
			t.Errorf("restored downloads %v %v, %v; want %v %v", gotV, gotD, err, wantV, wantD)
		}
	})
}
