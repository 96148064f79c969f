package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/clip"
	"github.com/pact-registry/pact/pkg/routes"
	"github.com/pact-registry/pact/pkg/translog"
)

// Bounds on what the client reads of the transparency log (docs/protocol.md,
// "The client's verification"): nothing the registry sends can make it read
// or keep more.
const (
	maxLogKeyBytes     = 4 << 10
	maxCheckpointBytes = 64 << 10
	maxBundleBytes     = translog.TileWidth * (2 + translog.MaxEntrySize)
	// maxTreeSize is far beyond any real registry; a checkpoint claiming more
	// is refused before any arithmetic on it.
	maxTreeSize = 1 << 40
	// checkpointWait is how long a verification waits for a checkpoint that
	// covers an entry: a publish is covered within 1 s, and replicas behind a
	// load balancer may answer a checkpoint a moment older than one seen.
	checkpointWait = 3 * time.Second
	checkpointPoll = 250 * time.Millisecond
)

// VerificationError is a failure to verify what the registry served against
// its transparency log: a checkpoint not signed by the pinned key, a history
// inconsistent with the one seen before, an entry missing from the log or
// not matching the document. It is evidence that the registry (or someone
// between it and the client) misbehaves, never a network hiccup: failures
// to reach the registry stay the errors they are.
type VerificationError struct {
	// Check names what failed: "log-key", "checkpoint", "witness" (the
	// cosignatures do not meet the witness policy), "freshness" (the newest
	// quorum of them is too old), "consistency", "inclusion", "entry",
	// "signature", "bounds" (an answer over its size), "digest" (the
	// registry's own digests disagree with each other or with the bytes).
	Check string
	Msg   string
}

func (e *VerificationError) Error() string { return e.Msg }

func verifyErrorf(check, format string, args ...any) error {
	return &VerificationError{Check: check, Msg: fmt.Sprintf(format, args...)}
}

// LogKey fetches the verifier key the registry announces for its log
// (GET /log/key, the signed-note form name+hash+key). A client should pin
// it once and compare later answers with the pinned key, never trust it
// afresh on every run.
func (c *Client) LogKey(ctx context.Context) (string, error) {
	data, err := c.getLog(ctx, routes.LogKey, maxLogKeyBytes)
	if err != nil {
		return "", logRouteError(routes.LogKey, err)
	}
	key := strings.TrimSpace(string(data))
	if _, err := note.NewVerifier(key); err != nil {
		return "", verifyErrorf("log-key", "the registry's log key %q is not a verifier key: %v", clip.Text(key, 80), err)
	}
	return key, nil
}

// LogPolicy fetches the witness policy the registry announces for its log
// (GET /log/policy), parsed; nil when it has none (404). As with the key,
// a client should pin it once, never trust it afresh on every run.
func (c *Client) LogPolicy(ctx context.Context) (*translog.Policy, error) {
	data, err := c.getLog(ctx, routes.LogPolicy, translog.MaxPolicySize)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, logRouteError(routes.LogPolicy, err)
	}
	p, err := translog.ParsePolicy(data)
	if err != nil {
		return nil, verifyErrorf("witness", "the registry's witness policy does not parse: %v", err)
	}
	return p, nil
}

// getLog GETs one of the log's routes with a bound on the answer.
func (c *Client) getLog(ctx context.Context, path string, limit int64) ([]byte, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: path, repeatable: true, maxBytes: limit, accept: "*/*"})
	if err != nil {
		var tooLarge *TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, verifyErrorf("bounds", "%v", err)
		}
		return nil, err
	}
	return resp.body, nil
}

// logRouteError turns a refusal of one of the log's routes (a 4xx answer)
// into a VerificationError: a registry that will not show its log cannot
// be verified. Server faults and network failures stay what they are.
func logRouteError(path string, err error) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode < 400 || apiErr.StatusCode >= 500 || apiErr.StatusCode == http.StatusTooManyRequests {
		return err
	}
	if apiErr.StatusCode == http.StatusNotFound && (path == routes.LogKey || path == routes.LogCheckpoint) {
		return verifyErrorf("checkpoint", "the registry serves no transparency log (GET %s answered 404)", path)
	}
	return verifyErrorf("inclusion", "the registry refuses GET %s: %s", path, apiErr.Error())
}

