package registry

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/sshsign"
	"github.com/pact-registry/pact/pkg/translog"
)

// The transparency log (docs/protocol.md, Transparency log): every change to
// what users fetch or who may publish is appended by the store in the
// transaction of the change; a sequencer then hashes the new entries into
// the Merkle tree and signs a checkpoint. The hashing, proofs and signed
// notes are golang.org/x/mod/sumdb's; the formats are pkg/translog's.

// LogStore keeps the log.
type LogStore interface {
	// SetLogKey stores the log's keys unless it has some already, and
	// answers the ones it keeps (signer "" when they are kept outside the
	// database). Safe against concurrent replicas: the first one wins.
	SetLogKey(ctx context.Context, signerKey, verifierKey string) (signer, verifier string, err error)
	// LogState answers the keys, the number of entries appended and the
	// size of the tree sequenced so far.
	LogState(ctx context.Context) (LogState, error)
	// SequenceLog hashes up to max appended entries into the tree and
	// stores a checkpoint that sign makes for the new size; when there is
	// nothing new and a checkpoint of the current size exists, it changes
	// nothing. It answers the tree size. Safe with concurrent replicas.
	SequenceLog(ctx context.Context, max int, sign func(size int64, root tlog.Hash) ([]byte, error)) (int64, error)
	// LatestCheckpoint answers the signed checkpoint of the largest size;
	// Unavailable when none was signed yet.
	LatestCheckpoint(ctx context.Context) (size int64, signed []byte, err error)
	// LogCheckpoints calls fn for each stored checkpoint, by size.
	LogCheckpoints(ctx context.Context, fn func(size int64, signed []byte) error) error
	// LogHashes answers the stored hashes at the given stored-hash indexes
	// (tlog.StoredHashIndex); NotFound when one is not stored.
	LogHashes(ctx context.Context, indexes []int64) ([]tlog.Hash, error)
	// LogEntries answers the entries with index in [start, end), which
	// must all exist.
	LogEntries(ctx context.Context, start, end int64) ([][]byte, error)
	// LogFullTile answers a full tile as stored: a hash tile (level >= 0)
	// or, at level -1, an entry bundle, with its bytes as served or, once
	// they are on the blob store, its blob's name and size; ok is false
	// when it is not stored: the sequenced tree does not hold it yet, or
	// its tiles are still being stored (LogState.TilesSize).
	LogFullTile(ctx context.Context, level int, n int64) (tile FullTile, ok bool, err error)
	// LoggedVersions answers up to limit versions with id > after, by id,
	// with their documents, for the log's check.
	LoggedVersions(ctx context.Context, after int64, limit int) ([]LoggedVersion, error)
	// TrustedPublishingOnlyPackages answers up to limit packages with id >
	// after whose trusted-publishing-only setting is on, by id, for the
	// log's check.
	TrustedPublishingOnlyPackages(ctx context.Context, after int64, limit int) ([]Package, error)
	// PackageStates answers up to limit packages with id > after, by id,
	// each with its state as the database holds it (PackState: its
	// latest version, yanked versions, deprecation and the log index of
	// its newest pack-state entry), for the log's check.
	PackageStates(ctx context.Context, after int64, limit int) ([]StoredPackState, error)
	// LogAppended receives (without blocking the writer) after a write that
	// appended to the log commits.
	LogAppended() <-chan struct{}
}

// StoredPackState is a package's state as the database holds it.
type StoredPackState struct {
	ID          int64
	Owner, Pack string
	PackState
}

// LogState is where the log stands.
type LogState struct {
	SignerKey   string // "" when kept outside the database
	VerifierKey string // "" before the first start
	Entries     int64  // appended
	TreeSize    int64  // hashed into the tree and covered by a checkpoint
	TilesSize   int64  // every full tile of the tree up to this size is stored whole
}

// LoggedVersion is a version as the log's check compares it with its entry.
type LoggedVersion struct {
	ID                   int64
	Owner, Pack, Version string
	SHA256               string
	Content              []byte
	LogIndex             *int64
}

