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

	"github.com/pact-registry/pact/internal/storetest"
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
func benchStore(b *testing.B, dsn string, packages int, opts ...sqlstore.Options) (*sqlstore.Store, *registry.Account) {
	b.Helper()
	s := open(b, dsn, append(opts, sqlstore.Options{})[0])
	ctx := context.Background()
	alice := &registry.Account{Username: "alice", Email: "alice@example.com", CreatedAt: time.Now()}
	if err := s.CreateAccount(ctx, alice); err != nil {
		b.Fatal(err)
	}
	for i := range packages {
		in := benchDocument(fmt.Sprintf("pack-%04d", i), "1.0.0")
		in.OwnerID, in.OwnerSlug = alice.ID, alice.Username
		if _, _, err := registry.PublishVersion(ctx, s, in); err != nil {
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
			if err := registry.CreateSSHKey(ctx, s, key, alice.Username); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				in := benchDocument(fmt.Sprintf("pack-%d", i%50), fmt.Sprintf("1.0.%d", i))
				in.OwnerID, in.OwnerSlug = alice.ID, alice.Username
				in.Provenance = &registry.Provenance{KeyID: key.ID, Fingerprint: key.Fingerprint, Timestamp: in.Now.Unix(),
					Nonce: fmt.Sprintf("nonce-%016d", i), Signature: "-----BEGIN SSH SIGNATURE-----"}
				if _, created, err := registry.PublishVersion(ctx, s, in); err != nil || !created {
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
	for _, variant := range benchVariants {
		b.Run(variant.name, func(b *testing.B) {
			s, _ := benchStore(b, variant.dsn(b), 1000, variant.opts)
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
	for _, variant := range benchVariants {
		b.Run(variant.name, func(b *testing.B) {
			s, _ := benchStore(b, variant.dsn(b), 100, variant.opts)
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
					if _, created, err := registry.PublishVersion(ctx, s, in); err != nil || !created {
						b.Errorf("Publish: created %v, %v", created, err)
						return
					}
				}
			})
		})
	}
}

// benchVariants are the backends as pactd runs them, and SQLite without its
// read cache: documents and first pages on SQLite come from memory, and
// "sqlite-nocache" shows what the database costs.
var benchVariants = []struct {
	name string
	dsn  func(testing.TB) string
	opts sqlstore.Options
}{
	{"sqlite", storetest.SQLiteDSN, sqlstore.Options{}},
	{"sqlite-nocache", storetest.SQLiteDSN, sqlstore.Options{CacheBytes: -1}},
	{"postgres", storetest.PostgresURL, sqlstore.Options{}},
}

// BenchmarkStoreOperations measures every other Store call once, on a
// registry of 100 packages.
func BenchmarkStoreOperations(b *testing.B) {
	for _, variant := range benchVariants {
		b.Run(variant.name, func(b *testing.B) {
			s := open(b, variant.dsn(b), variant.opts)
			ctx := context.Background()
			now := time.Now()
			alice := &registry.Account{Username: "alice", Email: "alice@example.com", CreatedAt: now}
			if err := s.CreateAccount(ctx, alice); err != nil {
				b.Fatal(err)
			}
			var pkg *registry.Package
			for i := range 100 {
				in := benchDocument(fmt.Sprintf("pack-%04d", i), "1.0.0")
				in.OwnerID, in.OwnerSlug = alice.ID, alice.Username
				p, _, err := registry.PublishVersion(ctx, s, in)
				if err != nil {
					b.Fatal(err)
				}
				pkg = p
			}
			token := &registry.Token{AccountID: alice.ID, Name: "ci", Hash: []byte("token-hash-0000000000000000000000"), CreatedAt: now}
			if err := s.CreateToken(ctx, token); err != nil {
				b.Fatal(err)
			}
			key := &registry.SSHKey{AccountID: alice.ID, Name: "laptop", Type: "ssh-ed25519", Fingerprint: "SHA256:laptop",
				PublicKey: "ssh-ed25519 AAAA", CreatedAt: now}
			if err := registry.CreateSSHKey(ctx, s, key, alice.Username); err != nil {
				b.Fatal(err)
			}
			session := &registry.Session{AccountID: alice.ID, Hash: []byte("session-hash"), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
			if err := registry.CreateSession(ctx, s, session); err != nil {
				b.Fatal(err)
			}
			seeded := 0
			ops := []struct {
				name string
				run  func(i int) error
			}{
				{"Ping", func(int) error { return s.Ping(ctx) }},
				{"AccountByID", func(int) error { _, err := s.AccountByID(ctx, alice.ID); return err }},
				{"AccountByUsername", func(int) error { _, err := s.AccountByUsername(ctx, "Alice"); return err }},
				{"AccountByEmail", func(int) error { _, err := s.AccountByEmail(ctx, "alice@example.com"); return err }},
				{"CreateAccount", func(i int) error {
					name := fmt.Sprintf("user-%d", i)
					return s.CreateAccount(ctx, &registry.Account{Username: name, Email: name + "@example.com", CreatedAt: now})
				}},
				{"CreateToken", func(i int) error {
					return s.CreateToken(ctx, &registry.Token{AccountID: alice.ID, Name: "t", Hash: fmt.Appendf(nil, "hash-%d", i), CreatedAt: now})
				}},
				{"TokenHolder", func(int) error { _, _, err := s.TokenHolder(ctx, token.Hash); return err }},
				{"ListTokens", func(int) error { _, err := s.ListTokens(ctx, alice.ID, registry.TokenFilter{}); return err }},
				{"TouchToken", func(int) error { return s.TouchToken(ctx, token.ID, time.Now()) }},
				{"RevokeToken", func(int) error { return s.RevokeToken(ctx, alice.ID, token.ID, now) }},
				{"KeyHolder", func(int) error { _, _, err := s.KeyHolder(ctx, key.Fingerprint); return err }},
				{"ListSSHKeys", func(int) error { _, err := s.ListSSHKeys(ctx, alice.ID); return err }},
				{"TouchSSHKey", func(int) error { return s.TouchSSHKey(ctx, key.ID, time.Now()) }},
				{"CreateSSHKey+DeleteSSHKey", func(i int) error {
					k := &registry.SSHKey{AccountID: alice.ID, Name: "k", Type: "ssh-ed25519", Fingerprint: fmt.Sprintf("SHA256:k%d", i),
						PublicKey: "ssh-ed25519 AAAA", CreatedAt: now}
					if err := registry.CreateSSHKey(ctx, s, k, alice.Username); err != nil {
						return err
					}
					return registry.RemoveSSHKey(ctx, s, alice.ID, k.ID, time.Now())
				}},
				{"PackageBySlug", func(int) error { _, err := s.PackageBySlug(ctx, "alice", pkg.PackSlug); return err }},
				{"ListVersions", func(int) error { _, err := s.ListVersions(ctx, pkg.ID); return err }},
				{"PruneNonces", func(int) error { _, err := s.PruneNonces(ctx, now.Add(-time.Hour)); return err }},
				{"CreateSession+DeleteSession", func(i int) error {
					h := fmt.Appendf(nil, "session-%d", i)
					if err := registry.CreateSession(ctx, s, &registry.Session{AccountID: alice.ID, Hash: h, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}); err != nil {
						return err
					}
					return s.DeleteSession(ctx, h)
				}},
				{"SessionByHash", func(int) error { _, err := s.SessionByHash(ctx, session.Hash, now); return err }},
				{"Seed (100 packages)", func(int) error {
					batch := make([]registry.PublishInput, 100)
					for j := range batch {
						batch[j] = benchDocument(fmt.Sprintf("seeded-%d", seeded), "1.0.0")
						batch[j].OwnerID, batch[j].OwnerSlug = alice.ID, alice.Username
						seeded++
					}
					return s.Seed(ctx, registry.ReadyAll(batch))
				}},
			}
			for _, op := range ops {
				b.Run(op.name, func(b *testing.B) {
					i := 0
					for b.Loop() {
						if err := op.run(i); err != nil {
							b.Fatal(err)
						}
						i++
					}
				})
			}
		})
	}
}
