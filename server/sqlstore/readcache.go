package sqlstore

import (
	"container/list"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pact-registry/pact/server/internal/admission"
	"github.com/pact-registry/pact/server/registry"
)

// readCache keeps the hottest reads in memory: raw documents (latest and
// pinned), bounded in bytes (Options.CacheBytes, pactd's
// --db-read-cache-bytes).
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
// When it is full, a miss is kept only if admit says so (an
// admission.Filter: a miss asked for less often lately than a document it
// would evict is not kept, between equals one in admission.OneIn is): a
// sweep through more documents than it holds does not flush the hot ones
// (docs/design.md, Caches).
//
// Results that are empty or missing are never cached, so a database filled
// behind the store's back while it was empty (restore) is read afresh.
//
// Beside the documents it keeps ids: for each raw document read from the
// database, which version row it was, so the next miss of that document
// (one not kept, or evicted since) reads that one row by primary key
// instead of finding it by owner, name and version. A name's package and a
// pinned version's row never change (nothing is renamed, moved or
// deleted); only which row is a package's latest does, and every write
// that changes it drops the id as it drops the document, under the same
// generation and ttl. Ids take at most a quarter of the byte budget, and
// documents the rest of it (docs/design.md, "Caches").
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
	ttl        time.Duration // 0: entries never expire
	bytes      int64
	// docs holds each document under its key's hash (admission.Hash),
	// hashed once per look-up for both; an entry whose key differs is
	// another document's, and a miss.
	docs  map[uint64]*list.Element
	lru   *list.List       // of *cachedDoc, most recently used first
	admit admission.Policy // every look-up is recorded in it
	// ids are the version rows of raw documents read lately, under
	// their keys' hashes (see above); idBytes is their count of bytes.
	ids     map[uint64]idHint
	idBytes int64
	// hits and misses count find's answers, under mu.
	hits, misses uint64
}

// idHint is the version row a raw document's key named when it was read.
// It keeps no name: it is kept under the key's hash (admission.Hash) and
// holds a second hash of the key, of a seed of its own (idCheck), so two
// keys are taken for one only when both 64-bit hashes agree, which for
// seeds drawn at random by each process is as likely as guessing a
// 128-bit secret. A name would cost twice the memory, and the ids are
// worth their bytes only when they are many (docs/design.md, "Caches").
type idHint struct {
	check   uint64
	id      int64
	expires time.Duration // on clock(); 0 when the cache has no ttl
}

// idSeed seeds idCheck, apart from admission.Hash's seed.
var idSeed = maphash.MakeSeed()

// idCheck is key's second hash. Only raw documents have ids, so a key of
// another read has none (0 is never a check: such a key would have none).
func idCheck(key docID) uint64 {
	if !key.raw {
		return 0
	}
	return maphash.Comparable(idSeed, key) | 1
}

// idSize is what an id counts: its slot in the map (hash and idHint, 32
// bytes, 33 with its control byte) with the map's spare room, from 8/7 to
// 16/7 slots an entry (38 to 76 bytes), and the map's tables beside.
// TestReadCacheCountsItsIDsBytes measured 44 to 83 bytes an id, from 1,000
// to 250,000 of them.
const idSize = 96

// docID names a document as VersionDocument is asked for it: owners match
// regardless of case, pack slugs are lower case, versions are exact ("" is
// the latest). A struct, so a look-up builds no string.
type docID struct {
	owner, pack, version string
	// raw marks RawDocument's entries, which hold fewer fields than
	// VersionDocument's for the same document.
	raw bool
}

type cachedDoc struct {
	key     docID
	hash    uint64 // key's, admission.Hash
	tally   admission.Tally
	version *registry.Version
	size    int64
	expires time.Duration // on clock(); 0 when the cache has no ttl
}

// docOverhead is a document entry's memory beyond its content and key:
// the Version's other fields, the map entry and the list element.
const docOverhead = 512

// epoch anchors clock, so expiry is measured on the monotonic clock.
var epoch = time.Now()

func clock() time.Duration { return time.Since(epoch) }

