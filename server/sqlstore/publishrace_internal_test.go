package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
)

// On PostgreSQL, a publish whose package row is locked by another publish
// waits for it, then decides the latest against what that publish
// committed. Here transaction A has published 2.0.0 and not committed when
// B publishes 1.5.0 of the same package; B must wait, see 2.0.0 and leave
// it the latest. (Reading the latest through a subquery of the waiting
// UPDATE saw the versions table as it was before A committed, and made
// 1.5.0 the latest.)
func TestPostgresPublishThatWaitsDecidesAgainstWhatItWaitedFor(t *testing.T) {
	s := openForTest(t, storetest.PostgresURL(t), Options{})
	ctx := context.Background()
	alice := &registry.Account{Email: "alice@example.com", Username: "alice", CreatedAt: time.Now()}
	if err := s.CreateAccount(ctx, alice); err != nil {
		t.Fatal(err)
	}
	in := func(version string) registry.PublishInput {
		content := fmt.Sprintf("# foo %s\n", version)
		sum := sha256.Sum256([]byte(content))
		return registry.PublishInput{OwnerID: alice.ID, OwnerSlug: "alice", PackSlug: "foo", Name: "foo",
			Description: "described by " + version, Scheme: "skill", Version: version, Content: []byte(content),
			SHA256: hex.EncodeToString(sum[:]), Now: time.Now()}
	}
	if _, _, err := registry.PublishVersion(ctx, s, in("1.0.0")); err != nil {
		t.Fatal(err)
	}

	txA, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer txA.Rollback()
	if _, created, err := registry.PublishVersion(ctx, heldTx{s, txA}, in("2.0.0")); err != nil || !created {
		t.Fatalf("A: created %v, %v", created, err)
	}

	done := make(chan error, 1)
	go func() {
		_, _, err := registry.PublishVersion(ctx, s, in("1.5.0"))
		done <- err
	}()
	// A commits only once B waits for its lock.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("B finished without waiting for A: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("B never waited for A's lock")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := txA.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("B: %v", err)
	}

	pkg, err := s.PackageBySlug(ctx, "alice", "foo")
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Version != "2.0.0" || pkg.Description != "described by 2.0.0" {
		t.Errorf("latest is %s (%q), want 2.0.0", pkg.Version, pkg.Description)
	}
	doc, err := s.RawDocument(ctx, "alice", "foo", "")
	if err != nil || doc.Version != "2.0.0" {
		t.Errorf("latest document %+v, %v; want 2.0.0", doc, err)
	}
}

// heldTx runs the domain's changes in a transaction the test holds open
// (and commits itself).
type heldTx struct {
	s  *Store
	tx *sql.Tx
}

func (h heldTx) Tx(ctx context.Context, fn func(registry.Tx) error) error {
	return fn(&txn{s: h.s, ctx: ctx, tx: h.tx})
}
