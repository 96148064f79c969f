package sqlstore

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/server/registry"
)

// rawKey is a raw document's key, as RawDocument makes it.
func rawKey(owner, pack, version string) docID {
	key := docKey(owner, pack, version)
	key.raw = true
	return key
}

// rawVersion is a read raw document of the version row id, of size bytes.
func rawVersion(id int64, size int) *registry.Version {
	v := cachedVersion("1.0.0", size)
	v.ID = id
	return v
}

// A raw document the cache does not keep (here: larger than an eighth of
// it) leaves the id of its version row, for the next miss to read by
// primary key; every write that changes which row a package's latest is
// drops that id, as it drops the document, and a read that raced a write
// keeps no id, as it keeps no document.
func TestReadCacheKnowsTheRowsOfDocumentsItDidNotKeep(t *testing.T) {
	const budget = 64 << 10
	big := budget / 4
	latest, pinned, other := rawKey("Alice", "Foo", ""), rawKey("alice", "foo", "1.0.0"), rawKey("bob", "foo", "")
	fill := func(c *readCache) {
		c.putDoc(latest, rawVersion(7, big), c.gen(), clock())
		c.putDoc(pinned, rawVersion(5, big), c.gen(), clock())
		c.putDoc(other, rawVersion(9, big), c.gen(), clock())
	}
	want := func(t *testing.T, c *readCache, key docID, id int64) {
		t.Helper()
		v, got := c.find(key)
		if v != nil {
			t.Fatalf("%v: the cache kept a document of a quarter of its budget", key)
		}
		if got != id {
			t.Errorf("%v: the cache knows row %d, want %d", key, got, id)
		}
	}

	c := newReadCache(budget, 0)
	fill(c)
	want(t, c, latest, 7)
	want(t, c, pinned, 5)
	want(t, c, rawKey("alice", "foo", "2.0.0"), 0)
	notRaw := docKey("alice", "foo", "")
	c.putDoc(notRaw, rawVersion(7, big), c.gen(), clock())
	want(t, c, notRaw, 0) // only the raw path reads by id

	for _, tc := range []struct {
		name  string
		write func(c *readCache)
	}{
		{"a publish", func(c *readCache) { c.published("alice", "foo") }},
		{"a yank or a deprecation", func(c *readCache) { c.packageChanged("alice", "foo") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newReadCache(budget, 0)
			fill(c)
			tc.write(c)
			want(t, c, latest, 0)
			want(t, c, pinned, 5) // a pinned version is always the same row
			want(t, c, other, 9)
		})
	}
	t.Run("a reset", func(t *testing.T) {
		c := newReadCache(budget, 0)
		fill(c)
		c.reset()
		for _, key := range []docID{latest, pinned, other} {
			want(t, c, key, 0)
		}
		c.ids.CleanUp()
		if got := c.ids.WeightedSize(); got != 0 {
			t.Errorf("an empty cache counts %d bytes of ids", got)
		}
	})
	t.Run("a read that raced a publish", func(t *testing.T) {
		c := newReadCache(budget, 0)
		gen := c.gen()
		c.published("alice", "foo")
		c.putDoc(latest, rawVersion(7, big), gen, clock())
		want(t, c, latest, 0)
	})
	t.Run("an id older than the ttl", func(t *testing.T) {
		// As in TestReadCacheEntriesExpire: one id fresh for far longer
		// than the test, one that expires 30 ms after it was kept, so a
		// slow machine only makes the old one older.
		const ttl = time.Minute
		c := newReadCache(budget, ttl)
		c.putDoc(latest, rawVersion(7, big), c.gen(), clock())
		c.putDoc(pinned, rawVersion(5, big), c.gen(), clock()-ttl+30*time.Millisecond)
		c.putDoc(other, rawVersion(9, big), c.gen(), clock()-2*ttl)
		want(t, c, other, 0)
		time.Sleep(60 * time.Millisecond)
		want(t, c, pinned, 0)
		want(t, c, latest, 7)
		c.ids.CleanUp()
		if got, want := c.ids.WeightedSize(), uint64(latest.bytes()+idOverhead); got != want {
			t.Errorf("with one id left, the ids count %d bytes, want %d", got, want)
		}
	})
}

