package sqlstore

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Readers that read "the database" and keep what they read, racing a
// writer that changes it and invalidates: once the invalidation returned,
// no read finds the old version (what a publish promises its caller).
func TestReadCacheNeverServesWhatAWriteReplaced(t *testing.T) {
	for _, ttl := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprint("ttl ", ttl), func(t *testing.T) {
			c := newReadCache(1<<20, ttl)
			var db atomic.Int64 // the latest version's number, also its row id
			db.Store(1)
			key := rawKey("alice", "hot", "")
			read := func() int64 {
				gen := c.gen()
				v, id := c.find(key)
				if v != nil {
					return v.ID
				}
				n := db.Load()
				if id != 0 {
					n = id // the row the id names, as rawDocumentByID reads it
				}
				var readAt time.Duration
				if ttl > 0 {
					readAt = clock()
				}
				c.putDoc(key, &registry.Version{ID: n, Content: []byte("x")}, gen, readAt)
				return n
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
							read()
						}
					}
				})
			}
			for i := int64(2); i < 3000; i++ {
				db.Store(i)
				c.published("alice", "hot")
				if got := read(); got != i {
					close(stop)
					wg.Wait()
					t.Fatalf("after the write of %d, a read found %d", i, got)
				}
			}
			close(stop)
			wg.Wait()
		})
	}
}