// PublishLogEntry is the log entry of a published version: owner and pack
// are its slugs, sha256 and size its document's. Provenance nil means a
// token publish; ci, when not nil, names the CI job of a token from
// trusted publishing.
func PublishLogEntry(owner, pack, version, sha256Hex string, size int64, at time.Time, p *Provenance, ci ...*CIIdentity) *translog.Entry {
	ev := translog.PublishEvent{Time: at, Owner: owner, Pack: pack, Version: version, SHA256: sha256Hex, Size: size,
		Auth: translog.AuthToken}
	if len(ci) == 1 && ci[0] != nil && p == nil {
		ev.Auth, ev.Issuer = translog.AuthOIDC, ci[0].Issuer
		// JSON escapes what a log value may not hold; identityOf kept
		// only printable claims.
		text, _ := json.Marshal(ci[0])
		ev.CI = string(text)
	}
	if p != nil {
		ev.Auth = translog.AuthSSH
		ev.Key = p.PublicKey
		if ev.Key == "" {
			// Versions signed before public keys were kept: the
			// fingerprint is all that is known of the key.
			ev.Key = p.Fingerprint
		}
		lines, err := sshsign.MessageForDigest(p.Timestamp, p.Nonce, sha256Hex, p.SignedName, p.SignedDescription)
		if !p.SignedLinesKnown || err != nil {
			// What was signed beyond the digest is not known: only the
			// four lines that certainly were signed are logged.
			lines, _ = sshsign.MessageForDigest(p.Timestamp, p.Nonce, sha256Hex, "", "")
			lines = lines[:len(lines)-2]
		}
		ev.SignedLines = lines
	}
	return translog.NewPublish(ev)
}

// KeyLogEntry is the log entry of an SSH key added to (added true) or
// removed from owner's account.
func KeyLogEntry(added bool, owner string, k *SSHKey, at time.Time) *translog.Entry {
	ev := translog.KeyEvent{Time: at, Owner: owner, Key: k.PublicKey, Fingerprint: k.Fingerprint}
	if added {
		return translog.NewKeyAdd(ev)
	}
	return translog.NewKeyRemove(ev)
}

// PackState is a package's state as the store's transaction finds it
// right after an event of the package (a publish, yank, unyank or
// deprecation), which the domain logs in a pack-state entry
// (PackStateLogEntry): Latest is the version the rule of latest chose
// (BecomesLatest, LatestOf) in that transaction, "" when every version is
// yanked; Yanked its yanked versions; Deprecated its deprecation message;
// Head the log index of its newest pack-state entry before this one, nil
// when it has none (docs/protocol.md, Package state).
type PackState struct {
	Latest     string
	Yanked     []string
	Deprecated string
	Head       *int64
}

// PackStateLogEntry is the pack-state entry of owner/pack in state st at
// at: the state it states, chained to the package's previous pack-state
// entry.
func PackStateLogEntry(owner, pack string, st PackState, at time.Time) *translog.Entry {
	prev := int64(-1)
	if st.Head != nil {
		prev = *st.Head
	}
	return translog.NewPackState(translog.PackStateEvent{Time: at, Owner: owner, Pack: pack, Prev: prev,
		Latest: st.Latest, Yanked: st.Yanked, Deprecated: st.Deprecated})
}

// LogBackfill builds the log entries of what a database made before the
// log holds: the store appends one for each version and SSH key it has, in
// the order they were made, in the migration that makes the log and in the
// restore of a dump from before it. Backfill answers pact's.
type LogBackfill interface {
	// Publish is a version's entry, as published with p (nil: a token)
	// at at.
	Publish(owner, pack, version, sha256Hex string, size int64, at time.Time, p *Provenance) *translog.Entry
	// KeyAdd is the entry of owner's key k, as added when it was made.
	KeyAdd(owner string, k *SSHKey) *translog.Entry
	// PackState is the first pack-state entry of owner/pack, in state st
	// at at, for a package made before pack-state entries: the migration
	// that brings them (0024) and the restore of a dump from before it
	// append one for every such package.
	PackState(owner, pack string, st PackState, at time.Time) *translog.Entry
}