// Ids take at most a quarter of the budget, and documents and ids
// together at most all of it, however many documents are read; the ids
// kept are the right ones.
func TestReadCacheIDsStayWithinTheirShare(t *testing.T) {
	const budget = 64 << 10
	c := newReadCache(budget, 0)
	for i := range 5000 {
		size := 3000
		if i%3 == 0 {
			size = budget / 4 // never kept: only its id is
		}
		c.putDoc(rawKey("mirror", fmt.Sprintf("pack-%05d", i), ""), rawVersion(int64(i+1), size), c.gen(), clock())
		c.docs.CleanUp()
		c.ids.CleanUp()
		if ids := c.ids.WeightedSize(); ids > budget/4 || c.bytes() > budget {
			t.Fatalf("after %d reads: %d bytes of ids and %d in all, over %d and %d", i+1, ids, c.bytes(), budget/4, budget)
		}
	}
	known := int64(0)
	for i := range 5000 {
		v, id := c.find(rawKey("mirror", fmt.Sprintf("pack-%05d", i), ""))
		switch {
		case v != nil && v.ID != int64(i+1), id != 0 && id != int64(i+1):
			t.Fatalf("pack-%05d: the cache answers row %d or %d, want %d", i, v.ID, id, i+1)
		case id != 0:
			known++
		}
	}
	if idSize := rawKey("mirror", "pack-00000", "").bytes() + idOverhead; known < budget/4/idSize*9/10 {
		t.Errorf("the cache knows %d ids in %d bytes", known, budget/4)
	}
}

// idOverhead, with the key's strings, is at least what an id costs the heap
// (the ids' share of the budget bounds their memory), and not several
// times it, at every size the map grows through.
func TestReadCacheCountsItsIDsBytes(t *testing.T) {
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, n := range []int{1000, 5000, 20_000, 60_000, 130_000, 250_000} {
		keys := make([]docID, n)
		for i := range keys {
			keys[i] = rawKey("owner-name", fmt.Sprintf("a-pack-name-%06d", i), "1.0.0")
		}
		before := heap()
		c := newReadCache(1<<40, 0)
		for i, key := range keys {
			c.ids.Set(key, idHint{id: int64(i + 1)})
		}
		c.ids.CleanUp()
		used, counted := int64(heap()-before), int64(c.ids.WeightedSize())
		runtime.KeepAlive(keys)
		if used > counted {
			t.Errorf("%d ids take %d bytes of heap, %d each; the cache counts %d", n, used, used/int64(n), counted/int64(n))
		}
		if used < counted/3 {
			t.Errorf("%d ids take %d bytes of heap, %d each; the cache counts %d, more than three times that", n, used, used/int64(n), counted/int64(n))
		}
		t.Logf("%d ids: %d bytes of heap each; the cache counts %d", n, used/int64(n), counted/int64(n))
		runtime.KeepAlive(c)
	}
}

// Through the store: once a raw document has been read, a miss reads its
// version row by primary key, and no longer finds it by name. Here the
// owner is renamed behind the store's back (pact never renames), so a
// read by name would find nothing.
func TestRawMissReadsTheVersionRowByPrimaryKey(t *testing.T) {
	ctx := context.Background()
	// Too small to keep any document, big enough for a few ids.
	s := openForTest(t, storetest.SQLiteDSN(t), Options{CacheBytes: 4095})
	owner, content := seedAlicePack(t, s)
	for _, version := range []string{"", "1.0.0"} {
		if _, err := s.RawDocument(ctx, "alice", "pack", version); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.write.ExecContext(ctx, `UPDATE accounts SET username = 'renamed' WHERE id = ?`, owner.ID); err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"", "1.0.0"} {
		v, err := s.RawDocument(ctx, "alice", "pack", version)
		if err != nil || string(v.Content) != string(content) {
			t.Errorf("alice/pack@%q read again: %v, %v; want the document, by its row", version, v, err)
		}
	}
	if _, err := s.RawDocument(ctx, "alice", "pack", "2.0.0"); registry.ErrorCode(err) != registry.NotFound {
		t.Errorf("a version never read: %v, want not found (read by name)", err)
	}
	s.cache.reset()
	if _, err := s.RawDocument(ctx, "alice", "pack", ""); registry.ErrorCode(err) != registry.NotFound {
		t.Errorf("after the cache forgot the id: %v, want not found (read by name)", err)
	}
}
