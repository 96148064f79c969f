package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/maypok86/otter/v2"
)

// BlobStore keeps documents outside the database, each named by the hex
// sha256 of its bytes (docs/design.md, "Blob store"). Engines: a directory
// (server/blobs, file://) and S3-compatible object storage (s3://). A
// version's document is put before the row that names it commits, so a
// crash between the two leaves only an unreferenced blob, which pactd blobs
// gc removes after a grace period. Reads open one name; they never list.
type BlobStore interface {
	// Put stores content under name, durably before it returns. Putting
	// a name that exists is harmless: the bytes are the same.
	Put(ctx context.Context, name string, content []byte) error
	// Open opens the blob name and says its size. ErrBlobNotFound when
	// there is none. The directory engine answers an *os.File, which the
	// raw path sends with sendfile.
	Open(ctx context.Context, name string) (io.ReadSeekCloser, int64, error)
	// Delete removes the blob name; none is not an error.
	Delete(ctx context.Context, name string) error
	// List calls fn with every blob, for pactd blobs gc and checks only.
	List(ctx context.Context, fn func(BlobInfo) error) error
}

// BlobInfo is a blob as List finds it.
type BlobInfo struct {
	Name    string
	Size    int64
	ModTime time.Time
}

// ErrBlobNotFound is Open's answer for a name the store does not hold.
var ErrBlobNotFound = errors.New("no such blob")

// ErrBlobStoreFull is in Put's error when the store has no room left: the
// publish answers 507, as when the database is full.
var ErrBlobStoreFull = errors.New("no room left on the blob store")

