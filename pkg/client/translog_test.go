package client_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/translog"
)

// testLog is a transparency log built in the test with tlog and note and
// served over HTTP in the C2SP layout, the way pactd serves its own; the
// end-to-end tests in cmd/pact run the real pactd. It lets these tests
// show a client what no honest registry would: forks, rollbacks, tampered
// bundles, oversized answers.
type testLog struct {
	t      testing.TB
	signer note.Signer
	vkey   string
	srv    *httptest.Server

	mu      sync.Mutex
	entries [][]byte
	hashes  []tlog.Hash
	// override, when set, answers a path instead of the log.
	override func(path string) ([]byte, bool)

	requests atomic.Int64
	paths    []string // every path asked for, in order
}

func newTestLog(t testing.TB, origin string) *testLog {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, origin)
	if err != nil {
		t.Fatal(err)
	}
	return newTestLogWithKey(t, skey, vkey)
}

func newTestLogWithKey(t testing.TB, skey, vkey string) *testLog {
	t.Helper()
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	l := &testLog{t: t, signer: signer, vkey: vkey}
	l.srv = httptest.NewServer(l)
	t.Cleanup(l.srv.Close)
	return l
}

// fork returns a second log with the same key holding the first n entries
// of l, as a copy of its database would.
func (l *testLog) fork(n int) *testLog {
	f := &testLog{t: l.t, signer: l.signer, vkey: l.vkey}
	f.srv = httptest.NewServer(f)
	l.t.Cleanup(f.srv.Close)
	l.mu.Lock()
	entries := append([][]byte(nil), l.entries[:n]...)
	l.mu.Unlock()
	for _, e := range entries {
		f.add(e)
	}
	return f
}

func (l *testLog) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x >= int64(len(l.hashes)) {
			return nil, fmt.Errorf("hash %d not stored", x)
		}
		out[i] = l.hashes[x]
	}
	return out, nil
}

// add appends an entry and returns its index.
func (l *testLog) add(entry []byte) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := int64(len(l.entries))
	hs, err := tlog.StoredHashes(n, entry, l)
	if err != nil {
		l.t.Fatal(err)
	}
	l.entries = append(l.entries, entry)
	l.hashes = append(l.hashes, hs...)
	return n
}

// publish logs a token publish of owner/pack version with content.
func (l *testLog) publish(owner, pack, version string, content []byte) int64 {
	return l.add(translog.NewPublish(translog.PublishEvent{
		Time: time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC), Owner: owner, Pack: pack, Version: version,
		SHA256: hexSHA256(content), Size: int64(len(content)), Auth: translog.AuthToken,
	}).Marshal())
}

// fill logs n publishes of other packages.
func (l *testLog) fill(n int) {
	for i := range n {
		l.publish("filler", fmt.Sprintf("p%d", i), "1.0.0", []byte(fmt.Sprint(i)))
	}
}

func (l *testLog) checkpoint() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := int64(len(l.entries))
	h, err := tlog.TreeHash(n, l)
	if err != nil {
		l.t.Fatal(err)
	}
	msg, err := translog.SignCheckpoint(translog.Checkpoint{Origin: l.signer.Name(), Size: n, Hash: h}, l.signer)
	if err != nil {
		l.t.Fatal(err)
	}
	return msg
}