// Backfill is the LogBackfill of pact's entries: PublishLogEntry (no CI
// job was ever recorded before the log), KeyLogEntry at the key's
// creation and PackStateLogEntry.
func Backfill() LogBackfill { return backfill{} }

// backfill is Backfill's LogBackfill.
type backfill struct{}

func (backfill) Publish(owner, pack, version, sha256Hex string, size int64, at time.Time, p *Provenance) *translog.Entry {
	return PublishLogEntry(owner, pack, version, sha256Hex, size, at, p)
}

func (backfill) KeyAdd(owner string, k *SSHKey) *translog.Entry {
	return KeyLogEntry(true, owner, k, k.CreatedAt)
}

func (backfill) PackState(owner, pack string, st PackState, at time.Time) *translog.Entry {
	return PackStateLogEntry(owner, pack, st, at)
}

// YankLogEntry is the log entry of a version of owner/pack yanked (yanked
// true, with reason) or un-yanked.
func YankLogEntry(yanked bool, owner, pack, version, reason string, at time.Time) *translog.Entry {
	ev := translog.YankEvent{Time: at, Owner: owner, Pack: pack, Version: version, Reason: reason}
	if yanked {
		return translog.NewYank(ev)
	}
	return translog.NewUnyank(ev)
}

// MemberLogEntry is the log entry of member gaining role in org (or
// changing to it), or, with role "", leaving org; by made the change.
func MemberLogEntry(org, member string, role Role, by string, at time.Time) *translog.Entry {
	return translog.NewMember(translog.MemberEvent{Time: at, Owner: org, Member: member, Role: string(role), By: by})
}

// TrustedPublisherRemovedLogEntry is the log entry of p, a trusted
// publisher that member made for org, removed because by removed or
// demoted member; revokedTokens tokens exchanged through it were revoked.
func TrustedPublisherRemovedLogEntry(org, member string, p *TrustedPublisher, revokedTokens int, by string, at time.Time) *translog.Entry {
	return translog.NewTrustedPublisherRemove(translog.TrustedPublisherRemoveEvent{Time: at, Owner: org, Member: member, ID: p.ID,
		Issuer: p.Issuer, Packages: strings.Join(p.Packages, " "), RevokedTokens: revokedTokens, By: by})
}

// TrustedPublishingOnlyLogEntry is the log entry of owner/pack's
// trusted-publishing-only setting turned on (only) or off by by.
func TrustedPublishingOnlyLogEntry(owner, pack string, only bool, by string, at time.Time) *translog.Entry {
	return translog.NewTrustedPublishingOnly(translog.TrustedPublishingOnlyEvent{Time: at, Owner: owner, Pack: pack, Only: only, By: by})
}

// LogSigner is the log's signing key, held by the Service after InitLog.
type LogSigner struct {
	signer      note.Signer
	verifier    note.Verifier
	verifierKey string
}

// DefaultLogOrigin is the log's name for a server at baseURL: its host and
// "/log" (pact.example.com/log).
func DefaultLogOrigin(host string) string { return host + "/log" }

