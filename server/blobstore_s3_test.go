package server_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/s3test"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/internal/storetest"
	"github.com/pact-registry/pact/internal/syncbuf"
	"github.com/pact-registry/pact/server/blobs"
)

// Documents on S3-compatible storage (a real versitygw): served from the
// bucket, a damaged object never served; with the storage down a publish
// answers 503 with Retry-After and stores nothing, while the documents
// read before are still served; once it is back, publishes succeed.
func TestDocumentsOnS3(t *testing.T) {
	t.Parallel()
	s3 := s3test.Start(t)
	servertest.Backends(t, func(t *testing.T, dsn string) {
		bucketURL := s3.Bucket(t)
		store, err := blobs.Open(context.Background(), bucketURL, s3.Creds)
		if err != nil {
			t.Fatal(err)
		}
		logs := new(syncbuf.Buffer)
		env := servertest.Start(t, dsn, servertest.Options{Blobs: store, Logs: logs})
		alice := env.CreateUser(t, "alice")
		v1, v2 := packDoc("doc", "1.0"), packDoc("doc", "2.0")
		for _, doc := range []string{v1, v2} {
			resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
			wantStatus(t, resp.Status, 200, resp.Body)
		}
		if n := rowDocuments(t, env.Store); n != 0 {
			t.Errorf("%d rows hold their document; want none", n)
		}
		bucket := strings.TrimPrefix(bucketURL[:strings.Index(bucketURL, "/docs")], "s3://")
		if onS3, err := os.ReadFile(s3.Object(bucket, "docs/"+sha256Hex(v1))); err != nil || string(onS3) != v1 {
			t.Fatalf("object of 1.0: %q, %v", onS3, err)
		}
		for path, doc := range map[string]string{"/raw/alice/doc.pact.md": v2, "/raw/alice/doc@1.0.pact.md": v1} {
			resp := env.API.Get(path)
			if resp.Status != 200 || string(resp.Body) != doc || resp.Header.Get("ETag") != `"`+sha256Hex(doc)+`"` {
				t.Errorf("GET %s: %d %q %v", path, resp.Status, resp.Body, resp.Header)
			}
		}

		// A third version, damaged on the storage before anyone read it.
		v3 := packDoc("doc", "3.0")
		resp := env.API.PostJSON("/api/publish", map[string]any{"content": v3}, alice.Bearer())
		wantStatus(t, resp.Status, 200, resp.Body)
		if err := os.WriteFile(s3.Object(bucket, "docs/"+sha256Hex(v3)), []byte(strings.Replace(v3, "Some", "Evil", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		damaged := env.API.Get("/raw/alice/doc@3.0.pact.md")
		wantStatus(t, damaged.Status, http.StatusInternalServerError, damaged.Body)
		if !strings.Contains(logs.String(), "blob "+sha256Hex(v3)+": its bytes hash to") {
			t.Errorf("no log line names the damaged blob:\n%s", logs.String())
		}

		s3.Stop(t)
		down := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("doc", "4.0")}, alice.Bearer())
		wantError(t, down.Status, down.JSON(t), http.StatusServiceUnavailable, "retry")
		if down.Header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
		wantStatus(t, env.API.Get("/raw/alice/doc@4.0.pact.md").Status, http.StatusNotFound, nil)
		for path, doc := range map[string]string{"/raw/alice/doc@2.0.pact.md": v2, "/raw/alice/doc@1.0.pact.md": v1} {
			if resp := env.API.Get(path); resp.Status != 200 || string(resp.Body) != doc {
				t.Errorf("with the storage down, GET %s (read before): %d %q", path, resp.Status, resp.Body)
			}
		}
		s3.Start(t)
		up := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("doc", "4.0")}, alice.Bearer())
		wantStatus(t, up.Status, 200, up.Body)
		if resp := env.API.Get("/raw/alice/doc.pact.md"); resp.Status != 200 || string(resp.Body) != packDoc("doc", "4.0") {
			t.Errorf("after the storage came back: %d %q", resp.Status, resp.Body)
		}
		if err := env.Service.CheckLog(context.Background(), func(string) {}); err == nil || !strings.Contains(err.Error(), sha256Hex(v3)) {
			t.Errorf("log check = %v, want it to name the damaged blob", err)
		}
	})
}