func newReadCache(maxBytes int64, ttl time.Duration) *readCache {
	return &readCache{
		maxBytes: maxBytes,
		ttl:      ttl,
		docs:     map[uint64]*list.Element{},
		ids:      map[uint64]idHint{},
		lru:      list.New(),
		admit:    admission.NewFilter(int(maxBytes / 1024)),
	}
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
	var now time.Duration
	if c.ttl > 0 {
		now = clock()
	}
	hash := admission.Hash(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.admit.Record(hash)
	if e, ok := c.docs[hash]; ok && e.Value.(*cachedDoc).key == key {
		d := e.Value.(*cachedDoc)
		if c.ttl == 0 || now < d.expires {
			c.hits++
			c.admit.Hit(&d.tally)
			c.lru.MoveToFront(e)
			return d.version, 0
		}
		c.remove(e)
	}
	c.misses++
	if h, ok := c.ids[hash]; ok && h.check == idCheck(key) {
		if c.ttl == 0 || now < h.expires {
			return nil, h.id
		}
		c.dropID(hash)
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
	size := int64(len(v.Content)) + int64(len(key.owner)+len(key.pack)+len(key.version)) + docOverhead
	hash := admission.Hash(key)
	var expires time.Duration
	if c.ttl > 0 {
		expires = readAt + c.ttl
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.generation.Load() {
		return
	}
	if key.raw {
		c.putID(hash, key, v.ID, expires)
		for c.bytes+c.idBytes > c.maxBytes {
			c.remove(c.lru.Back())
		}
	}
	if size > c.maxBytes/8 {
		return // one document never crowds out many
	}
	if e, ok := c.docs[hash]; ok {
		c.remove(e) // this document's, or one whose key shares its hash
	} else if over := c.bytes + c.idBytes + size - c.maxBytes; over > 0 && !c.admit.Admit(hash, admission.Victims(c.lru, over, docTally)) {
		return // full: the copy below is made only for what is kept
	}
	d := &cachedDoc{key: key, hash: hash, tally: c.admit.Start(hash), version: copyVersion(v), size: size, expires: expires}
	c.docs[hash] = c.lru.PushFront(d)
	c.bytes += size
	for c.bytes+c.idBytes > c.maxBytes {
		c.remove(c.lru.Back())
	}
}

// putID remembers that key names the version row id, making room among
// the ids (at most a quarter of the budget) by forgetting others, any:
// which ids go matters little, as a forgotten one costs its next miss one
// read by name. Under mu.
func (c *readCache) putID(hash uint64, key docID, id int64, expires time.Duration) {
	check := idCheck(key)
	if id == 0 || check == 0 {
		return
	}
	if h, ok := c.ids[hash]; ok {
		if h.check == check && h.id == id {
			h.expires = expires
			c.ids[hash] = h
			return
		}
		c.dropID(hash)
	}
	for other := range c.ids {
		if c.idBytes+idSize <= c.maxBytes/4 {
			break
		}
		c.dropID(other)
	}
	if c.idBytes+idSize > c.maxBytes/4 {
		return
	}
	c.ids[hash] = idHint{check: check, id: id, expires: expires}
	c.idBytes += idSize
}

// dropID forgets the id under hash, if any. Under mu.
func (c *readCache) dropID(hash uint64) {
	if _, ok := c.ids[hash]; ok {
		delete(c.ids, hash)
		c.idBytes -= idSize
	}
}

// docTally is what admission.Victims asks of a document.
func docTally(d *cachedDoc) (*admission.Tally, int64) { return &d.tally, d.size }

func (c *readCache) remove(e *list.Element) {
	d := c.lru.Remove(e).(*cachedDoc)
	delete(c.docs, d.hash)
	c.bytes -= d.size
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
		hash := admission.Hash(latest)
		if e, ok := c.docs[hash]; ok && e.Value.(*cachedDoc).key == latest {
			c.remove(e)
		}
		if h, ok := c.ids[hash]; ok && h.check == idCheck(latest) {
			c.dropID(hash)
		}
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
	clear(c.ids)
	c.idBytes = 0
}

// DocumentCache counts the read cache's answers; all zero without one.
func (s *Store) DocumentCache() registry.CacheStats {
	if s.cache == nil {
		return registry.CacheStats{}
	}
	c := s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return registry.CacheStats{Hits: c.hits, Misses: c.misses, Bytes: c.bytes + c.idBytes, MaxBytes: c.maxBytes}
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
