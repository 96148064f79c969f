package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/pact-registry/pact/pkg/translog"
	"golang.org/x/mod/sumdb/tlog"
)

// Full log tiles on the blob store (docs/design.md, Blob store): a full
// hash tile or entry bundle never changes, so once the sequencer has
// stored it in its row, MoveFullTiles puts its bytes on the blob store
// under their sha256, reads them back and checks them, then empties the
// row, which keeps the name and size. Partial tiles, at the tree's right
// edge, are still made from the rows of hashes and entries. A read of a
// full tile is its row by key, then its blob by name: never a listing.

// FullTile is a full log tile as stored: Data holds its bytes while its
// row keeps them; once on the blob store Data is empty and SHA256 names
// its blob of Size bytes.
type FullTile struct {
	Level  int
	N      int64
	Data   []byte
	SHA256 string
	Size   int64
}

// OnBlobStore says whether t's bytes are on the blob store.
func (t FullTile) OnBlobStore() bool { return len(t.Data) == 0 && t.SHA256 != "" }

// Path is t's C2SP path, tile/0/x001/234 or tile/entries/005.
func (t FullTile) Path() string {
	return translog.TilePath(tlog.Tile{H: translog.TileHeight, L: t.Level, N: t.N, W: translog.TileWidth})
}

// fullTileBytes answers t's bytes: its row's, or its blob's, checked
// against its name (never served otherwise).
func (s *Service) fullTileBytes(ctx context.Context, t FullTile) ([]byte, error) {
	if !t.OnBlobStore() {
		return t.Data, nil
	}
	if s.blobs == nil {
		return nil, fmt.Errorf("the full log tile %s is on a blob store (blob %s), and none is set (pactd serve --blobs)", t.Path(), t.SHA256)
	}
	data, err := s.blobs.read(ctx, t.SHA256, t.Size)
	if err != nil {
		return nil, fmt.Errorf("the full log tile %s: %w", t.Path(), err)
	}
	return data, nil
}

// putChecked puts content on the blob store under name, reads it back
// and checks it against name: what must hold before a row gives up its
// copy.
func (s *Service) putChecked(ctx context.Context, name string, content []byte) error {
	if err := s.blobs.store.Put(ctx, name, content); err != nil {
		return fmt.Errorf("putting it on the blob store: %w", err)
	}
	return s.checkPut(ctx, name)
}

// checkPut reads the blob name back and checks it against its name.
func (s *Service) checkPut(ctx context.Context, name string) error {
	back, err := s.rawBlob(ctx, name)
	if err != nil {
		return fmt.Errorf("reading it back from the blob store: %w", err)
	}
	if err := checkBlob(name, back); err != nil {
		return fmt.Errorf("the blob store answered other bytes than were put: %w", err)
	}
	return nil
}

// MoveFullTiles moves every full log tile whose row still holds its bytes
// to the blob store, each alone, so it can stop anywhere and go on later
// (pactd blobs migrate; the sequencer after each round). It answers how
// many it moved and their bytes.
func (s *Service) MoveFullTiles(ctx context.Context) (moved, bytes int64, err error) {
	if s.blobs == nil {
		return 0, 0, errors.New("no blob store is set (--blobs)")
	}
	const batch = 64
	level, after := -2, int64(-1)
	for {
		tiles, err := s.store.RowTiles(ctx, level, after, batch)
		if err != nil {
			return moved, bytes, err
		}
		for _, t := range tiles {
			if err := ctx.Err(); err != nil {
				return moved, bytes, err
			}
			level, after = t.Level, t.N
			sum := sha256.Sum256(t.Data)
			name := hex.EncodeToString(sum[:])
			if err := s.putChecked(ctx, name, t.Data); err != nil {
				return moved, bytes, fmt.Errorf("the full log tile %s: %w", t.Path(), err)
			}
			if err := s.store.FreeRowTile(ctx, t.Level, t.N, name, int64(len(t.Data))); err != nil {
				return moved, bytes, err
			}
			moved++
			bytes += int64(len(t.Data))
		}
		if len(tiles) < batch {
			return moved, bytes, nil
		}
	}
}

// BlobKeyer is an engine whose keys are not the blobs' names: the
// directory's ab/cd/name, S3's prefix and name. PublicBlobURL appends a
// blob's key to the public URL, so that it names the same file or object.
type BlobKeyer interface {
	Key(name string) string
}

// publicBlob answers where the blob name is public, when the blobs are.
func (s *Service) publicBlob(name string) (string, bool) {
	if s.blobs == nil || s.blobs.publicURL == "" {
		return "", false
	}
	key := name
	if k, ok := s.blobs.store.(BlobKeyer); ok {
		key = k.Key(name)
	}
	return s.blobs.publicURL + key, true
}

// DocumentRedirect answers where a client may fetch v's document instead,
// when pactd serve --blobs-public-url is set: only a version asked for by
// its number (pinned: its bytes never change), whose document is on the
// blob store, and that is not yanked (its answer carries the yank, which a
// redirect would lose). The latest version's path is never redirected: it
// changes with each publish, and a cache in front of the public URL would
// keep an old one.
func (s *Service) DocumentRedirect(v *Version, pinned bool) (string, bool) {
	if !pinned || !InBlobStore(v) || v.Yanked() {
		return "", false
	}
	return s.publicBlob(v.SHA256)
}

// LogTileRedirect answers where a client may fetch the tile at path
// instead, when pactd serve --blobs-public-url is set: a full tile (which
// never changes) that is on the blob store. Partial tiles are not there.
func (s *Service) LogTileRedirect(ctx context.Context, path string) (string, bool, error) {
	if s.blobs == nil || s.blobs.publicURL == "" {
		return "", false, nil
	}
	t, err := translog.ParseTilePath(path)
	if err != nil || t.W != translog.TileWidth {
		return "", false, nil // LogTile answers it
	}
	stored, ok, err := s.store.LogFullTile(ctx, t.L, t.N)
	if err != nil || !ok || !stored.OnBlobStore() {
		return "", false, err
	}
	url, ok := s.publicBlob(stored.SHA256)
	return url, ok, nil
}
