package sqlstore

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"

	"github.com/pact-registry/pact/server/registry"
)

// readCache keeps the hottest reads in memory: raw documents (latest and
// pinned), bounded in bytes (Options.CacheBytes, pactd's
// --db-read-cache-bytes). It is two otter caches (github.com/maypok86/otter),
// bounded by weight and admitting by W-TinyLFU, so a sweep through more
// documents than it holds does not flush the hot ones (docs/design.md,
// Caches): the documents, and the ids of the version rows that raw
// documents read lately were, in at most a quarter of the bytes.
//
// Every change made through this Store invalidates what it makes stale
// before the write returns to its caller:
//
//   - Publish drops its package's latest document;
//   - a yank, un-yank or deprecation drops every document of its package
//     (packageChanged, lifecycle.go);
//   - DeleteSSHKey, Seed and Restore drop everything (provenance names the key).
//
// On SQLite this process is the database's only writer, so that is all.
// On PostgreSQL other replicas write unseen: there every entry also
// expires ttl after it was read (Options.CacheTTL, --db-read-cache-ttl), so
// a yank or a new latest version made through another replica is served
// by this one within ttl (docs/design.md, The read cache).
//
// Its generation is also what the server's cache of encoded first list
// pages is kept under (Store.Generation, SQLite only): every write that
// changes a list (a publish, a yank, a deprecation, a seed) bumps it.
//
// Results that are empty or missing are never cached, so a database filled
// behind the store's back while it was empty (restore) is read afresh.
//
// The ids: for each raw document read from the database, which version
// row it was, so the next miss of that document (one not kept, or evicted
// since) reads that one row by primary key instead of finding it by owner,
// name and version. A name's package and a pinned version's row never
// change (nothing is renamed, moved or deleted); only which row is a
// package's latest does, and every write that changes it drops the id as
// it drops the document, under the same generation and ttl.
//
// A read that raced with a write must not keep what it read before the
// write: every invalidation bumps the generation and drops its entries as
// one step (under mu, exclusively), and a read takes the generation before
// it looks up or queries, and keeps its result only when that generation
// is still current (checked and kept under mu, shared). A look-up and a
// keep never see half an invalidation: between the bump and the drop, a
// look-up could find the id of a row a publish just replaced and keep what
// it read by that id under the new generation.
type readCache struct {
	// mu is held exclusively by invalidations, shared by look-ups and
	// keeps (otter itself is safe for concurrent use).
	mu sync.RWMutex
	// generation is bumped by every invalidation; read by Generation.
	generation atomic.Uint64
	maxBytes   int64
	ttl        time.Duration // 0: entries never expire
	docs       *otter.Cache[docID, *cachedDoc]
	ids        *otter.Cache[docID, idHint]
	// hits and misses count find's answers.
	hits, misses atomic.Uint64
}

// idHint is the version row a raw document's key named when it was read.
type idHint struct {
	id      int64
	expires time.Duration // on clock(); 0 when the cache has no ttl
}

// idOverhead is what an id costs beside its key's strings: otter's node,
// its slot in the hash table and the policy's bookkeeping.
// TestReadCacheCountsItsIDsBytes measures it.
const idOverhead = 160

// docID names a document as VersionDocument is asked for it: owners match
// regardless of case, pack slugs are lower case, versions are exact ("" is
// the latest). A struct, so a look-up builds no string.
type docID struct {
	owner, pack, version string
	// raw marks RawDocument's entries, which hold fewer fields than
	// VersionDocument's for the same document.
	raw bool
}

func (k docID) bytes() int64 { return int64(len(k.owner) + len(k.pack) + len(k.version)) }

type cachedDoc struct {
	version *registry.Version
	size    int64
	expires time.Duration // on clock(); 0 when the cache has no ttl
}

// docOverhead is a document entry's memory beyond its content and key:
// the Version's other fields and otter's node.
const docOverhead = 512

// epoch anchors clock, so expiry is measured on the monotonic clock.
var epoch = time.Now()

func clock() time.Duration { return time.Since(epoch) }

func newReadCache(maxBytes int64, ttl time.Duration) *readCache {
	idBytes := maxBytes / 4
	c := &readCache{
		maxBytes: maxBytes,
		ttl:      ttl,
		docs: otter.Must(&otter.Options[docID, *cachedDoc]{
			MaximumWeight: uint64(maxBytes - idBytes),
			Weigher:       func(_ docID, d *cachedDoc) uint32 { return uint32(d.size) },
		}),
		ids: otter.Must(&otter.Options[docID, idHint]{
			MaximumWeight: uint64(max(idBytes, 1)),
			Weigher:       func(k docID, _ idHint) uint32 { return uint32(k.bytes() + idOverhead) },
		}),
	}
	return c
}

