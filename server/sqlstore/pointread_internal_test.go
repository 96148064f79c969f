package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
)

// seedAlicePack makes the account alice and seeds her document pack
// 1.0.0, which it returns.
func seedAlicePack(t *testing.T, s *Store) (*registry.Account, []byte) {
	t.Helper()
	ctx := context.Background()
	owner := &registry.Account{Email: "alice@pact.invalid", Username: "alice", CreatedAt: time.Now()}
	if err := s.CreateAccount(ctx, owner); err != nil {
		t.Fatal(err)
	}
	content := []byte("# pack\n\n```yaml pact:pack\nname: pack\nversion: 1.0.0\nscheme: skill\n```\n")
	sum := sha256.Sum256(content)
	if err := s.Seed(ctx, registry.ReadyAll([]registry.PublishInput{{OwnerID: owner.ID, OwnerSlug: "alice", PackSlug: "pack", Name: "pack",
		Scheme: "skill", Version: "1.0.0", Content: content, SHA256: hex.EncodeToString(sum[:]), Now: time.Now()}})); err != nil {
		t.Fatal(err)
	}
	return owner, content
}

// A raw document's read on a cache miss runs on connections of its own: a
// reader pool held by slow reads does not delay it. When every point
// connection is taken, a read waits at most the statement timeout, then
// fails as Unavailable (503, retry later), and the next read once one is
// free succeeds.
func TestPointReadsHaveTheirOwnConnectionsAndABoundedWait(t *testing.T) {
	ctx := context.Background()
	const timeout = 200 * time.Millisecond
	s := openForTest(t, storetest.SQLiteDSN(t), Options{StatementTimeout: timeout, CacheBytes: -1})
	_, content := seedAlicePack(t, s)

	// Every reader connection held, as long searches would hold them.
	var held []*sql.Conn
	for range s.read.Stats().MaxOpenConnections {
		c, err := s.read.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	if v, err := s.RawDocument(ctx, "alice", "pack", ""); err != nil || string(v.Content) != string(content) {
		t.Fatalf("raw read with every reader held: %v, %v", v, err)
	}
	for _, c := range held {
		c.Close()
	}

	for range pointReaders {
		s.point.slots <- struct{}{}
	}
	start := time.Now()
	_, err := s.RawDocument(ctx, "alice", "pack", "")
	took := time.Since(start)
	if registry.ErrorCode(err) != registry.Unavailable || took < timeout || took > 10*timeout {
		t.Errorf("raw read with every point connection taken: %v after %v, want Unavailable after about %v", err, took, timeout)
	}
	if _, _, err := s.LogFullTile(ctx, 0, 0); registry.ErrorCode(err) != registry.Unavailable {
		t.Errorf("full tile read with every point connection taken: %v, want Unavailable", err)
	}
	<-s.point.slots
	if _, err := s.RawDocument(ctx, "alice", "pack", "1.0.0"); err != nil {
		t.Errorf("raw read once a point connection is free: %v", err)
	}
}