// IsBlobName says whether name is a blob's name: a sha256 in lower-case hex.
func IsBlobName(name string) bool {
	if len(name) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// errBlobStoreDown is the answer to a publish whose document the blob store
// did not take (nothing is stored), or to a read it does not answer: the
// client retries (503 with Retry-After).
var errBlobStoreDown = Errorf(Unavailable, "the document store is not answering: retry shortly")

// blobs is the Service's side of its BlobStore: what it verified and,
// for engines that are not local files, the bytes it read lately.
type blobs struct {
	store BlobStore
	// verified remembers the files whose bytes were checked against their
	// name, by size and modification time: a file replaced since is
	// checked again. Only *os.File answers go there; the others are read
	// whole, checked and kept in cached.
	verified *otter.Cache[string, fileStamp]
	cached   *otter.Cache[string, []byte]
	// publicURL is where the blobs are public, ending in "/"; "" when
	// they are not (PublicBlobURL).
	publicURL string
}

type fileStamp struct {
	size    int64
	modTime time.Time
}

func newBlobs(store BlobStore, cacheBytes int64, publicURL string) *blobs {
	if store == nil {
		return nil
	}
	if cacheBytes <= 0 {
		cacheBytes = 64 << 20
	}
	if publicURL != "" && !strings.HasSuffix(publicURL, "/") {
		publicURL += "/"
	}
	return &blobs{
		store:     store,
		publicURL: publicURL,
		verified:  otter.Must(&otter.Options[string, fileStamp]{MaximumSize: 1 << 16}),
		cached: otter.Must(&otter.Options[string, []byte]{
			MaximumWeight: uint64(cacheBytes),
			Weigher:       func(k string, v []byte) uint32 { return uint32(len(k) + len(v) + 64) },
		}),
	}
}

// HasBlobStore says whether documents are put on a blob store.
func (s *Service) HasBlobStore() bool { return s.blobs != nil }

// InBlobStore says whether v's document is on the blob store rather than
// in its row: the row keeps no bytes (a document is never empty). Its
// size is then v.Size; else len(v.Content).
func InBlobStore(v *Version) bool { return len(v.Content) == 0 && v.Size > 0 }

// keepDocument puts in's document on the blob store, when there is one,
// and marks in so that its row keeps no bytes.
func (s *Service) keepDocument(ctx context.Context, in *PublishInput) error {
	if s.blobs == nil {
		return nil
	}
	if err := s.blobs.store.Put(ctx, in.SHA256, in.Content); err != nil {
		if errors.Is(err, ErrBlobStoreFull) {
			return errors.Join(Errorf(InsufficientStorage, "the server is out of storage space: nothing was saved; try again later"), err)
		}
		return errors.Join(errBlobStoreDown, err)
	}
	in.DocumentInBlobStore = true
	return nil
}

// OpenDocument opens the document of v, which RawDocument answered
// without its bytes (InBlobStore): an *os.File from the directory engine,
// whose bytes were checked against v's sha256 once since it last changed,
// or the bytes read and checked, from the others. A blob whose bytes do
// not match its name is never answered: the error names it.
func (s *Service) OpenDocument(ctx context.Context, v *Version) (io.ReadSeekCloser, error) {
	if s.blobs == nil {
		return nil, fmt.Errorf("version %s (sha256 %s) keeps its document on a blob store, and none is set (pactd serve --blobs)", v.Version, v.SHA256)
	}
	return s.blobs.open(ctx, v.SHA256, v.Size)
}

func (b *blobs) open(ctx context.Context, name string, size int64) (io.ReadSeekCloser, error) {
	if content, ok := b.cached.GetIfPresent(name); ok {
		return nopCloser{bytes.NewReader(content)}, nil
	}
	r, n, err := b.store.Open(ctx, name)
	if errors.Is(err, ErrBlobNotFound) {
		return nil, fmt.Errorf("blob %s is missing from the blob store", name)
	}
	if err != nil {
		return nil, errors.Join(errBlobStoreDown, err)
	}
	if n != size {
		r.Close()
		return nil, fmt.Errorf("blob %s holds %d bytes, its row says %d: not served", name, n, size)
	}
	if f, ok := r.(*os.File); ok {
		if err := b.verifyFile(f, name); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
	content, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, errors.Join(errBlobStoreDown, err)
	}
	if err := checkBlob(name, content); err != nil {
		return nil, err
	}
	b.cached.Set(name, content)
	return nopCloser{bytes.NewReader(content)}, nil
}

// verifyFile checks f's bytes against name, unless it was checked since
// it last changed, and leaves f at its start.
func (b *blobs) verifyFile(f *os.File, name string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	stamp := fileStamp{fi.Size(), fi.ModTime()}
	if got, ok := b.verified.GetIfPresent(name); ok && got == stamp {
		return nil
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != name {
		return fmt.Errorf("blob %s: its bytes hash to %s: not served (pactd log check names every such blob)", name, got)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	b.verified.Set(name, stamp)
	return nil
}

// read answers the bytes of blob name, checked against it.
func (b *blobs) read(ctx context.Context, name string, size int64) ([]byte, error) {
	r, err := b.open(ctx, name, size)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if br, ok := r.(nopCloser); ok {
		content := make([]byte, br.Len())
		_, err := br.Read(content)
		return content, err
	}
	return io.ReadAll(r)
}

func checkBlob(name string, content []byte) error {
	sum := sha256.Sum256(content)
	if got := hex.EncodeToString(sum[:]); got != name {
		return fmt.Errorf("blob %s: its bytes hash to %s: not served (pactd log check names every such blob)", name, got)
	}
	return nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// withDocument answers v with its document's bytes when they are on the
// blob store: a copy of v, which may be shared with the store's cache.
func (s *Service) withDocument(ctx context.Context, v *Version) (*Version, error) {
	if !InBlobStore(v) {
		return v, nil
	}
	if s.blobs == nil {
		return nil, fmt.Errorf("version %s (sha256 %s) keeps its document on a blob store, and none is set (pactd serve --blobs)", v.Version, v.SHA256)
	}
	content, err := s.blobs.read(ctx, v.SHA256, v.Size)
	if err != nil {
		return nil, err
	}
	c := *v
	c.Content = content
	return &c, nil
}

// rawBlob answers the bytes the blob store holds under name, unchecked
// and uncached, for the checks that compare them with the rows and the
// log (CheckLog).
func (s *Service) rawBlob(ctx context.Context, name string) ([]byte, error) {
	if s.blobs == nil {
		return nil, errors.New("no blob store is set (--blobs)")
	}
	r, _, err := s.blobs.store.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// BlobDocument answers the bytes of the document named sha256 on the blob
// store, checked against its name and size (pactd dump).
func (s *Service) BlobDocument(ctx context.Context, sha256 string, size int64) ([]byte, error) {
	if s.blobs == nil {
		return nil, errors.New("no blob store is set (--blobs)")
	}
	return s.blobs.read(ctx, sha256, size)
}

// MigrationReport is what MigrateDocuments did.
type MigrationReport struct {
	Moved int64 // documents put on the blob store, checked, and freed from their rows
	Bytes int64 // their bytes
}

// MigrateDocuments moves every document that a version's row still holds
// to the blob store: it puts it, reads it back and checks it against its
// sha256, then empties the row's content. A batch's rows are freed
// together once all its blobs are durable and checked, so a migration
// stopped at any point (ctx) leaves every version readable, and running it
// again moves the rest. progress, when set, is told after
// each batch.
func (s *Service) MigrateDocuments(ctx context.Context, progress func(MigrationReport)) (MigrationReport, error) {
	var r MigrationReport
	if s.blobs == nil {
		return r, errors.New("no blob store is set (--blobs)")
	}
	const batch = 100
	var after int64
	for {
		versions, err := s.store.RowDocuments(ctx, after, batch)
		if err != nil {
			return r, err
		}
		// The batch's documents are all put, then made durable at once
		// (an engine that can: the directory's one syncfs instead of two
		// fsyncs a document), and only then read back, checked, and freed
		// from their rows: a row gives up its copy only once its blob is
		// durable, so a crash anywhere leaves every version readable.
		for _, v := range versions {
			if err := ctx.Err(); err != nil {
				return r, err
			}
			if err := checkBlob(v.SHA256, v.Content); err != nil || int64(len(v.Content)) != v.Size {
				return r, fmt.Errorf("version %d: its row's document does not match its sha256 and size: left in the row (pactd log check)", v.ID)
			}
			if err := s.putForMigration(ctx, v.SHA256, v.Content); err != nil {
				return r, fmt.Errorf("version %d's document: %w", v.ID, err)
			}
		}
		if err := s.syncMigration(ctx); err != nil {
			return r, err
		}
		for _, v := range versions {
			if err := s.checkPut(ctx, v.SHA256); err != nil {
				return r, fmt.Errorf("version %d's document: %w", v.ID, err)
			}
		}
		// The batch's rows are freed in one transaction: one commit (and
		// on SQLite one fsync) a batch, not one a document.
		err = s.store.Tx(ctx, func(tx Tx) error {
			for _, v := range versions {
				freed, err := tx.FreeRowDocument(v.ID, v.SHA256)
				if err != nil {
					return err
				}
				if !freed {
					return Errorf(NotFound, "no version %d with sha256 %s", v.ID, v.SHA256)
				}
			}
			return nil
		})
		if err != nil {
			return r, err
		}
		for _, v := range versions {
			after = v.ID
			r.Moved++
			r.Bytes += v.Size
		}
		if progress != nil && len(versions) > 0 {
			progress(r)
		}
		if len(versions) < batch {
			return r, nil
		}
	}
}

// batchPutter is an engine that can put many blobs and make them durable
// in one step (the directory: server/blobs.Dir.PutUnsynced, SyncPuts).
type batchPutter interface {
	PutUnsynced(ctx context.Context, name string, content []byte) error
	SyncPuts(ctx context.Context) error
}

// putForMigration puts a blob that syncMigration makes durable.
func (s *Service) putForMigration(ctx context.Context, name string, content []byte) error {
	if b, ok := s.blobs.store.(batchPutter); ok {
		return b.PutUnsynced(ctx, name, content)
	}
	return s.blobs.store.Put(ctx, name, content)
}

// syncMigration makes the blobs putForMigration put durable.
func (s *Service) syncMigration(ctx context.Context) error {
	if b, ok := s.blobs.store.(batchPutter); ok {
		if err := b.SyncPuts(ctx); err != nil {
			return fmt.Errorf("syncing the blob store: %w", err)
		}
	}
	return nil
}

// DefaultBlobGrace is how old an unreferenced blob must be before
// CollectBlobs removes it: far longer than any publish takes between
// putting its document and committing its row.
const DefaultBlobGrace = 24 * time.Hour

// CollectionReport is what CollectBlobs did.
type CollectionReport struct {
	Kept, Removed int64
	RemovedBytes  int64
	// Leftovers are the partial writes removed (an engine that writes
	// through temporary files: the directory).
	Leftovers int64
}

// leftoverRemover is an engine whose interrupted Puts leave files of their
// own (the directory's tmp).
type leftoverRemover interface {
	RemoveLeftovers(ctx context.Context, before time.Time) (int64, error)
}

// CollectBlobs removes the blobs no version and no full log tile names
// that are older than grace: what a publish left when it failed or crashed
// between putting its document and committing its row. It reads every
// version's and full tile's sha256 first (about 100 bytes of memory each),
// then lists the blobs: a blob put
// after that read is younger than grace, and Put renews a blob's time
// (BlobStore), so one a new publish names again is kept.
func (s *Service) CollectBlobs(ctx context.Context, grace time.Duration) (CollectionReport, error) {
	var r CollectionReport
	if s.blobs == nil {
		return r, errors.New("no blob store is set (--blobs)")
	}
	if grace <= 0 {
		return r, Errorf(Invalid, "the grace period must be positive")
	}
	named := map[string]struct{}{}
	keep := func(name string) error {
		named[name] = struct{}{}
		return nil
	}
	if err := s.store.DocumentNames(ctx, keep); err != nil {
		return r, err
	}
	if err := s.store.TileNames(ctx, keep); err != nil {
		return r, err
	}
	cutoff := s.now().Add(-grace)
	err := s.blobs.store.List(ctx, func(b BlobInfo) error {
		if _, ok := named[b.Name]; ok || !b.ModTime.Before(cutoff) {
			r.Kept++
			return nil
		}
		if err := s.blobs.store.Delete(ctx, b.Name); err != nil {
			return err
		}
		r.Removed++
		r.RemovedBytes += b.Size
		return nil
	})
	if err != nil {
		return r, err
	}
	if l, ok := s.blobs.store.(leftoverRemover); ok {
		r.Leftovers, err = l.RemoveLeftovers(ctx, cutoff)
	}
	return r, err
}