// LogVerifier checks versions and events against the registry's
// transparency log, with the log's verifier key pinned by the caller. It
// keeps, per log, the last checkpoint it verified and the tiles it read in
// a directory of the user's cache, so every run checks that the log only
// grew since the last one and reads each full tile once. It is safe for
// concurrent use.
type LogVerifier struct {
	c        *Client
	key      string
	verifier note.Verifier
	state    *logState
	// policy, when set, is the witness policy every checkpoint must meet,
	// its newest quorum at most maxAge old (0: any age); SetPolicy.
	policy *translog.Policy
	maxAge time.Duration

	mu      sync.Mutex
	tiles   map[tlog.Tile][]byte   // this run's tiles, fetched or derived from entry bundles
	bundles map[tlog.Tile][][]byte // this run's entry bundles, not yet checked
}

// NewLogVerifier returns a verifier of c's log with the pinned verifier key
// (name+hash+key) that keeps its state under cacheDir (the user's cache
// directory for pact, e.g. ~/.cache/pact).
func (c *Client) NewLogVerifier(key, cacheDir string) (*LogVerifier, error) {
	key = strings.TrimSpace(key)
	v, err := note.NewVerifier(key)
	if err != nil {
		return nil, fmt.Errorf("the log key %q is not a verifier key (name+hash+key): %v", clip.Text(key, 80), err)
	}
	if cacheDir == "" {
		return nil, errors.New("no cache directory for the log's state")
	}
	return &LogVerifier{
		c: c, key: key, verifier: v,
		state: &logState{dir: filepath.Join(cacheDir, "log", stateDirName(v))},
		tiles: map[tlog.Tile][]byte{}, bundles: map[tlog.Tile][][]byte{},
	}, nil
}

// Key is the pinned verifier key.
func (v *LogVerifier) Key() string { return v.key }

// SetPolicy makes every checkpoint the verifier accepts carry cosignatures
// that meet the witness policy p (docs/protocol.md, Witnesses), the newest
// quorum of them at most maxAge old (0: any age). The policy must name the
// pinned key in a log line.
func (v *LogVerifier) SetPolicy(p *translog.Policy, maxAge time.Duration) error {
	if !p.NamesLog(v.key) {
		return fmt.Errorf("the witness policy has no line \"log %s\" for the log's key", v.key)
	}
	v.policy, v.maxAge = p, maxAge
	return nil
}

// Policy is the witness policy set with SetPolicy, nil without one.
func (v *LogVerifier) Policy() *translog.Policy { return v.policy }

// StateDir is the directory holding this log's last checkpoint, tiles and
// watch positions.
func (v *LogVerifier) StateDir() string { return v.state.dir }

// Checkpoint is a signed tree head of the log that the verifier checked:
// signed by the pinned key and consistent with the last one seen.
type Checkpoint struct {
	translog.Checkpoint
	// Note is the signed note as the registry served it.
	Note []byte
	// Previous is the checkpoint this client had seen before on this log,
	// nil on the first use; the new one was proved to extend it.
	Previous *SeenCheckpoint
	// Witnessed says which witnesses cosigned it and when a quorum last
	// did, nil without a witness policy.
	Witnessed *translog.Witnessed
}

// SeenCheckpoint is a checkpoint kept from an earlier run.
type SeenCheckpoint struct {
	translog.Checkpoint
	Note   []byte
	SeenAt time.Time
}