func (l *testLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.requests.Add(1)
	l.mu.Lock()
	l.paths = append(l.paths, r.URL.Path)
	override := l.override
	l.mu.Unlock()
	if override != nil {
		if body, ok := override(r.URL.Path); ok {
			w.Write(body)
			return
		}
	}
	switch path := r.URL.Path; {
	case path == "/log/key":
		fmt.Fprintln(w, l.vkey)
	case path == "/log/checkpoint":
		w.Write(l.checkpoint())
	case strings.HasPrefix(path, "/log/tile/"):
		t, err := translog.ParseTilePath(strings.TrimPrefix(path, "/log/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		n := int64(len(l.entries))
		if t.L == -1 {
			lo := t.N * translog.TileWidth
			if lo+int64(t.W) > n {
				http.NotFound(w, r)
				return
			}
			data, err := translog.EncodeBundle(l.entries[lo : lo+int64(t.W)])
			if err != nil {
				l.t.Error(err)
			}
			w.Write(data)
			return
		}
		// A tile exists if the tree holds every hash it covers.
		if (t.N*translog.TileWidth+int64(t.W))<<(t.L*translog.TileHeight) > n {
			http.NotFound(w, r)
			return
		}
		data, err := tlog.ReadTileData(t, l)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	default:
		http.NotFound(w, r)
	}
}

// verifier returns a LogVerifier of the log at url pinning vkey, with its
// state in cacheDir.
func logVerifier(t testing.TB, url, vkey, cacheDir string) *client.LogVerifier {
	t.Helper()
	c, err := client.New(url, client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	client.UseFakeClock(c)
	v, err := c.NewLogVerifier(vkey, cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantVerificationError(t *testing.T, err error, check, text string) {
	t.Helper()
	var verr *client.VerificationError
	if !errors.As(err, &verr) {
		t.Fatalf("error = %v (%T), want a VerificationError of %s", err, err, check)
	}
	if verr.Check != check || !strings.Contains(verr.Msg, text) {
		t.Fatalf("error = %s: %q, want %s: %q", verr.Check, verr.Msg, check, text)
	}
}

func TestLogVerifierProvesAVersionAndFollowsTheLogAsItGrows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cache := t.TempDir()
	for _, size := range []int{0, 1, 255, 256, 300, 70000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			l := newTestLog(t, "example.test/log")
			l.fill(size)
			doc := []byte("# Widget\n")
			idx := l.publish("alice", "widget", "1.0.0", doc)
			v := logVerifier(t, l.srv.URL, l.vkey, filepath.Join(cache, fmt.Sprint(size)))
			proof, err := v.VerifyVersion(ctx, "alice", "widget", "1.0.0", &idx, doc)
			if err != nil {
				t.Fatal(err)
			}
			if proof.Index != idx || proof.Checkpoint.Size != idx+1 || proof.Checkpoint.Previous != nil {
				t.Fatalf("proof = index %d in %d entries (previous %v), want %d in %d, none before", proof.Index, proof.Checkpoint.Size, proof.Checkpoint.Previous, idx, idx+1)
			}
			// The log grows; a second run proves the new checkpoint extends
			// the one kept by the first.
			l.fill(3)
			doc2 := []byte("# Widget two\n")
			idx2 := l.publish("alice", "widget", "2.0.0", doc2)
			v = logVerifier(t, l.srv.URL, l.vkey, filepath.Join(cache, fmt.Sprint(size)))
			proof, err = v.VerifyVersion(ctx, "alice", "widget", "2.0.0", &idx2, doc2)
			if err != nil {
				t.Fatal(err)
			}
			if prev := proof.Checkpoint.Previous; prev == nil || prev.Size != idx+1 {
				t.Fatalf("previous checkpoint = %+v, want the one of %d entries", prev, idx+1)
			}
			// The older version still proves in the newer checkpoint.
			if _, err := v.VerifyVersion(ctx, "alice", "widget", "1.0.0", &idx, doc); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLogVerifierRefusesWhatTheLogDoesNotSay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := newTestLog(t, "example.test/log")
	l.fill(10)
	doc := []byte("# Widget\n")
	idx := l.publish("alice", "widget", "1.0.0", doc)
	l.fill(2)

	for _, tc := range []struct {
		name                 string
		owner, pack, version string
		index                *int64
		content              []byte
		check, text          string
	}{
		{"other bytes", "alice", "widget", "1.0.0", &idx, []byte("# Widget!\n"), "entry", "the document's sha256 differs from the logged one"},
		{"other version", "alice", "widget", "1.0.1", &idx, doc, "entry", "not of alice/widget 1.0.1"},
		{"other owner", "mallory", "widget", "1.0.0", &idx, doc, "entry", "not of mallory/widget 1.0.0"},
		{"no index", "alice", "widget", "1.0.0", nil, doc, "inclusion", "no log index"},
		{"index beyond the log", "alice", "widget", "1.0.0", ptr(int64(99)), doc, "inclusion", "covers 13 entries, not entry 99"},
		{"negative index", "alice", "widget", "1.0.0", ptr(int64(-1)), doc, "inclusion", "impossible log index -1"},
		{"an entry of another kind", "alice", "widget", "1.0.0", ptr(int64(0)), doc, "entry", "not of alice/widget 1.0.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := logVerifier(t, l.srv.URL, l.vkey, t.TempDir())
			_, err := v.VerifyVersion(ctx, tc.owner, tc.pack, tc.version, tc.index, tc.content)
			wantVerificationError(t, err, tc.check, tc.text)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestLogVerifierRefusesACheckpointNotSignedByThePinnedKey(t *testing.T) {
	t.Parallel()
	l := newTestLog(t, "example.test/log")
	l.fill(3)
	// Another key of the same name, as a registry that swapped its key has.
	_, otherKey, err := note.GenerateKey(rand.Reader, "example.test/log")
	if err != nil {
		t.Fatal(err)
	}
	v := logVerifier(t, l.srv.URL, otherKey, t.TempDir())
	_, err = v.Latest(context.Background(), 0)
	wantVerificationError(t, err, "checkpoint", "the log's checkpoint is not signed by the pinned key "+otherKey)
}

// A checkpoint signed with the pinned key whose first line names another
// log is not this log's: the origin must be the key's name.
func TestLogVerifierRefusesACheckpointOfAnotherOrigin(t *testing.T) {
	t.Parallel()
	l := newTestLog(t, "example.test/log")
	l.fill(3)
	l.mu.Lock()
	l.override = func(path string) ([]byte, bool) {
		if path != "/log/checkpoint" {
			return nil, false
		}
		h, err := tlog.TreeHash(int64(len(l.entries)), l)
		if err != nil {
			t.Error(err)
		}
		text := translog.Checkpoint{Origin: "other.test/log", Size: int64(len(l.entries)), Hash: h}.Text()
		msg, err := note.Sign(&note.Note{Text: text}, l.signer)
		if err != nil {
			t.Error(err)
		}
		return msg, true
	}
	l.mu.Unlock()
	v := logVerifier(t, l.srv.URL, l.vkey, t.TempDir())
	_, err := v.Latest(context.Background(), 0)
	wantVerificationError(t, err, "checkpoint", `origin "other.test/log" is not the key's name "example.test/log"`)
}

func TestLogVerifierRefusesAFork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		seen     int // entries the client saw on the first history
		shared   int // entries both histories share
		forkAdds int // entries the fork appends after the shared ones
	}{
		{"same size", 10, 8, 2},
		{"the fork is longer", 10, 8, 5},
		{"the fork is longer, past a full tile", 300, 250, 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			l := newTestLog(t, "example.test/log")
			l.fill(tc.seen)
			if _, err := logVerifier(t, l.srv.URL, l.vkey, cache).Latest(ctx, 0); err != nil {
				t.Fatal(err)
			}
			f := l.fork(tc.shared)
			for i := range tc.forkAdds {
				f.publish("mallory", "evil", fmt.Sprint(i), []byte("evil"))
			}
			_, err := logVerifier(t, f.srv.URL, f.vkey, cache).Latest(ctx, 0)
			wantVerificationError(t, err, "consistency", "the registry shows a history inconsistent with the one seen on 2026-11-22 22:00 UTC: possible fork")
			// The evidence is kept, and the kept checkpoint did not move.
			evidence, _ := filepath.Glob(filepath.Join(cache, "log", "*", "forks", "*.txt"))
			if len(evidence) != 1 {
				t.Fatalf("fork evidence files = %v, want one", evidence)
			}
			if _, err := logVerifier(t, l.srv.URL, l.vkey, cache).Latest(ctx, 0); err != nil {
				t.Fatalf("the first history no longer verifies: %v", err)
			}
		})
	}
}

func TestLogVerifierRefusesARollback(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	l := newTestLog(t, "example.test/log")
	l.fill(10)
	if _, err := logVerifier(t, l.srv.URL, l.vkey, cache).Latest(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	older := l.fork(7)
	_, err := logVerifier(t, older.srv.URL, older.vkey, cache).Latest(context.Background(), 0)
	wantVerificationError(t, err, "consistency", "a history older than the one seen")
}

func TestLogVerifierRefusesATamperedBundle(t *testing.T) {
	t.Parallel()
	l := newTestLog(t, "example.test/log")
	doc := []byte("# Widget\n")
	idx := l.publish("alice", "widget", "1.0.0", doc)
	l.fill(2)
	forged := translog.NewPublish(translog.PublishEvent{
		Time: time.Date(2026, 11, 22, 22, 0, 0, 0, time.UTC), Owner: "alice", Pack: "widget", Version: "1.0.0",
		SHA256: hexSHA256([]byte("evil")), Size: 4, Auth: translog.AuthToken,
	}).Marshal()
	l.override = func(path string) ([]byte, bool) {
		if !strings.HasPrefix(path, "/log/tile/entries/") {
			return nil, false
		}
		l.mu.Lock()
		entries := append([][]byte{forged}, l.entries[1:]...)
		l.mu.Unlock()
		data, _ := translog.EncodeBundle(entries)
		return data, true
	}
	v := logVerifier(t, l.srv.URL, l.vkey, t.TempDir())
	_, err := v.VerifyVersion(context.Background(), "alice", "widget", "1.0.0", &idx, []byte("evil"))
	wantVerificationError(t, err, "inclusion", "does not match")
}

func TestLogVerifierBoundsWhatItReads(t *testing.T) {
	t.Parallel()
	l := newTestLog(t, "example.test/log")
	l.fill(3)
	l.override = func(path string) ([]byte, bool) {
		if path == "/log/checkpoint" {
			return make([]byte, 64<<10+1), true
		}
		return nil, false
	}
	v := logVerifier(t, l.srv.URL, l.vkey, t.TempDir())
	_, err := v.Latest(context.Background(), 0)
	wantVerificationError(t, err, "bounds", "larger than 65536 bytes")

	l.override = func(path string) ([]byte, bool) {
		if strings.HasPrefix(path, "/log/tile/0/") {
			return make([]byte, 32*256+1), true
		}
		return nil, false
	}
	// A tile longer than its width is refused (this one is checked only
	// once the entries' own tile fails to authenticate: the registry must
	// answer it, and does so wrongly).
	v = logVerifier(t, l.srv.URL, l.vkey, t.TempDir())
	l.mu.Lock()
	l.entries[0] = []byte("not what was hashed")
	l.mu.Unlock()
	_, err = v.Entries(context.Background(), mustLatest(t, v), 0, 1)
	wantVerificationError(t, err, "bounds", "larger than")
}

func mustLatest(t *testing.T, v *client.LogVerifier) *client.Checkpoint {
	t.Helper()
	cp, err := v.Latest(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestLogVerifierKeepsItsStateInTheCache shows where the state lives and
// that what was proved once is not read again.
func TestLogVerifierKeepsItsStateInTheCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cache := t.TempDir()
	l := newTestLog(t, "example.test/log")
	l.fill(600)
	v := logVerifier(t, l.srv.URL, l.vkey, cache)
	cp := mustLatest(t, v)
	// A long read (pact log watch) keeps the tiles, not the full bundles;
	// proving one entry keeps its bundle.
	if _, err := v.Entries(ctx, cp, 0, cp.Size); err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.ProveEntry(ctx, cp, 5); err != nil {
		t.Fatal(err)
	}
	dir := v.StateDir()
	if !strings.HasPrefix(dir, filepath.Join(cache, "log", "example.test_log+")) {
		t.Fatalf("state dir = %s, want one under %s named by the log", dir, cache)
	}
	for f, want := range map[string]bool{
		"checkpoint.json": true, "tile/0/000": true, "tile/0/001": true, "tile/1/000.p": true,
		"tile/entries/000": true, "tile/entries/001": false, "tile/entries/002.p": true,
	} {
		if _, err := os.Stat(filepath.Join(dir, f)); (err == nil) != want {
			t.Errorf("%s kept = %v, want %v", f, err == nil, want)
		}
	}
	// A second run proves entries of the first and last bundle with the
	// checkpoint as its only request.
	before := l.requests.Load()
	v = logVerifier(t, l.srv.URL, l.vkey, cache)
	cp = mustLatest(t, v)
	for _, i := range []int64{5, 599} {
		if _, _, err := v.ProveEntry(ctx, cp, i); err != nil {
			t.Fatal(err)
		}
	}
	if got := l.requests.Load() - before; got != 1 {
		t.Errorf("second run made %d requests, want 1", got)
	}
}

// verifyRequests publishes a version on a log of size entries that this
// client already verified once, and counts the requests a verification of
// the new version makes, and of it again.
func verifyRequests(t testing.TB, size int) (newVersion, again int64) {
	ctx := context.Background()
	cache := t.(interface{ TempDir() string }).TempDir()
	l := newTestLog(t, "example.test/log")
	l.fill(size)
	doc := []byte("# Widget\n")
	idx := l.publish("alice", "widget", "1.0.0", doc)
	if _, err := logVerifier(t, l.srv.URL, l.vkey, cache).VerifyVersion(ctx, "alice", "widget", "1.0.0", &idx, doc); err != nil {
		t.Fatal(err)
	}
	// Others publish; then a new version.
	l.fill(40)
	doc2 := []byte("# Widget 2\n")
	idx2 := l.publish("alice", "widget", "2.0.0", doc2)
	for _, count := range []*int64{&newVersion, &again} {
		before := l.requests.Load()
		if _, err := logVerifier(t, l.srv.URL, l.vkey, cache).VerifyVersion(ctx, "alice", "widget", "2.0.0", &idx2, doc2); err != nil {
			t.Fatal(err)
		}
		*count = l.requests.Load() - before
	}
	return newVersion, again
}

// TestLogVerificationCostsAtMostTwoRequestsOnASmallLog: with the tiles of
// an earlier run kept, verifying a new version costs the checkpoint and the
// newest entry bundle (which also gives the newest level-0 tile); the same
// version again costs the checkpoint alone. When the log crossed a tile's
// end since the last run, the now full level-0 tile and the wider partial
// tile above it are read once more.
func TestLogVerificationCostsAtMostTwoRequestsOnASmallLog(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		size          int
		newVer, again int64
	}{
		{"small", 10, 2, 1},
		{"one tile", 200, 2, 1},
		{"across a tile's end", 1000, 4, 1},
		{"three levels", 70000, 2, 1},
	} {
		newVer, again := verifyRequests(t, tc.size)
		t.Logf("%s (%d entries): %d requests for a new version, %d for the same again", tc.name, tc.size, newVer, again)
		if newVer > tc.newVer || again > tc.again {
			t.Errorf("%s: %d and %d requests, want at most %d and %d", tc.name, newVer, again, tc.newVer, tc.again)
		}
	}
}

// BenchmarkLogVerificationRequests reports the requests of a verification
// on large logs (go test -bench LogVerificationRequests ./pkg/client).
func BenchmarkLogVerificationRequests(b *testing.B) {
	for _, size := range []int{1000, 100000, 1000000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			var newVer, again int64
			for b.Loop() {
				newVer, again = verifyRequests(b, size)
			}
			b.ReportMetric(float64(newVer), "requests/new-version")
			b.ReportMetric(float64(again), "requests/again")
		})
	}
}

func TestLogVerifierRefusesTilesThatDoNotMatchTheCheckpoint(t *testing.T) {
	t.Parallel()
	l := newTestLog(t, "example.test/log")
	l.fill(600)
	l.override = func(path string) ([]byte, bool) {
		if strings.HasPrefix(path, "/log/tile/1/") {
			return make([]byte, 2*tlog.HashSize), true
		}
		return nil, false
	}
	v := logVerifier(t, l.srv.URL, l.vkey, t.TempDir())
	_, _, err := v.ProveEntry(context.Background(), mustLatest(t, v), 5)
	wantVerificationError(t, err, "inclusion", "the registry's log tiles do not match its signed checkpoint of 600 entries")
}
