package sqlstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// benchDocument is about the size of a typical pack document (2.8 KB).
func benchDocument(pack, version string) registry.PublishInput {
	content := "# " + pack + "\n\n```yaml pact:pack\nname: " + pack + "\nversion: " + version + "\n```\n\n" +
		strings.Repeat("Some prose about the pack and how to use it. ", 60)
	sum := sha256.Sum256([]byte(content))
	return registry.PublishInput{
		PackSlug: pack, Name: pack, Description: "A pack for benchmarks, number " + pack, Scheme: "skill",
		Version: version, Content: []byte(content), SHA256: hex.EncodeToString(sum[:]), Now: time.Now(),
	}
}

// benchStore opens a fresh store holding one account and packages packs.
func benchStore(b *testing.B, dsn string, packages int) (*sqlstore.Store, *registry.Account) {
	b.Helper()
	s := open(b, dsn, sqlstore.Options{})
	ctx := context.Background()
	alice := &registry.Account{Username: "alice", Email: "alice@example.com", CreatedAt: time.Now()}
	if err := s.CreateAccount(ctx, alice); err != nil {
		b.Fatal(err)
	}
	for i := range packages {
		in := benchDocument(fmt.Sprintf("pack-%04d", i), "1.0.0")
		in.OwnerID, in.OwnerSlug = alice.ID, alice.Username
		if _, _, err := s.Publish(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	return s, alice
}

// BenchmarkPublish measures one signed publish of a new version: nonce,
// package upsert, version insert and latest update in one transaction.
func BenchmarkPublish(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend.name, func(b *testing.B) {
			s, alice := benchStore(b, backend.dsn(b), 0)
			ctx := context.Background()
			key := &registry.SSHKey{AccountID: alice.ID, Name: "bench", Type: "ssh-ed25519", Fingerprint: "SHA256:bench", PublicKey: "ssh-ed25519 AAAA", CreatedAt: time.Now()}
			if err := s.CreateSSHKey(ctx, key); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				in := benchDocument(fmt.Sprintf("pack-%d", i%50), fmt.Sprintf("1.0.%d", i))
				in.OwnerID, in.OwnerSlug = alice.ID, alice.Username
				in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: in.Now.Unix(),
					Nonce: fmt.Sprintf("nonce-%016d", i), Signature: "-----BEGIN SSH SIGNATURE-----"}
				if _, created, err := s.Publish(ctx, in); err != nil || !created {
					b.Fatalf("Publish: created %v, %v", created, err)
				}
				i++
			}
		})
	}
}

// BenchmarkListPackages measures pages of a 1,000-package registry; a deep
// page must cost what the first costs (keyset paging).
func BenchmarkListPackages(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend.name, func(b *testing.B) {
			s, _ := benchStore(b, backend.dsn(b), 1000)
			ctx := context.Background()
			first, err := s.ListPackages(ctx, registry.PackageFilter{Limit: 1000})
			if err != nil {
				b.Fatal(err)
			}
			deep := first[900].LatestVersionID
			cases := []struct {
				name   string
				filter registry.PackageFilter
			}{
				{"first page", registry.PackageFilter{Limit: 21}},
				{"deep page", registry.PackageFilter{Limit: 21, Before: deep}},
				{"owner", registry.PackageFilter{Limit: 21, Owner: "alice"}},
				{"query", registry.PackageFilter{Limit: 21, Query: "number 09"}},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := s.ListPackages(ctx, c.filter); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkVersionDocument measures the raw-document read behind
// /raw/{owner}/{pack}.pact.md, the hottest route.
func BenchmarkVersionDocument(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend.name, func(b *testing.B) {
			s, _ := benchStore(b, backend.dsn(b), 100)
			ctx := context.Background()
			for _, version := range []string{"", "1.0.0"} {
				name := "latest"
				if version != "" {
					name = "pinned"
				}
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						if _, err := s.VersionDocument(ctx, "alice", "pack-0042", version); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkPublishConcurrent measures token publishes of new versions from
// 32 goroutines at once, as a CI fleet sends them: on SQLite they share
// transactions (one fsync per batch, synchronous=FULL).
func BenchmarkPublishConcurrent(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend.name, func(b *testing.B) {
			s, alice := benchStore(b, backend.dsn(b), 0)
			ctx := context.Background()
			var next atomic.Int64
			b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1)
					in := benchDocument(fmt.Sprintf("pack-%d", i%64), fmt.Sprintf("1.0.%d", i))
					in.OwnerID, in.OwnerSlug = alice.ID, alice.Username
					if _, created, err := s.Publish(ctx, in); err != nil || !created {
						b.Errorf("Publish: created %v, %v", created, err)
						return
					}
				}
			})
		})
	}
}