// InitLog gives the service the log's key: operatorKey (a signer key in
// note's PRIVATE+KEY+... form, kept outside the database) when not empty,
// else the key kept in the database, generated and named origin at the
// first start. A database whose log has another key refuses operatorKey,
// and one whose key is kept outside refuses to start without it.
func (s *Service) InitLog(ctx context.Context, origin, operatorKey string) error {
	st, err := s.store.LogState(ctx)
	if err != nil {
		return err
	}
	outside := func(vkey string) error {
		return errors.New("the log's key is kept outside the database (its verifier key is " + vkey + "): pass it with --log-key-file")
	}
	var skey string
	switch operatorKey = strings.TrimSpace(operatorKey); {
	case operatorKey != "":
		vkey, err := translog.VerifierKey(operatorKey)
		if err != nil {
			return err
		}
		if st.VerifierKey == "" {
			if _, st.VerifierKey, err = s.store.SetLogKey(ctx, "", vkey); err != nil {
				return err
			}
		}
		if st.VerifierKey != vkey {
			return fmt.Errorf("the log key file holds the key %s, but this database's log is signed by %s", vkey, st.VerifierKey)
		}
		skey = operatorKey
	case st.VerifierKey == "":
		newSigner, newVerifier, err := translog.GenerateKey(rand.Reader, origin)
		if err != nil {
			return fmt.Errorf("generating the log key: %w", err)
		}
		// Another replica may have stored its key first: theirs wins.
		if skey, st.VerifierKey, err = s.store.SetLogKey(ctx, newSigner, newVerifier); err != nil {
			return err
		}
		if skey == "" {
			return outside(st.VerifierKey)
		}
	default:
		if skey = st.SignerKey; skey == "" {
			return outside(st.VerifierKey)
		}
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return fmt.Errorf("the log key: %w", err)
	}
	verifier, err := note.NewVerifier(st.VerifierKey)
	if err != nil {
		return fmt.Errorf("the log's verifier key: %w", err)
	}
	s.log = &LogSigner{signer: signer, verifier: verifier, verifierKey: st.VerifierKey}
	return nil
}

// LogOrigin answers the log's name (its origin, the name of its key), ""
// before InitLog.
func (s *Service) LogOrigin() string {
	name, _, _ := strings.Cut(s.LogVerifierKey(), "+")
	return name
}

// LogVerifierKey answers the log's verifier key (name+hash+key), "" before
// InitLog.
func (s *Service) LogVerifierKey() string {
	if s.log == nil {
		return ""
	}
	return s.log.verifierKey
}

// StoredLogVerifierKey answers the verifier key the database keeps, for
// commands that do not serve (pactd log key).
func (s *Service) StoredLogVerifierKey(ctx context.Context) (string, error) {
	st, err := s.store.LogState(ctx)
	if err != nil {
		return "", err
	}
	if st.VerifierKey == "" {
		return "", Errorf(NotFound, "the log has no key yet: it is made at the first start of pactd serve")
	}
	return st.VerifierKey, nil
}

// maxSequenceBatch bounds the entries one sequencing round hashes, so one
// round holds the tree's lock (and on SQLite the writer) briefly.
const maxSequenceBatch = 4096

// SequenceLog hashes the entries appended since the last round into the
// tree and signs a checkpoint of the new size; it answers the tree size.
func (s *Service) SequenceLog(ctx context.Context) (int64, error) {
	if s.log == nil {
		return 0, errors.New("the log has no key: InitLog first")
	}
	for last := int64(-1); ; {
		st, err := s.store.LogState(ctx)
		if err != nil {
			return 0, err
		}
		size, err := s.store.SequenceLog(ctx, maxSequenceBatch, func(size int64, root tlog.Hash) ([]byte, error) {
			return translog.SignCheckpoint(translog.Checkpoint{Origin: s.log.signer.Name(), Size: size, Hash: root}, s.log.signer)
		})
		if err == nil && size != last {
			s.checkpoint.drop() // a new checkpoint may be signed
			s.nudgeCheckpointWatch()
		}
		if err == nil && size > st.TreeSize {
			s.wakeWitnesses() // a new checkpoint was signed
		}
		// Done when caught up, or when a round made no progress (the
		// next one, a moment later, will).
		if err != nil || size >= st.Entries || size == last {
			if err == nil && s.blobs != nil {
				err = s.moveNewFullTiles(ctx)
			}
			return size, err
		}
		last = size
	}
}