// fetchCheckpoint GETs the checkpoint at path (/log/checkpoint, with or
// without ?wait=1) and checks its signature and form.
func (v *LogVerifier) fetchCheckpoint(ctx context.Context, path string) (*Checkpoint, error) {
	data, err := v.c.getLog(ctx, path, maxCheckpointBytes)
	if err != nil {
		return nil, logRouteError(routes.LogCheckpoint, err)
	}
	cp, err := translog.OpenCheckpoint(data, v.verifier)
	if err != nil {
		var unknown *note.UnverifiedNoteError
		var invalid *note.InvalidSignatureError
		if errors.As(err, &unknown) || errors.As(err, &invalid) {
			return nil, verifyErrorf("checkpoint", "the log's checkpoint is not signed by the pinned key %s", v.key)
		}
		return nil, verifyErrorf("checkpoint", "the log's checkpoint does not verify against the pinned key %s: %v", v.key, err)
	}
	if cp.Size > maxTreeSize {
		return nil, verifyErrorf("checkpoint", "the log's checkpoint claims %d entries, more than any registry holds", cp.Size)
	}
	out := &Checkpoint{Checkpoint: cp, Note: data}
	if v.policy == nil {
		return out, nil
	}
	if out.Witnessed, err = v.policy.Verify(data); err != nil {
		return nil, verifyErrorf("witness", "the log's checkpoint of %s is not cosigned by the witnesses its policy requires: %v", countEntries(cp.Size), err)
	}
	if q := out.Witnessed.QuorumTime; v.maxAge > 0 && !q.IsZero() {
		if age := v.c.now().Sub(q); age > v.maxAge {
			return nil, verifyErrorf("freshness", "the log's newest checkpoint was last cosigned by a quorum of its witnesses %s ago (%s), longer ago than the %s allowed: the registry or its witnesses are stuck, or this client is shown an old view of the log",
				roundAge(age), q.Format("2006-01-02 15:04:05 UTC"), v.maxAge)
		}
	}
	return out, nil
}

