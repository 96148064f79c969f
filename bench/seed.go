package main

import (
	"golang.org/x/mod/sumdb/tlog"

	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pact-registry/pact/pkg/translog"

	"golang.org/x/crypto/ssh"

	"github.com/pact-registry/pact/pkg/packfmt"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// seedBatch is how many packages go into one seeding transaction.
const seedBatch = 5000

// packagesPerOwner spreads a large database over many accounts, as a real
// registry would be.
const packagesPerOwner = 1000

// document is a pack document of exactly size bytes (when size leaves room
// for the block): a heading, the pact:pack block, then prose.
func document(name, version string, size int) []byte {
	var b strings.Builder
	b.Grow(size)
	fmt.Fprintf(&b, "# %s\n\n```yaml pact:pack\nname: %s\nversion: %s\nscheme: pact/v1\n"+
		"description: A pack the benchmark made, called %s.\n```\n\n", name, name, version, name)
	const prose = "Use this pack when a task needs the steps it describes; read them in order and keep the notes short. "
	for b.Len() < size-1 {
		chunk := prose
		if rest := size - 1 - b.Len(); rest < len(chunk) {
			chunk = chunk[:rest]
		}
		b.WriteString(chunk)
	}
	b.WriteByte('\n')
	return []byte(b.String())
}

func ownerName(i int) string { return fmt.Sprintf("owner-%04d", i) }
func packName(i int) string  { return fmt.Sprintf("pack-%07d", i) }

// seeded is what the load needs to know about a seeded database.
type seeded struct {
	Path        string
	Packages    int
	Token       string
	Signer      ssh.Signer
	Fingerprint string
	// RawPaths are the /raw/... paths the raw path cycles through, and
	// Docs their documents, for nginx.
	RawPaths []string
	Docs     map[string][]byte
	// DeepPage is the page number the deep list path asks for, and
	// DeepCursor the next_cursor that leads to it.
	DeepPage   int
	DeepCursor string
	// LogTiles and LogBundles are /log/tile/... paths inside the seeded
	// log: full tiles when it has 256 entries or more, else partial ones.
	LogTiles   []string
	LogBundles []string
	Took       time.Duration
	Bytes      int64
}

// seedDatabase makes a fresh SQLite database at path holding n packages of
// docBytes each (one version each), spread over one account per
// packagesPerOwner packages, plus the account "bench" with a token and an
// ed25519 key for the publish paths.
func seedDatabase(ctx context.Context, path string, n, docBytes, rawDocs int) (*seeded, error) {
	start := time.Now()
	// Seeding need not survive a power cut; pactd reopens with FULL.
	opts := sqlstore.Options{SQLiteSynchronous: "OFF", LogBackfill: registry.Backfill()}
	if isPostgres(path) {
		opts = sqlstore.Options{LogBackfill: registry.Backfill()}
	}
	store, err := sqlstore.Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	svc := registry.NewService(store, registry.Options{})
	if err := checkDocument(docBytes); err != nil {
		return nil, err
	}

	owners := max(1, (n+packagesPerOwner-1)/packagesPerOwner)
	accounts := make([]*registry.Account, owners)
	for i := range accounts {
		a := &registry.Account{Email: ownerName(i) + "@bench.invalid", Username: ownerName(i), CreatedAt: time.Now()}
		if err := store.CreateAccount(ctx, a); err != nil {
			return nil, fmt.Errorf("seeding accounts: %w", err)
		}
		accounts[i] = a
	}

	// Documents are made and hashed while the previous batch is written.
	batches := make(chan []registry.PublishInput, 2)
	go func() {
		defer close(batches)
		base := time.Now().UTC().Add(-time.Duration(n) * time.Millisecond)
		for first := 0; first < n; first += seedBatch {
			batch := make([]registry.PublishInput, 0, min(seedBatch, n-first))
			for i := first; i < first+cap(batch); i++ {
				owner := accounts[i%owners]
				name := packName(i)
				content := document(name, "1.0.0", docBytes)
				sum := sha256.Sum256(content)
				batch = append(batch, registry.PublishInput{
					OwnerID: owner.ID, OwnerSlug: owner.Username, PackSlug: name, Name: name,
					Description: "A pack the benchmark made, called " + name + ".", Scheme: "pact/v1",
					Version: "1.0.0", Content: content, SHA256: hex.EncodeToString(sum[:]),
					Now: base.Add(time.Duration(i) * time.Millisecond),
				})
			}
			select {
			case batches <- batch:
			case <-ctx.Done():
				return
			}
		}
	}()
	for batch := range batches {
		if err := store.Seed(ctx, registry.ReadyAll(batch)); err != nil {
			return nil, fmt.Errorf("seeding packages: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	s := &seeded{Path: path, Packages: n, Docs: map[string][]byte{}}
	acct, err := svc.CreateAccount(ctx, "bench@bench.invalid", "bench", "bench-password-not-secret")
	if err != nil {
		return nil, fmt.Errorf("creating the bench account: %w", err)
	}
	if s.Token, _, err = svc.CreateToken(ctx, acct.ID, "bench", nil); err != nil {
		return nil, fmt.Errorf("creating the bench token: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	if s.Signer, err = ssh.NewSignerFromKey(priv); err != nil {
		return nil, err
	}
	key, err := svc.AddSSHKey(ctx, acct.ID, string(ssh.MarshalAuthorizedKey(s.Signer.PublicKey())), "bench")
	if err != nil {
		return nil, fmt.Errorf("registering the bench key: %w", err)
	}
	s.Fingerprint = key.Fingerprint

	// The log arrives sequenced, with its key, as a registry that has been
	// serving does: pactd's start-up is not spent hashing the seed.
	if err := svc.InitLog(ctx, "bench.invalid/log", ""); err != nil {
		return nil, err
	}
	size, err := svc.SequenceLog(ctx)
	if err != nil {
		return nil, fmt.Errorf("sequencing the seeded log: %w", err)
	}
	s.LogTiles, s.LogBundles = logPaths(size)
	// nginx and the bare Go server serve the same tiles and bundles, read
	// through the registry as pactd serves them: the ceiling for those rows.
	for _, p := range append(slices.Clone(s.LogTiles), s.LogBundles...) {
		data, _, err := svc.LogTile(ctx, strings.TrimPrefix(p, "/log/"))
		if err != nil {
			return nil, fmt.Errorf("reading back %s: %w", p, err)
		}
		s.Docs[p] = data
	}

	// The raw path's documents are spread evenly over the database, read
	// back through the store so nginx serves exactly what pactd does.
	count := min(rawDocs, n)
	for j := range count {
		i := j * n / count
		owner, pack := ownerName(i%owners), packName(i)
		v, err := store.VersionDocument(ctx, owner, pack, "")
		if err != nil {
			return nil, fmt.Errorf("reading back %s/%s: %w", owner, pack, err)
		}
		p := "/raw/" + owner + "/" + pack + ".pact.md"
		s.RawPaths = append(s.RawPaths, p)
		s.Docs[p] = v.Content
	}

	s.DeepPage, s.DeepCursor, err = deepCursor(ctx, svc, n)
	if err != nil {
		return nil, err
	}
	s.Took = time.Since(start)
	return s, nil
}

// checkDocument makes sure the generated documents are valid pack
// documents, as publishing them would require.
func checkDocument(size int) error {
	doc := document(packName(1), "1.0.0", size)
	pack, err := packfmt.Parse(doc, packfmt.Options{})
	if err != nil {
		return fmt.Errorf("the generated document does not parse: %w", err)
	}
	if pack.Slug != packName(1) || pack.Version != "1.0.0" || len(doc) != size {
		return fmt.Errorf("the generated document parses to %s@%s (%d bytes), want %s@1.0.0 (%d bytes)",
			pack.Slug, pack.Version, len(doc), packName(1), size)
	}
	return nil
}

// listPageSize is the API's default page size, the one the list paths use.
const listPageSize = registry.DefaultListLimit

// deepPage is the page the deep list path reads: page 10,000, or the last
// page of a smaller database.
func deepPage(packages int) int {
	return max(1, min(10000, (packages+listPageSize-1)/listPageSize))
}

// deepCursor walks the list through the registry service, 100 at a time,
// to the next_cursor that opens the deep page (of 20).
func deepCursor(ctx context.Context, svc *registry.Service, packages int) (int, string, error) {
	page := deepPage(packages)
	skip := (page - 1) * listPageSize
	cursor := ""
	for skip > 0 {
		limit := min(skip, registry.MaxListLimit)
		pkgs, next, err := svc.ListPackages(ctx, registry.ListQuery{Limit: limit, Cursor: cursor})
		if err != nil {
			return 0, "", fmt.Errorf("walking to page %d: %w", page, err)
		}
		if next == "" || len(pkgs) != limit {
			return 0, "", fmt.Errorf("walking to page %d: the list ended early", page)
		}
		cursor, skip = next, skip-limit
	}
	return page, cursor, nil
}

// logPaths are the level-0 hash tiles and the entry bundles of a log of
// size entries: its full ones, or its one partial one when it has none.
func logPaths(size int64) (tiles, bundles []string) {
	for n := int64(0); (n+1)*translog.TileWidth <= size; n++ {
		tiles = append(tiles, "/log/"+translog.TilePath(tlog.Tile{H: translog.TileHeight, L: 0, N: n, W: translog.TileWidth}))
		bundles = append(bundles, "/log/"+translog.TilePath(tlog.Tile{H: translog.TileHeight, L: -1, N: n, W: translog.TileWidth}))
	}
	if len(tiles) == 0 {
		tiles = append(tiles, "/log/"+translog.TilePath(tlog.Tile{H: translog.TileHeight, L: 0, N: 0, W: int(size)}))
		bundles = append(bundles, "/log/"+translog.TilePath(tlog.Tile{H: translog.TileHeight, L: -1, N: 0, W: int(size)}))
	}
	return tiles, bundles
}