// moveNewFullTiles moves the full tiles the rounds just stored to the blob
// store (blobtiles.go). Until it succeeds they are served from their rows,
// so a blob store that does not answer delays the move, never a
// checkpoint: the next round tries again.
func (s *Service) moveNewFullTiles(ctx context.Context) error {
	if _, _, err := s.MoveFullTiles(ctx); err != nil {
		return fmt.Errorf("the log's new full tiles stay in the database for now: %w", err)
	}
	return nil
}

// RunLogSequencer sequences the log soon after every append this process
// commits, and every poll for the appends of other replicas, until ctx
// ends. At most one checkpoint is signed per minGap, so a busy registry
// signs a few a second, not one per publish.
func (s *Service) RunLogSequencer(ctx context.Context, poll, minGap time.Duration, onError func(error)) {
	appended := s.store.LogAppended()
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	for {
		if _, err := s.SequenceLog(ctx); err != nil && ctx.Err() == nil && onError != nil {
			onError(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(minGap):
		}
		select {
		case <-ctx.Done():
			return
		case <-appended:
		case <-ticker.C:
		}
	}
}

// checkpointTTL is how long LogCheckpoint answers from memory before it
// reads the store again: a busy /log/checkpoint costs a read every 100 ms,
// not one a request, and a checkpoint another replica signed shows within
// that (far inside the second a publish may wait for one). This process's
// sequencer drops the copy as soon as it signs.
const checkpointTTL = 100 * time.Millisecond

// checkpointCache is the latest checkpoint read, with its size and when it
// was read (the monotonic clock, not the service's, which tests may stop).
// Each drop starts a new generation, and a copy read from the store in an
// older one is not kept: a read that began before the sequencer signed and
// ended after it dropped the copy would otherwise put the older checkpoint
// back for checkpointTTL.
type checkpointCache struct {
	mu     sync.Mutex
	size   int64
	signed []byte
	read   time.Time
	gen    uint64
}

// get answers the copy, or nil and the generation a read of the store
// starts in (to pass to set).
func (c *checkpointCache) get() (size int64, signed []byte, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.signed != nil && time.Since(c.read) < checkpointTTL {
		return c.size, c.signed, c.gen
	}
	return 0, nil, c.gen
}

// set keeps a checkpoint read from the store in generation gen, unless the
// copy was dropped since.
func (c *checkpointCache) set(gen uint64, size int64, signed []byte, read time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	c.size, c.signed, c.read = size, signed, read
}

// drop forgets the copy: a newer checkpoint may be stored.
func (c *checkpointCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.signed = nil
}

// LogCheckpoint answers the checkpoint to serve: the latest signed, or
// with a witness policy the newest its witnesses cosigned (witness.go).
func (s *Service) LogCheckpoint(ctx context.Context) ([]byte, error) {
	_, signed, err := s.servedCheckpoint(ctx)
	return signed, err
}

func (s *Service) latestCheckpoint(ctx context.Context) (int64, []byte, error) {
	size, signed, gen := s.checkpoint.get()
	if signed != nil {
		return size, signed, nil
	}
	read := time.Now()
	size, signed, err := s.store.LatestCheckpoint(ctx)
	if err != nil {
		return 0, nil, err
	}
	s.checkpoint.set(gen, size, signed, read)
	return size, signed, nil
}

// Waiting for a checkpoint that covers the log (LogCheckpointCovering):
// the sequencer covers an append within a second, so the bound is only
// reached when it is failing.
const CheckpointWaitLimit = 5 * time.Second

// checkpointWatch tells the requests waiting for a new checkpoint
// (LogCheckpointCovering) that one is served, all at once: each waiter
// sleeps on changed, which is closed and replaced whenever the served
// checkpoint grows. One loop per process (watchCheckpoints) reads the
// served checkpoint while anybody waits, every checkpointTTL, so a checkpoint
// another replica signed shows too; this process's sequencer and witness
// pusher nudge it at once. A held wait costs no CPU, whatever their number.
type checkpointWatch struct {
	mu      sync.Mutex
	size    int64  // of the served checkpoint last read, -1 before
	signed  []byte // nil before one is read
	changed chan struct{}
	waiters int
	running bool          // watchCheckpoints runs
	nudge   chan struct{} // buffered(1): read the store now
}

// join counts a waiter in, starting the loop when it is the first, and
// answers the checkpoint known and the channel closed when it changes.
func (s *Service) joinCheckpointWait() (int64, []byte, <-chan struct{}) {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed == nil {
		w.changed, w.nudge, w.size = make(chan struct{}), make(chan struct{}, 1), -1
	}
	w.waiters++
	if !w.running {
		w.running = true
		go s.watchCheckpoints()
	}
	return w.size, w.signed, w.changed
}

func (s *Service) leaveCheckpointWait() {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiters--
}

// watchedCheckpoint answers the checkpoint known and its change channel.
func (s *Service) watchedCheckpoint() (int64, []byte, <-chan struct{}) {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.size, w.signed, w.changed
}

// nudgeCheckpointWatch makes the loop read the served checkpoint now (a
// new one may have been signed or witnessed by this process).
func (s *Service) nudgeCheckpointWatch() {
	w := &s.watch
	w.mu.Lock()
	nudge := w.nudge
	w.mu.Unlock()
	if nudge != nil {
		select {
		case nudge <- struct{}{}:
		default:
		}
	}
}

// watchCheckpoints reads the served checkpoint while any request waits for
// a new one, and wakes them all when it grows; it ends with the last wait.
func (s *Service) watchCheckpoints() {
	w := &s.watch
	tick := time.NewTicker(checkpointTTL)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), CheckpointWaitLimit)
		size, signed, err := s.servedCheckpoint(ctx)
		cancel()
		w.mu.Lock()
		if err == nil && size > w.size {
			w.size, w.signed = size, signed
			close(w.changed)
			w.changed = make(chan struct{})
		}
		if w.waiters == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		select {
		case <-w.nudge:
		case <-tick.C:
		}
	}
}