func docKey(owner, pack, version string) docID {
	return docID{owner: strings.ToLower(owner), pack: strings.ToLower(pack), version: version}
}

// gen is the generation to pass to a put after reading the database.
func (c *readCache) gen() uint64 { return c.generation.Load() }

// find returns a cached version, shared with the cache: the caller copies
// it (copyVersion) before handing it to anyone who might modify it. On a
// miss it returns the id of the version row the key names, when it knows
// it (raw documents only), else 0.
func (c *readCache) find(key docID) (v *registry.Version, id int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if d, ok := c.docs.GetIfPresent(key); ok {
		if c.ttl == 0 || clock() < d.expires {
			c.hits.Add(1)
			return d.version, 0
		}
		c.docs.Invalidate(key)
	}
	c.misses.Add(1)
	if !key.raw {
		return nil, 0
	}
	if h, ok := c.ids.GetIfPresent(key); ok {
		if c.ttl == 0 || clock() < h.expires {
			return nil, h.id
		}
		c.ids.Invalidate(key)
	}
	return nil, 0
}

// copyVersion copies what a caller might change; the content is shared.
// (One allocation per hit of VersionDocument, which keeps a caller's
// change out of the cache; RawDocument's callers promise to change
// nothing and get the cache's own.)
func copyVersion(v *registry.Version) *registry.Version {
	c := *v
	if v.Provenance != nil {
		p := *v.Provenance
		c.Provenance = &p
	}
	return &c
}

// putDoc keeps a copy of v, read from the database at generation gen
// (taken before the read began) and at time readAt on clock(); for a raw
// document, its id too.
func (c *readCache) putDoc(key docID, v *registry.Version, gen uint64, readAt time.Duration) {
	var expires time.Duration
	if c.ttl > 0 {
		if expires = readAt + c.ttl; clock() >= expires {
			return
		}
	}
	size := int64(len(v.Content)) + key.bytes() + docOverhead
	var d *cachedDoc
	if size <= c.maxBytes/8 { // one document never crowds out many
		d = &cachedDoc{version: copyVersion(v), size: size, expires: expires}
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if gen != c.gen() {
		return
	}
	if key.raw && v.ID != 0 {
		c.ids.Set(key, idHint{id: v.ID, expires: expires})
	}
	if d != nil {
		c.docs.Set(key, d)
	}
}

// published drops what a new version of owner/pack makes stale: its latest
// document and the id of its latest version, and (by the generation) every
// list page kept above the store.
func (c *readCache) published(owner, pack string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	c.dropLatest(owner, pack)
}

// dropLatest drops owner/pack's latest document, raw and not, and the id
// of its latest version. Under mu.
func (c *readCache) dropLatest(owner, pack string) {
	latest := docKey(owner, pack, "")
	for _, raw := range []bool{false, true} {
		latest.raw = raw
		c.docs.Invalidate(latest)
		c.ids.Invalidate(latest)
	}
}

// packageChanged drops every document of owner/pack and the id of its
// latest version (the ids of pinned versions stay true: a version's row
// is read afresh on every miss), and bumps the generation.
func (c *readCache) packageChanged(owner, pack string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	latest := docKey(owner, pack, "")
	for key := range c.docs.Keys() {
		if key.owner == latest.owner && key.pack == latest.pack {
			c.docs.Invalidate(key)
		}
	}
	c.dropLatest(owner, pack)
}

// reset drops everything.
func (c *readCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	c.docs.InvalidateAll()
	c.ids.InvalidateAll()
}

// bytes is what the cache holds, by the measure of its bound.
func (c *readCache) bytes() int64 { return int64(c.docs.WeightedSize() + c.ids.WeightedSize()) }

// DocumentCache counts the read cache's answers; all zero without one.
func (s *Store) DocumentCache() registry.CacheStats {
	if s.cache == nil {
		return registry.CacheStats{}
	}
	c := s.cache
	return registry.CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Bytes: c.bytes(), MaxBytes: c.maxBytes}
}

// Generation changes whenever something a read returns may have changed:
// a publish, a deleted SSH key, a seed. ok is false when the store cannot
// tell (PostgreSQL, where other replicas write unseen, or no cache):
// then nothing read from it may be kept either. The server keeps the
// encoded first pages of the package list under it.
func (s *Store) Generation() (generation uint64, ok bool) {
	if s.cache == nil || s.cache.ttl > 0 {
		return 0, false
	}
	return s.cache.gen(), true
}
