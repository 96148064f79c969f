package sqlstore

import (
	"container/list"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pact-registry/pact/server/registry"
)

// readCache keeps the hottest reads in memory: raw documents (latest and
// pinned). It is used on SQLite only,
// where this process is the database's only writer (replicas share one
// PostgreSQL database instead), so every change passes through this Store and
// invalidates what it makes stale before the write returns to its caller:
//
//   - Publish drops its package's latest document;
//   - a yank, un-yank or deprecation drops every document of its package
//     (packageChanged, lifecycle.go);
//   - DeleteSSHKey and Seed drop everything (provenance names the key).
//
// Its generation is also what the server's cache of encoded first list
// pages is kept under (Store.Generation): every write that changes a list
// (a publish, a yank, a deprecation, a seed) bumps it.
//
// Pinned versions are immutable. Results that are empty or missing are
// never cached, so a database filled behind the store's back while it was
// empty (restore) is read afresh.
//
// A read that raced with a write must not store what it read before the
// write: every invalidation bumps a generation, and a read stores its
// result only when the generation it saw before querying is still current.
type readCache struct {
	mu sync.Mutex
	// generation is bumped, under mu, by every invalidation; read
	// without the lock by Generation.
	generation atomic.Uint64
	maxBytes   int64
	bytes      int64
	docs       map[string]*list.Element // docKey → element of lru
	lru        *list.List               // of *cachedDoc, most recently used first
}

type cachedDoc struct {
	key     string
	version *registry.Version
	size    int64
}

// docOverhead is a document entry's memory beyond its content.
const docOverhead = 512

func newReadCache(maxBytes int64) *readCache {
	return &readCache{
		maxBytes: maxBytes,
		docs:     map[string]*list.Element{},
		lru:      list.New(),
	}
}

// docKey names a document as VersionDocument is asked for it: owners match
// regardless of case, pack slugs are lower case, versions are exact.
func docKey(owner, pack, version string) string {
	return strings.ToLower(owner) + "/" + strings.ToLower(pack) + "@" + version
}

// gen is the generation to pass to a put after reading the database.
func (c *readCache) gen() uint64 { return c.generation.Load() }

// doc returns a copy of a cached version; its Content is shared and must
// not be modified.
func (c *readCache) doc(key string) (*registry.Version, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.docs[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return copyVersion(e.Value.(*cachedDoc).version), true
}

// copyVersion copies what a caller might change; the content is shared.
func copyVersion(v *registry.Version) *registry.Version {
	c := *v
	if v.Provenance != nil {
		p := *v.Provenance
		c.Provenance = &p
	}
	return &c
}

func (c *readCache) putDoc(key string, v *registry.Version, gen uint64) {
	size := int64(len(v.Content)) + int64(len(key)) + docOverhead
	if size > c.maxBytes/8 {
		return // one document never crowds out many
	}
	stored := copyVersion(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.generation.Load() {
		return
	}
	if e, ok := c.docs[key]; ok {
		c.remove(e)
	}
	c.docs[key] = c.lru.PushFront(&cachedDoc{key: key, version: stored, size: size})
	c.bytes += size
	for c.bytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

func (c *readCache) remove(e *list.Element) {
	d := c.lru.Remove(e).(*cachedDoc)
	delete(c.docs, d.key)
	c.bytes -= d.size
}

// published drops what a new version of owner/pack makes stale: its latest
// document, and (by the generation) every list page kept above the store.
func (c *readCache) published(owner, pack string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	if e, ok := c.docs[docKey(owner, pack, "")]; ok {
		c.remove(e)
	}
}

// reset drops everything.
func (c *readCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation.Add(1)
	clear(c.docs)
	c.lru.Init()
	c.bytes = 0
}

// Generation changes whenever something a read returns may have changed:
// a publish, a deleted SSH key, a seed. ok is false when the store keeps no
// cache (PostgreSQL, where other replicas write unseen, or CacheBytes < 0):
// then nothing read from it may be kept either. The server keeps the
// encoded first pages of the package list under it.
func (s *Store) Generation() (generation uint64, ok bool) {
	if s.cache == nil {
		return 0, false
	}
	return s.cache.gen(), true
}