// LogCheckpointCovering answers the served checkpoint once it covers every
// entry appended before the call (by any replica), so a client that has
// just published, or is told of a change, sees it in the log at once. It
// waits up to Options.CheckpointWait (CheckpointWaitLimit) for the sequencer (and the witnesses),
// then answers Unavailable; with a witness policy, when the sequencer has
// covered the entries and only the witnesses have not, it answers the
// checkpoint served (the change shows once they cosign).
func (s *Service) LogCheckpointCovering(ctx context.Context) ([]byte, error) {
	st, err := s.store.LogState(ctx)
	if err != nil {
		return nil, err
	}
	size, signed, err := s.servedCheckpoint(ctx)
	if err != nil && !IsCode(err, Unavailable) { // Unavailable: none signed (or witnessed) yet
		return nil, err
	}
	if err == nil && size >= st.Entries {
		return signed, nil
	}
	limit := time.NewTimer(s.checkpointWait)
	defer limit.Stop()
	wsize, wsigned, changed := s.joinCheckpointWait()
	defer s.leaveCheckpointWait()
	for {
		if wsigned != nil && wsize >= st.Entries {
			return wsigned, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-limit.C:
			if wsigned != nil {
				size, signed = wsize, wsigned
			}
			if s.witness != nil && signed != nil {
				if latest, _, lerr := s.latestCheckpoint(ctx); lerr == nil && latest >= st.Entries {
					return signed, nil
				}
			}
			return nil, Errorf(Unavailable, "the log holds %d entries but its newest checkpoint covers %d after waiting %s: try again in a moment",
				st.Entries, size, s.checkpointWait)
		case <-changed:
			wsize, wsigned, changed = s.watchedCheckpoint()
		}
	}
}