// roundAge says a duration to the second, or the minute past an hour.
func roundAge(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// Latest fetches the log's checkpoint and checks it is signed by the pinned
// key and consistent with the last checkpoint seen, which it then replaces
// if the log grew. minSize asks for a checkpoint of at least that many
// entries (an entry just logged), waiting a few seconds for one.
func (v *LogVerifier) Latest(ctx context.Context, minSize int64) (*Checkpoint, error) {
	return v.latest(ctx, routes.LogCheckpoint, minSize, nil)
}

// Current is Latest for a checkpoint that covers every entry the registry
// had logged when it was asked (GET /log/checkpoint?wait=1, which waits a
// moment for the log's sequencer), so a change just made, here or by
// anyone, is in it. A registry that predates the parameter answers its
// latest checkpoint, as for Latest.
func (v *LogVerifier) Current(ctx context.Context) (*Checkpoint, error) {
	return v.latest(ctx, routes.LogCheckpoint+"?wait=1", 0, nil)
}

// latest is Latest of the checkpoint at path, with a hook that runs
// between the fetch and the consistency check (prefetching what both
// need).
func (v *LogVerifier) latest(ctx context.Context, path string, minSize int64, prefetch func(*Checkpoint) error) (*Checkpoint, error) {
	seen, err := v.state.loadCheckpoint(v.verifier)
	if err != nil {
		return nil, err
	}
	var cp *Checkpoint
	deadline := v.c.now().Add(checkpointWait)
	for {
		cp, err = v.fetchCheckpoint(ctx, path)
		if err != nil {
			return nil, err
		}
		behind := cp.Size < minSize || (seen != nil && cp.Size < seen.Size)
		if !behind || !v.c.now().Before(deadline) {
			break
		}
		if err := v.c.sleep(ctx, checkpointPoll); err != nil {
			return nil, err
		}
	}
	if seen != nil && cp.Size < seen.Size {
		return nil, verifyErrorf("consistency",
			"the registry shows a history older than the one seen on %s (%s then, %d now): a rollback or a possible fork",
			seenDate(seen), countEntries(seen.Size), cp.Size)
	}
	if cp.Size < minSize {
		return nil, verifyErrorf("inclusion", "the log's checkpoint covers %s, not entry %d, after waiting %s", countEntries(cp.Size), minSize-1, checkpointWait)
	}
	if prefetch != nil {
		if err := prefetch(cp); err != nil {
			return nil, err
		}
	}
	if seen != nil {
		if err := v.checkConsistent(ctx, seen, cp); err != nil {
			return nil, err
		}
		cp.Previous = seen
	}
	if seen == nil || cp.Size > seen.Size {
		if err := v.state.saveCheckpoint(cp, v.c.now()); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// checkConsistent proves that cp extends seen (tlog.ProveTree, CheckTree).
func (v *LogVerifier) checkConsistent(ctx context.Context, seen *SeenCheckpoint, cp *Checkpoint) error {
	fork := func() error {
		path := v.state.saveForkEvidence(seen, cp, v.c.now())
		msg := fmt.Sprintf("the registry shows a history inconsistent with the one seen on %s: possible fork "+
			"(then %s with root %s, now %s with root %s)",
			seenDate(seen), countEntries(seen.Size), seen.Hash, countEntries(cp.Size), cp.Hash)
		if path != "" {
			msg += "; both signed checkpoints are kept in " + path
		}
		return &VerificationError{Check: "consistency", Msg: msg}
	}
	if cp.Size == seen.Size {
		if cp.Hash != seen.Hash {
			return fork()
		}
		return nil
	}
	if seen.Size == 0 {
		return nil // the empty tree is a prefix of every tree
	}
	var proof tlog.TreeProof
	err := v.withHashes(ctx, cp, func(r tlog.HashReader) error {
		var err error
		proof, err = tlog.ProveTree(cp.Size, seen.Size, r)
		return err
	})
	if err != nil {
		return err
	}
	if tlog.CheckTree(proof, cp.Size, cp.Hash, seen.Size, seen.Hash) != nil {
		return fork()
	}
	return nil
}

// withHashes runs f with a hash reader of cp's tree over the log's tiles,
// authenticated against cp's root hash. Tiles that fail to authenticate are
// fetched again once, bypassing every cache, before the failure counts.
func (v *LogVerifier) withHashes(ctx context.Context, cp *Checkpoint, f func(tlog.HashReader) error) error {
	var err error
	for _, fresh := range []bool{false, true} {
		r := &tileReader{v: v, ctx: ctx, fresh: fresh}
		err = f(tlog.TileHashReader(cp.Tree(), r))
		if err == nil || r.failed != nil {
			break // success, or the registry could not be read
		}
	}
	if err == nil {
		return nil
	}
	var verr *VerificationError
	if errors.As(err, &verr) || isTransient(err) {
		return err
	}
	return verifyErrorf("inclusion", "the registry's log tiles do not match its signed checkpoint of %s: %v", countEntries(cp.Size), err)
}

// isTransient reports errors of reaching or reading the registry, which are
// not evidence of misbehaviour.
func isTransient(err error) bool {
	var apiErr *APIError
	var terr *transportError
	return errors.As(err, &apiErr) || errors.As(err, &terr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Entries returns the entries [start, end) of cp's tree, each proved to be
// the entry the checkpoint's tree holds at its index. It keeps no full
// bundle on disk: a reader of long ranges (pact log watch) reads each once.
func (v *LogVerifier) Entries(ctx context.Context, cp *Checkpoint, start, end int64) ([][]byte, error) {
	return v.entries(ctx, cp, start, end, false)
}

func (v *LogVerifier) entries(ctx context.Context, cp *Checkpoint, start, end int64, keep bool) ([][]byte, error) {
	if start < 0 || end > cp.Size || start > end {
		return nil, fmt.Errorf("entries [%d, %d) are not in a log of %s", start, end, countEntries(cp.Size))
	}
	var out [][]byte
	for start < end {
		bundle := translog.EntryTile(start, cp.Size)
		lo := bundle.N * translog.TileWidth
		hi := min(end, lo+int64(bundle.W))
		entries, err := v.bundleEntries(ctx, cp, bundle, start, hi, keep)
		if err != nil {
			return nil, err
		}
		out = append(out, entries...)
		start = hi
	}
	return out, nil
}

// bundleEntries returns the entries [start, end) of one entry bundle,
// checked against the leaf hashes of cp's tree.
func (v *LogVerifier) bundleEntries(ctx context.Context, cp *Checkpoint, bundle tlog.Tile, start, end int64, keep bool) ([][]byte, error) {
	lo := bundle.N * translog.TileWidth
	for _, fresh := range []bool{false, true} {
		entries, err := v.readBundle(ctx, bundle, fresh)
		if err != nil {
			return nil, err
		}
		// Every entry of the bundle is checked, so the whole bundle can be
		// kept; its leaves are all in one level-0 tile, read anyway.
		indexes := make([]int64, 0, len(entries))
		for i := range entries {
			indexes = append(indexes, tlog.StoredHashIndex(0, lo+int64(i)))
		}
		var hashes []tlog.Hash
		err = v.withHashes(ctx, cp, func(r tlog.HashReader) error {
			var err error
			hashes, err = r.ReadHashes(indexes)
			return err
		})
		if err != nil {
			if !fresh && !isTransient(err) {
				v.forgetBundle(bundle)
				continue
			}
			return nil, err
		}
		ok := true
		for k, h := range hashes {
			if translog.RecordHash(entries[k]) != h {
				ok = false
				break
			}
		}
		if ok {
			v.mu.Lock()
			delete(v.bundles, bundle) // checked: the disk (or a new read) serves it again
			v.mu.Unlock()
			if keep || bundle.W < translog.TileWidth {
				v.state.saveBundle(bundle, entries)
			}
			return entries[start-lo : end-lo], nil
		}
		if fresh {
			break
		}
		v.forgetBundle(bundle)
	}
	return nil, verifyErrorf("inclusion", "the registry's entry bundle %s does not match the leaves of its signed checkpoint of %s", translog.TilePath(bundle), countEntries(cp.Size))
}

// readBundle returns the entries of an entry bundle from this run's memory,
// the disk cache (a wider bundle serves a narrower one: entries never
// change) or the registry. Entries read from the registry are not trusted
// until bundleEntries compared them with the tree's leaves; the level-0
// hash tile they imply is kept for this run so that the tree's own check
// authenticates it without another request.
func (v *LogVerifier) readBundle(ctx context.Context, bundle tlog.Tile, fresh bool) ([][]byte, error) {
	if !fresh {
		v.mu.Lock()
		entries, ok := v.bundles[bundle]
		v.mu.Unlock()
		if ok {
			return entries, nil
		}
		if entries := v.state.loadBundle(bundle); entries != nil {
			v.deriveTile(bundle, entries)
			return entries, nil
		}
	}
	path := routes.LogDir + translog.TilePath(bundle)
	data, err := v.c.getLog(ctx, path, maxBundleBytes)
	if IsNotFound(err) && bundle.W < translog.TileWidth {
		// The partial bundle may have become full in between.
		full := bundle
		full.W = translog.TileWidth
		data, err = v.c.getLog(ctx, routes.LogDir+translog.TilePath(full), maxBundleBytes)
		if err == nil {
			entries, derr := translog.DecodeBundle(data, translog.TileWidth)
			if derr != nil {
				return nil, verifyErrorf("inclusion", "the registry's entry bundle %s is malformed: %v", translog.TilePath(full), derr)
			}
			entries = entries[:bundle.W]
			v.deriveTile(bundle, entries)
			return entries, nil
		}
	}
	if err != nil {
		if IsNotFound(err) {
			return nil, verifyErrorf("inclusion", "the registry does not serve the entry bundle %s of its log", translog.TilePath(bundle))
		}
		return nil, logRouteError(path, err)
	}
	entries, err := translog.DecodeBundle(data, bundle.W)
	if err != nil {
		return nil, verifyErrorf("inclusion", "the registry's entry bundle %s is malformed: %v", translog.TilePath(bundle), err)
	}
	v.deriveTile(bundle, entries)
	v.mu.Lock()
	v.bundles[bundle] = entries
	v.mu.Unlock()
	return entries, nil
}

// deriveTile keeps the level-0 hash tile an entry bundle implies: its
// hashes are the record hashes of the entries. tlog.TileHashReader checks
// it against the checkpoint like any tile read from the registry.
func (v *LogVerifier) deriveTile(bundle tlog.Tile, entries [][]byte) {
	var data bytes.Buffer
	for _, e := range entries {
		h := translog.RecordHash(e)
		data.Write(h[:])
	}
	t := tlog.Tile{H: translog.TileHeight, L: 0, N: bundle.N, W: len(entries)}
	v.mu.Lock()
	v.tiles[t] = data.Bytes()
	v.mu.Unlock()
}

func (v *LogVerifier) forgetBundle(bundle tlog.Tile) {
	v.state.removeBundle(bundle)
	v.mu.Lock()
	delete(v.bundles, bundle)
	for t := range v.tiles {
		if t.L == 0 && t.N == bundle.N {
			delete(v.tiles, t)
		}
	}
	v.mu.Unlock()
}

// ProveEntry returns the entry at index in cp's tree and checks its
// inclusion proof (tlog.ProveRecord, CheckRecord) against the checkpoint.
func (v *LogVerifier) ProveEntry(ctx context.Context, cp *Checkpoint, index int64) ([]byte, *translog.Entry, error) {
	if index < 0 || index >= cp.Size {
		return nil, nil, verifyErrorf("inclusion", "log index %d is not in the checkpoint of %s", index, countEntries(cp.Size))
	}
	entries, err := v.entries(ctx, cp, index, index+1, true)
	if err != nil {
		return nil, nil, err
	}
	data := entries[0]
	var proof tlog.RecordProof
	err = v.withHashes(ctx, cp, func(r tlog.HashReader) error {
		var err error
		proof, err = tlog.ProveRecord(cp.Size, index, r)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if err := tlog.CheckRecord(proof, cp.Size, cp.Hash, index, translog.RecordHash(data)); err != nil {
		return nil, nil, verifyErrorf("inclusion", "entry %d is not included in the log's checkpoint of %s: %v", index, countEntries(cp.Size), err)
	}
	entry, err := translog.Parse(data)
	if err != nil {
		return nil, nil, verifyErrorf("entry", "the log's entry %d does not parse: %v", index, err)
	}
	return data, entry, nil
}

// VersionProof is what VerifyVersion proved about a downloaded document.
type VersionProof struct {
	Index      int64
	Checkpoint *Checkpoint
	Entry      *translog.Entry
	Publish    translog.PublishEvent
	// EntryBytes is the logged entry as the log holds it.
	EntryBytes []byte
}

// VerifyVersion checks a downloaded document against the log: the
// checkpoint is signed by the pinned key and extends the last one seen, the
// entry at index is included in it, and the entry is the publish of
// owner/pack version with content's sha256 and size.
func (v *LogVerifier) VerifyVersion(ctx context.Context, owner, pack, version string, index *int64, content []byte) (*VersionProof, error) {
	if index == nil {
		return nil, verifyErrorf("inclusion", "the registry gives no log index for %s/%s %s", owner, pack, version)
	}
	if *index < 0 || *index >= maxTreeSize {
		return nil, verifyErrorf("inclusion", "the registry gives %s/%s %s the impossible log index %d", owner, pack, version, *index)
	}
	cp, err := v.latest(ctx, routes.LogCheckpoint, *index+1, func(cp *Checkpoint) error {
		// The entry's bundle first: for a recent entry it also yields the
		// tree's newest level-0 tile, which the consistency check needs.
		_, err := v.readBundle(ctx, translog.EntryTile(*index, cp.Size), false)
		return err
	})
	if err != nil {
		return nil, err
	}
	data, entry, err := v.ProveEntry(ctx, cp, *index)
	if err != nil {
		return nil, err
	}
	pub, err := entry.Publish()
	if err != nil {
		return nil, verifyErrorf("entry", "the log's entry %d is not the publish of %s/%s %s: %v", *index, owner, pack, version, err)
	}
	if pub.Owner != owner || pub.Pack != pack || pub.Version != version {
		return nil, verifyErrorf("entry", "the log's entry %d is the publish of %s/%s %s, not of %s/%s %s",
			*index, pub.Owner, pub.Pack, pub.Version, owner, pack, version)
	}
	if got := sha256Hex(content); got != pub.SHA256 {
		return nil, verifyErrorf("entry", "the document's sha256 differs from the logged one: downloaded %s, logged %s at index %d", got, pub.SHA256, *index)
	}
	if int64(len(content)) != pub.Size {
		return nil, verifyErrorf("entry", "the document's size differs from the logged one: downloaded %d bytes, logged %d at index %d", len(content), pub.Size, *index)
	}
	return &VersionProof{Index: *index, Checkpoint: cp, Entry: entry, Publish: pub, EntryBytes: data}, nil
}

// tileReader reads hash tiles for tlog.TileHashReader: from this run's
// memory, the disk cache or the registry. With fresh it reads every tile
// from the registry.
type tileReader struct {
	v     *LogVerifier
	ctx   context.Context
	fresh bool
	// failed is set when the registry could not be read, so withHashes
	// tells a network failure from tiles that do not authenticate.
	failed error
}

func (r *tileReader) Height() int { return translog.TileHeight }

func (r *tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		data, err := r.readTile(t)
		if err != nil {
			r.failed = err
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (r *tileReader) readTile(t tlog.Tile) ([]byte, error) {
	v := r.v
	if !r.fresh {
		v.mu.Lock()
		data, ok := v.tiles[t]
		v.mu.Unlock()
		if ok {
			return data, nil
		}
		if data := v.state.loadTile(t); data != nil {
			return data, nil
		}
		if t.L == 0 {
			// A kept entry bundle implies the level-0 tile; the tree's check
			// authenticates it as any other.
			if entries := v.state.loadBundle(tlog.Tile{H: t.H, L: -1, N: t.N, W: t.W}); entries != nil {
				v.deriveTile(tlog.Tile{H: t.H, L: -1, N: t.N, W: t.W}, entries)
				v.mu.Lock()
				data := v.tiles[t]
				v.mu.Unlock()
				return data, nil
			}
		}
	}
	data, err := v.c.getLog(r.ctx, routes.LogDir+translog.TilePath(t), int64(t.W*tlog.HashSize))
	if IsNotFound(err) && t.W < translog.TileWidth {
		// The partial tile may have become full in between.
		full := t
		full.W = translog.TileWidth
		data, err = v.c.getLog(r.ctx, routes.LogDir+translog.TilePath(full), int64(full.W*tlog.HashSize))
		if err == nil && len(data) == full.W*tlog.HashSize {
			data = data[:t.W*tlog.HashSize]
		}
	}
	if err != nil {
		if IsNotFound(err) {
			return nil, verifyErrorf("inclusion", "the registry does not serve the tile %s of its log", translog.TilePath(t))
		}
		return nil, logRouteError(routes.LogDir+translog.TilePath(t), err)
	}
	if len(data) != t.W*tlog.HashSize {
		return nil, verifyErrorf("inclusion", "the registry's tile %s holds %d bytes, not %d hashes", translog.TilePath(t), len(data), t.W)
	}
	return data, nil
}

// SaveTiles is called with tiles tlog authenticated against a checkpoint:
// they stay in memory for this run and go to the disk cache (see logState).
func (r *tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {
	v := r.v
	v.mu.Lock()
	for i, t := range tiles {
		v.tiles[t] = data[i]
	}
	v.mu.Unlock()
	for i, t := range tiles {
		// Level-0 tiles are implied by the entry bundles kept beside them.
		// Tiles read afresh replace kept ones, which failed to authenticate.
		if t.L > 0 || t.W == translog.TileWidth {
			v.state.saveTile(t, data[i], r.fresh)
		}
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func seenDate(seen *SeenCheckpoint) string {
	return seen.SeenAt.UTC().Format("2006-01-02 15:04 UTC")
}

// countEntries says how many entries a log holds: "1 entry", "8 entries".
func countEntries(n int64) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.FormatInt(n, 10) + " entries"
}