// Two replicas on one PostgreSQL database share one bucket: what one
// publishes, the other (its caches empty) serves from the bucket.
func TestReplicasShareOneBucket(t *testing.T) {
	t.Parallel()
	s3 := s3test.Start(t)
	dsn := storetest.PostgresURL(t)
	bucketURL := s3.Bucket(t)
	replica := func() *servertest.Env {
		store, err := blobs.Open(context.Background(), bucketURL, s3.Creds)
		if err != nil {
			t.Fatal(err)
		}
		return servertest.Start(t, dsn, servertest.Options{Blobs: store})
	}
	a, b := replica(), replica()
	alice := a.CreateUser(t, "alice")
	docs := map[string]string{}
	for _, v := range []string{"1.0", "1.1", "2.0"} {
		docs[v] = packDoc("shared", v)
		resp := a.API.PostJSON("/api/publish", map[string]any{"content": docs[v]}, alice.Bearer())
		wantStatus(t, resp.Status, 200, resp.Body)
	}
	for v, doc := range docs {
		if resp := b.API.Get("/raw/alice/shared@" + v + ".pact.md"); resp.Status != 200 || string(resp.Body) != doc {
			t.Errorf("replica b, %s: %d %q", v, resp.Status, resp.Body)
		}
	}
	if resp := b.API.Get("/raw/alice/shared.pact.md"); string(resp.Body) != docs["2.0"] {
		t.Errorf("replica b, latest: %d %q", resp.Status, resp.Body)
	}
}

// Object storage stopped and started again under a publish load: every
// publish answered 200 is served byte for byte, the others answered 503
// with Retry-After; no version is stored without its document (the log
// check reads every one back).
func TestS3StoppedUnderPublishLoad(t *testing.T) {
	t.Parallel()
	s3 := s3test.Start(t)
	servertest.Backends(t, func(t *testing.T, dsn string) {
		store, err := blobs.Open(context.Background(), s3.Bucket(t), s3.Creds)
		if err != nil {
			t.Fatal(err)
		}
		env := servertest.Start(t, dsn, servertest.Options{Blobs: store})
		alice := env.CreateUser(t, "alice")
		const clients = 6
		type sent struct {
			doc    string
			status int
		}
		results := make([][]sent, clients)
		var acked, refused atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					doc := packDoc(fmt.Sprintf("load-%d", c), fmt.Sprintf("1.0.%d", n))
					resp := env.API.PostJSON("/api/publish", map[string]any{"content": doc}, alice.Bearer())
					if resp.Status == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
						t.Errorf("503 without Retry-After")
					}
					results[c] = append(results[c], sent{doc, resp.Status})
					switch resp.Status {
					case http.StatusOK:
						acked.Add(1)
					case http.StatusServiceUnavailable:
						refused.Add(1)
					}
				}
			})
		}
		// Each phase lasts until the load has seen it.
		until := func(what string, done func() bool) {
			t.Helper()
			for deadline := time.Now().Add(30 * time.Second); !done(); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					close(stop)
					wg.Wait()
					t.Fatalf("the load never saw %s", what)
				}
			}
		}
		until("publishes acknowledged", func() bool { return acked.Load() >= 20 })
		s3.Stop(t)
		until("publishes refused", func() bool { return refused.Load() >= 20 })
		s3.Start(t)
		before := acked.Load()
		until("publishes acknowledged again", func() bool { return acked.Load() >= before+20 })
		close(stop)
		wg.Wait()

		counts := map[int]int{}
		for c, rs := range results {
			for n, r := range rs {
				counts[r.status]++
				path := fmt.Sprintf("/raw/alice/load-%d@1.0.%d.pact.md", c, n)
				got := env.API.Get(path)
				switch r.status {
				case http.StatusOK:
					if got.Status != 200 || string(got.Body) != r.doc {
						t.Errorf("acknowledged %s: %d %q", path, got.Status, got.Body)
					}
				case http.StatusServiceUnavailable:
					if got.Status == 200 && string(got.Body) != r.doc {
						t.Errorf("unacknowledged %s stored otherwise: %q", path, got.Body)
					}
				default:
					t.Errorf("publish %s: %d", path, r.status)
				}
			}
		}
		t.Logf("publishes: %v", counts)
		if counts[http.StatusOK] == 0 || counts[http.StatusServiceUnavailable] == 0 {
			t.Errorf("want publishes both acknowledged and refused, got %v", counts)
		}
		if err := env.Service.CheckLog(context.Background(), func(string) {}); err != nil {
			t.Errorf("log check: %v", err)
		}
	})
}