// LogProof answers an offline proof of the entry at index (C2SP
// tlog-proof, docs/protocol.md, Offline proofs): the entry as extra data,
// its inclusion proof and the checkpoint GET /log/checkpoint serves, which
// the proof is made against, so it carries whatever that one carries.
// NotFound when the checkpoint does not cover index.
func (s *Service) LogProof(ctx context.Context, index int64) ([]byte, error) {
	if s.log == nil {
		return nil, Errorf(Unavailable, "the log has no key yet")
	}
	signed, err := s.LogCheckpoint(ctx)
	if err != nil {
		return nil, err
	}
	cp, err := translog.OpenCheckpoint(signed, s.log.verifier)
	if err != nil {
		return nil, fmt.Errorf("the log's own checkpoint: %w", err)
	}
	if index < 0 || index >= cp.Size {
		return nil, Errorf(NotFound, "entry %d lies beyond the log's tree of %d entries", index, cp.Size)
	}
	entries, err := s.store.LogEntries(ctx, index, index+1)
	if err != nil {
		return nil, err
	}
	proof, err := tlog.ProveRecord(cp.Size, index, tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		return s.store.LogHashes(ctx, indexes)
	}))
	if err != nil {
		return nil, err
	}
	return torchwood.FormatProofWithExtraData(index, entries[0], proof, signed), nil
}

// LogTile answers a hash tile or an entry bundle by its C2SP path
// ("tile/0/x001/234", "tile/entries/005.p/7"), within the latest
// checkpoint's tree. full reports a full tile, which never changes.
func (s *Service) LogTile(ctx context.Context, path string) (data []byte, full bool, err error) {
	t, err := translog.ParseTilePath(path)
	if err != nil {
		return nil, false, Errorf(Invalid, "%s", err.Error())
	}
	full = t.W == translog.TileWidth
	if full {
		// Stored whole only once a signed tree holds it (docs/design.md,
		// Full log tiles stored whole); else made below, as a partial
		// tile is.
		stored, ok, err := s.store.LogFullTile(ctx, t.L, t.N)
		if err != nil {
			return nil, full, err
		}
		if ok {
			data, err := s.fullTileBytes(ctx, stored)
			return data, full, err
		}
	}
	size, _, err := s.store.LatestCheckpoint(ctx)
	if err != nil {
		return nil, false, err
	}
	beyond := Errorf(NotFound, "%s lies beyond the log's tree of %d entries", path, size)
	if t.L == -1 {
		start := t.N * translog.TileWidth
		if start+int64(t.W) > size {
			return nil, false, beyond
		}
		entries, err := s.store.LogEntries(ctx, start, start+int64(t.W))
		if err != nil {
			return nil, false, err
		}
		data, err := translog.EncodeBundle(entries)
		return data, full, err
	}
	if t.N<<translog.TileHeight+int64(t.W) > size>>(translog.TileHeight*t.L) {
		return nil, false, beyond
	}
	data, err = tlog.ReadTileData(t, tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		return s.store.LogHashes(ctx, indexes)
	}))
	return data, full, err
}

// MaxLogEntriesRead bounds the entries one ReadLogEntries call answers: a
// page of the log reads one bounded range, never the whole table.
const MaxLogEntriesRead = translog.TileWidth

// LogHead answers the latest signed checkpoint and the size of its tree,
// as LogCheckpoint does.
func (s *Service) LogHead(ctx context.Context) (size int64, signed []byte, err error) {
	return s.latestCheckpoint(ctx)
}

// ReadLogEntries answers the entries with index in [start, end): at most
// MaxLogEntriesRead of them, all inside the latest checkpoint's tree, so
// each can be checked against a checkpoint anyone may fetch. NotFound when
// the range reaches beyond that tree.
func (s *Service) ReadLogEntries(ctx context.Context, start, end int64) ([][]byte, error) {
	if start < 0 || end < start || end-start > MaxLogEntriesRead {
		return nil, Errorf(Invalid, "log entries %d to %d: not a range of at most %d entries", start, end, MaxLogEntriesRead)
	}
	size, _, err := s.latestCheckpoint(ctx)
	if err != nil {
		return nil, err
	}
	if end > size {
		return nil, Errorf(NotFound, "the log's tree holds %d entries", size)
	}
	if start == end {
		return nil, nil
	}
	return s.store.LogEntries(ctx, start, end)
}
