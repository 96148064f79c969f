package registry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/translog"
)

// checkBatch is how many entries or versions CheckLog reads at a time.
const checkBatch = 1024

// CheckLog recomputes the tree from the stored entries and compares it
// with every stored hash, full tile and checkpoint, then every version's
// document and every release record with its entry, every package's
// trusted-publishing-only setting with its last entry, and every package's
// latest version, yanked versions and deprecation with its newest
// pack-state entry, each of which must agree with the package's events
// before it (packStates). The error names the first mismatch; report gets
// a line per stage.
func (s *Service) CheckLog(ctx context.Context, report func(string)) error {
	st, err := s.store.LogState(ctx)
	if err != nil {
		return err
	}
	if st.VerifierKey == "" {
		return errors.New("the log has no key yet: it is made at the first start of pactd serve")
	}
	verifier, err := note.NewVerifier(st.VerifierKey)
	if err != nil {
		return fmt.Errorf("the log's verifier key: %w", err)
	}
	c := &logCheck{s: s, st: st, verifier: verifier, report: report,
		hashes:    make([]tlog.Hash, 0, tlog.StoredHashCount(st.Entries)),
		publishes: map[string]logged[translog.PublishEvent]{},
		releases:  map[string]logged[translog.ReleaseEvent]{},
		settings:  map[string]logged[translog.TrustedPublishingOnlyEvent]{},
		packs:     map[string]*packReplay{},
	}
	for _, stage := range []func(context.Context) error{
		c.entries, c.storedHashes, c.fullTiles, c.checkpoints, c.versions, c.releaseRecords, c.packageSettings, c.packageStates,
	} {
		if err := stage(ctx); err != nil {
			return err
		}
	}
	return c.changedMeanwhile(ctx)
}

// loggedSince tells whether a record's log index is past the entries the
// check read: a replica serving beside it logged the record since, and the
// check leaves it out, to be confirmed by changedMeanwhile.
func (c *logCheck) loggedSince(index int64) bool {
	if index < c.st.Entries {
		return false
	}
	c.sinceEntries = max(c.sinceEntries, index+1)
	return true
}

// changedMeanwhile confirms that what the check left out as logged or
// signed since it began is backed by the log as it is now: a record naming
// an index the log does not hold, or a checkpoint larger than the tree, is
// not a change made meanwhile but a mismatch.
func (c *logCheck) changedMeanwhile(ctx context.Context) error {
	if c.sinceEntries == 0 && c.sinceTree == 0 {
		return nil
	}
	now, err := c.s.store.LogState(ctx)
	if err != nil {
		return err
	}
	if c.sinceTree > now.TreeSize {
		return fmt.Errorf("checkpoint of size %d: the tree has %d entries", c.sinceTree, now.TreeSize)
	}
	if c.sinceEntries > now.Entries {
		return fmt.Errorf("log entry %d: the database names it, but the log has %d entries", c.sinceEntries-1, now.Entries)
	}
	c.report(fmt.Sprintf("left out: what was logged after entry %d while the check ran (the log has %d entries now)", c.st.Entries-1, now.Entries))
	return nil
}

// logCheck is one run of CheckLog: what the entries said, and the tree
// recomputed from them.
type logCheck struct {
	s        *Service
	st       LogState
	verifier note.Verifier
	report   func(string)
	// hashes is every hash of the tree, at tlog's stored-hash indexes.
	hashes []tlog.Hash
	// publishes and releases are the entries of those kinds by
	// publishKey, each removed when the database's record is compared
	// with it: what is left is logged but not in the database.
	publishes map[string]logged[translog.PublishEvent]
	releases  map[string]logged[translog.ReleaseEvent]
	// settings is the last trusted-publishing-only entry of each package,
	// by publishKey with no version.
	settings map[string]logged[translog.TrustedPublishingOnlyEvent]
	// packs replays each package's events, by publishKey with no
	// version.
	packs map[string]*packReplay
	// sinceEntries and sinceTree are one past the largest log index, and
	// the largest checkpoint, that the check met past the log it read and
	// left out (loggedSince, changedMeanwhile).
	sinceEntries, sinceTree int64
}

// logged is an event and the index of its entry.
type logged[E any] struct {
	index int64
	ev    E
}

// memory reads the recomputed hashes.
func (c *logCheck) memory() tlog.HashReader {
	return tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if x >= int64(len(c.hashes)) {
				return nil, fmt.Errorf("hash %d is not computed", x)
			}
			out[i] = c.hashes[x]
		}
		return out, nil
	})
}

// entries reads and parses every entry, keeps the ones the later stages
// compare with the database, and recomputes the tree.
func (c *logCheck) entries(ctx context.Context) error {
	memory := c.memory()
	for start := int64(0); start < c.st.Entries; start += checkBatch {
		end := min(start+checkBatch, c.st.Entries)
		entries, err := c.s.store.LogEntries(ctx, start, end)
		if err != nil {
			return err
		}
		for i, data := range entries {
			n := start + int64(i)
			e, err := translog.Parse(data)
			if err != nil {
				return fmt.Errorf("log entry %d: %v", n, err)
			}
			switch e.Kind {
			case translog.KindPublish:
				err = c.publishEntry(n, e)
			case translog.KindRelease:
				err = c.releaseEntry(n, e)
			case translog.KindTrustedPublishingOnly:
				err = c.settingEntry(n, e)
			case translog.KindYank, translog.KindUnyank:
				err = c.yankEntry(n, e)
			case translog.KindPackState:
				err = c.packStateEntry(n, e)
			}
			if err != nil {
				return err
			}
			hs, err := tlog.StoredHashes(n, data, memory)
			if err != nil {
				return err
			}
			c.hashes = append(c.hashes, hs...)
		}
	}
	c.report(fmt.Sprintf("entries: %d read and parsed, the tree recomputed", c.st.Entries))
	return nil
}

func (c *logCheck) publishEntry(n int64, e *translog.Entry) error {
	ev, _ := e.Publish()
	key := publishKey(ev.Owner, ev.Pack, ev.Version)
	if prev, ok := c.publishes[key]; ok {
		return fmt.Errorf("log entry %d: version %s/%s %s was logged already in entry %d", n, ev.Owner, ev.Pack, ev.Version, prev.index)
	}
	c.publishes[key] = logged[translog.PublishEvent]{n, ev}
	r := c.pack(ev.Owner, ev.Pack)
	r.versions = append(r.versions, ev.Version)
	return nil
}

func (c *logCheck) releaseEntry(n int64, e *translog.Entry) error {
	ev, err := e.Release()
	if err != nil {
		return fmt.Errorf("log entry %d: %v", n, err)
	}
	key := publishKey(ev.Owner, ev.Pack, ev.Version)
	if prev, ok := c.releases[key]; ok {
		return fmt.Errorf("log entry %d: the release of %s/%s %s was logged already in entry %d", n, ev.Owner, ev.Pack, ev.Version, prev.index)
	}
	c.releases[key] = logged[translog.ReleaseEvent]{n, ev}
	return nil
}

// settingEntry keeps the entry as its package's last trusted-publishing-only
// entry so far.
func (c *logCheck) settingEntry(n int64, e *translog.Entry) error {
	ev, err := e.TrustedPublishingOnly()
	if err != nil {
		return fmt.Errorf("log entry %d: %v", n, err)
	}
	c.settings[publishKey(ev.Owner, ev.Pack, "")] = logged[translog.TrustedPublishingOnlyEvent]{n, ev}
	return nil
}

// packReplay is a package as its log entries so far make it: its versions
// in the order they were logged, the yanked ones, and its newest
// pack-state entry.
type packReplay struct {
	versions []string
	yanked   map[string]bool
	head     int64 // the newest pack-state entry's index, -1 before one
	state    translog.PackStateEvent
}

func (c *logCheck) pack(owner, pack string) *packReplay {
	key := publishKey(owner, pack, "")
	r := c.packs[key]
	if r == nil {
		r = &packReplay{yanked: map[string]bool{}, head: -1}
		c.packs[key] = r
	}
	return r
}

// latest is the version the rule of latest (LatestOf) picks among the
// versions not yanked, "" when there is none.
func (r *packReplay) latest() string {
	var candidates []string
	for _, v := range r.versions {
		if !r.yanked[v] {
			candidates = append(candidates, v)
		}
	}
	if i := LatestOf(candidates); i >= 0 {
		return candidates[i]
	}
	return ""
}

// yankedList is the yanked versions in byte order, as a pack-state entry
// lists them.
func (r *packReplay) yankedList() []string {
	out := make([]string, 0, len(r.yanked))
	for v := range r.yanked {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// yankEntry yanks or un-yanks a logged version in its package's replay.
func (c *logCheck) yankEntry(n int64, e *translog.Entry) error {
	ev, err := e.Yank()
	if err != nil {
		return fmt.Errorf("log entry %d: %v", n, err)
	}
	r := c.pack(ev.Owner, ev.Pack)
	if !slices.Contains(r.versions, ev.Version) {
		return fmt.Errorf("log entry %d: %s of %s/%s %s, a version the log has not recorded a publish of", n, e.Kind, ev.Owner, ev.Pack, ev.Version)
	}
	if e.Kind == translog.KindYank {
		r.yanked[ev.Version] = true
	} else {
		delete(r.yanked, ev.Version)
	}
	return nil
}

// packStateEntry checks a pack-state entry against its package's events
// before it: it names the package's previous pack-state entry, lists the
// yanked versions, and names the latest version the rule picks.
func (c *logCheck) packStateEntry(n int64, e *translog.Entry) error {
	ev, err := e.PackState()
	if err != nil {
		return fmt.Errorf("log entry %d: %v", n, err)
	}
	name := fmt.Sprintf("log entry %d: the state of %s/%s", n, ev.Owner, ev.Pack)
	r := c.pack(ev.Owner, ev.Pack)
	if ev.Prev != r.head {
		return fmt.Errorf("%s names entry %d as its previous state, but the package's previous pack-state entry is %d", name, ev.Prev, r.head)
	}
	if got, want := strings.Join(ev.Yanked, " "), strings.Join(r.yankedList(), " "); got != want {
		return fmt.Errorf("%s lists the yanked versions [%s], but its yank and unyank entries leave [%s]", name, got, want)
	}
	if want := r.latest(); ev.Latest != want {
		return fmt.Errorf("%s names %s as its latest version, but its publishes and yanks make it %s", name, orNone(ev.Latest), orNone(want))
	}
	r.head, r.state = n, ev
	return nil
}

// orNone shows a version that may be "" (none).
func orNone(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// storedHashes compares every stored hash of the sequenced tree with the
// recomputed one.
func (c *logCheck) storedHashes(ctx context.Context) error {
	stored := tlog.StoredHashCount(c.st.TreeSize)
	for start := int64(0); start < stored; start += checkBatch {
		end := min(start+checkBatch, stored)
		indexes := make([]int64, 0, end-start)
		for x := start; x < end; x++ {
			indexes = append(indexes, x)
		}
		got, err := c.s.store.LogHashes(ctx, indexes)
		if err != nil {
			return fmt.Errorf("stored hashes: %w", err)
		}
		for i, h := range got {
			if h != c.hashes[start+int64(i)] {
				level, n := tlog.SplitStoredHashIndex(start + int64(i))
				return fmt.Errorf("stored hash %d (level %d, node %d) differs from the hash recomputed from the entries", start+int64(i), level, n)
			}
		}
	}
	c.report(fmt.Sprintf("stored hashes: %d equal to the recomputed ones", stored))
	return nil
}

// fullTiles compares every full tile stored whole with the one made from
// the entries.
func (c *logCheck) fullTiles(ctx context.Context) error {
	st := c.st
	if st.TilesSize > st.TreeSize {
		return fmt.Errorf("full tiles are stored up to %d entries, past the tree of %d", st.TilesSize, st.TreeSize)
	}
	hashTiles, bundles, onBlobs := 0, 0, 0
	err := translog.FullTiles(0, st.TilesSize, func(t tlog.Tile) error {
		name := translog.TilePath(t)
		row, ok, err := c.s.store.LogFullTile(ctx, t.L, t.N)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("the full tile %s is not stored", name)
		}
		stored := row.Data
		if row.OnBlobStore() {
			// Read unchecked and uncached, so that a damaged blob is
			// named here rather than refused on the way.
			if stored, err = c.s.rawBlob(ctx, row.SHA256); err != nil {
				return fmt.Errorf("the full tile %s: blob %s: %w", name, row.SHA256, err)
			}
			if err := checkBlob(row.SHA256, stored); err != nil {
				return fmt.Errorf("the full tile %s: %w", name, err)
			}
			onBlobs++
		}
		var want []byte
		if t.L == -1 {
			entries, err := c.s.store.LogEntries(ctx, t.N*translog.TileWidth, (t.N+1)*translog.TileWidth)
			if err == nil {
				want, err = translog.EncodeBundle(entries)
			}
			if err != nil {
				return err
			}
			bundles++
		} else {
			if want, err = tlog.ReadTileData(t, c.memory()); err != nil {
				return err
			}
			hashTiles++
		}
		if !bytes.Equal(stored, want) {
			return fmt.Errorf("the stored full tile %s differs from the one made from the entries", name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	line := fmt.Sprintf("full tiles: %d hash tiles and %d entry bundles stored equal to the recomputed ones, %d of them on the blob store", hashTiles, bundles, onBlobs)
	if st.TilesSize < st.TreeSize {
		// Entries an older pactd sequenced; the next rounds store their
		// tiles, which are made from the hashes until then.
		line += fmt.Sprintf(" (the full tiles of entries %d to %d are not stored yet)", st.TilesSize, st.TreeSize)
	}
	c.report(line)
	return nil
}

// checkpoints checks that every stored checkpoint is signed by the log's
// key and names the recomputed tree, the latest the sequenced one. A
// checkpoint larger than the tree the check read was signed since, by a
// replica serving beside it: it is left out (changedMeanwhile).
func (c *logCheck) checkpoints(ctx context.Context) error {
	count, latest := 0, int64(-1)
	err := c.s.store.LogCheckpoints(ctx, func(size int64, signed []byte) error {
		if size > c.st.TreeSize {
			c.sinceTree = max(c.sinceTree, size)
			return nil
		}
		cp, err := translog.OpenCheckpoint(signed, c.verifier)
		if err != nil {
			return fmt.Errorf("checkpoint of size %d: %v", size, err)
		}
		if cp.Size != size || size > c.st.Entries {
			return fmt.Errorf("checkpoint of size %d: it says %d entries, the log has %d", size, cp.Size, c.st.Entries)
		}
		root, err := tlog.TreeHash(size, c.memory())
		if err != nil {
			return err
		}
		if root != cp.Hash {
			return fmt.Errorf("checkpoint of size %d: root hash %s differs from the one recomputed from the entries (%s)", size, cp.Hash, root)
		}
		count++
		latest = size
		return nil
	})
	if err != nil {
		return err
	}
	if latest != c.st.TreeSize {
		return fmt.Errorf("the latest checkpoint covers %d entries, the tree %d", latest, c.st.TreeSize)
	}
	c.report(fmt.Sprintf("checkpoints: %d signed by %s and equal to the recomputed tree", count, c.verifier.Name()))
	return nil
}

// versions compares every version's document with its publish entry, and
// finds publish entries of versions the database lacks.
func (c *logCheck) versions(ctx context.Context) error {
	count, err := eachInBatches(ctx, c.s.store.LoggedVersions, func(v *LoggedVersion) int64 { return v.ID }, func(v *LoggedVersion) error {
		name := fmt.Sprintf("version %s/%s %s", v.Owner, v.Pack, v.Version)
		if v.LogIndex == nil {
			return fmt.Errorf("%s: not in the log", name)
		}
		key := publishKey(v.Owner, v.Pack, v.Version)
		l, ok := c.publishes[key]
		if !ok && c.loggedSince(*v.LogIndex) {
			return nil
		}
		if !ok || l.index != *v.LogIndex {
			return fmt.Errorf("%s: log entry %d does not record it", name, *v.LogIndex)
		}
		if len(v.Content) == 0 { // no document is empty: it is on the blob store
			content, err := c.s.rawBlob(ctx, v.SHA256)
			if err != nil {
				return fmt.Errorf("%s: document on the blob store: %w", name, err)
			}
			v.Content = content
			name += " (blob " + v.SHA256 + ")"
		}
		sum := sha256.Sum256(v.Content)
		actual := hex.EncodeToString(sum[:])
		if actual != l.ev.SHA256 || v.SHA256 != l.ev.SHA256 {
			shown := actual
			if actual == l.ev.SHA256 {
				shown = v.SHA256
			}
			return fmt.Errorf("%s: document sha256 %s differs from log entry %d (%s)", name, shown, l.index, l.ev.SHA256)
		}
		if int64(len(v.Content)) != l.ev.Size {
			return fmt.Errorf("%s: document of %d bytes, log entry %d says %d", name, len(v.Content), l.index, l.ev.Size)
		}
		delete(c.publishes, key)
		return nil
	})
	if err != nil {
		return err
	}
	if len(c.publishes) > 0 {
		first := earliest(c.publishes)
		return fmt.Errorf("log entry %d: version %s/%s %s is logged but not in the database", first.index, first.ev.Owner, first.ev.Pack, first.ev.Version)
	}
	c.report(fmt.Sprintf("versions: %d documents equal to their log entries", count))
	return nil
}

// releaseRecords checks that each stored release record hashes to its
// digest, which its log entry holds with the version's sha256, the
// artifact count and the commit (docs/protocol.md, Releases).
func (c *logCheck) releaseRecords(ctx context.Context) error {
	count, err := eachInBatches(ctx, c.s.store.LoggedReleases, func(r *Release) int64 { return r.ID }, func(r *Release) error {
		name := fmt.Sprintf("release of %s/%s %s", r.Owner, r.Pack, r.Version)
		sum := sha256.Sum256(r.Canonical())
		actual := hex.EncodeToString(sum[:])
		if actual != r.SHA256 {
			return fmt.Errorf("%s: the stored record hashes to %s, not to its digest %s", name, actual, r.SHA256)
		}
		if r.LogIndex == nil {
			return fmt.Errorf("%s: not in the log", name)
		}
		key := publishKey(r.Owner, r.Pack, r.Version)
		l, ok := c.releases[key]
		if !ok && c.loggedSince(*r.LogIndex) {
			return nil
		}
		if !ok || l.index != *r.LogIndex {
			return fmt.Errorf("%s: log entry %d does not record it", name, *r.LogIndex)
		}
		if l.ev.Release != actual || l.ev.SHA256 != r.ContractSHA256 || l.ev.Artifacts != len(r.Artifacts) || l.ev.Commit != r.SourceGitCommit {
			return fmt.Errorf("%s: differs from log entry %d (release %s, sha256 %s, %d artifacts, commit %q)", name, l.index, l.ev.Release, l.ev.SHA256, l.ev.Artifacts, l.ev.Commit)
		}
		delete(c.releases, key)
		return nil
	})
	if err != nil {
		return err
	}
	if len(c.releases) > 0 {
		first := earliest(c.releases)
		return fmt.Errorf("log entry %d: the release of %s/%s %s is logged but not in the database", first.index, first.ev.Owner, first.ev.Pack, first.ev.Version)
	}
	c.report(fmt.Sprintf("releases: %d records equal to their log entries", count))
	return nil
}

// packageSettings checks that the packages set to trusted publishing only
// are exactly those whose last trusted-publishing-only entry turned it on
// (a package with no such entry never had it).
func (c *logCheck) packageSettings(ctx context.Context) error {
	count, err := eachInBatches(ctx, c.s.store.TrustedPublishingOnlyPackages, func(p *Package) int64 { return p.ID }, func(p *Package) error {
		key := publishKey(p.OwnerSlug, p.PackSlug, "")
		l, ok := c.settings[key]
		if !ok {
			return fmt.Errorf("package %s/%s: trusted publishing only, but no log entry records it", p.OwnerSlug, p.PackSlug)
		}
		if !l.ev.Only {
			return fmt.Errorf("package %s/%s: trusted publishing only, but its last trusted-publishing-only log entry, %d, turned it off", p.OwnerSlug, p.PackSlug, l.index)
		}
		delete(c.settings, key)
		return nil
	})
	if err != nil {
		return err
	}
	for key, l := range c.settings {
		if !l.ev.Only {
			delete(c.settings, key)
		}
	}
	if len(c.settings) > 0 {
		first := earliest(c.settings)
		return fmt.Errorf("log entry %d: package %s/%s is logged as trusted publishing only, but the database does not set it", first.index, first.ev.Owner, first.ev.Pack)
	}
	c.report(fmt.Sprintf("package settings: %d packages trusted publishing only, as their log entries say", count))
	return nil
}

// packageStates compares every package's latest version, yanked versions,
// deprecation and log head in the database with its newest pack-state
// entry (packStateEntry checked that entry against the events before it).
func (c *logCheck) packageStates(ctx context.Context) error {
	count, err := eachInBatches(ctx, c.s.store.PackageStates, func(p *StoredPackState) int64 { return p.ID }, func(p *StoredPackState) error {
		return c.packageState(p)
	})
	if err != nil {
		return err
	}
	c.report(fmt.Sprintf("package states: %d latest versions, yanks and deprecations as their newest pack-state entries say", count))
	return nil
}

// packageState compares one package with its newest pack-state entry and
// names the first field that differs.
func (c *logCheck) packageState(p *StoredPackState) error {
	name := fmt.Sprintf("package %s/%s", p.Owner, p.Pack)
	if p.Head != nil && c.loggedSince(*p.Head) {
		return nil
	}
	r := c.packs[publishKey(p.Owner, p.Pack, "")]
	if r == nil || r.head < 0 {
		return fmt.Errorf("%s: the log holds no pack-state entry of it", name)
	}
	at := fmt.Sprintf("the log's newest pack-state entry of it, %d,", r.head)
	yanked := slices.Clone(p.Yanked)
	slices.Sort(yanked)
	switch {
	case p.Latest != r.state.Latest:
		return fmt.Errorf("%s: latest version %s in the database, but %s says %s", name, orNone(p.Latest), at, orNone(r.state.Latest))
	case strings.Join(yanked, " ") != strings.Join(r.state.Yanked, " "):
		return fmt.Errorf("%s: yanked versions [%s] in the database, but %s says [%s]", name, strings.Join(yanked, " "), at, strings.Join(r.state.Yanked, " "))
	case p.Deprecated != r.state.Deprecated:
		return fmt.Errorf("%s: deprecation %s in the database, but %s says %s", name, quotedOrNone(p.Deprecated), at, quotedOrNone(r.state.Deprecated))
	case p.Head == nil || *p.Head != r.head:
		head := "none"
		if p.Head != nil {
			head = fmt.Sprint(*p.Head)
		}
		return fmt.Errorf("%s: log head %s in the database, but %s", name, head, strings.TrimSuffix(at, ",")+" is its newest")
	}
	return nil
}

// quotedOrNone shows a deprecation message that may be "" (none).
func quotedOrNone(msg string) string {
	if msg == "" {
		return "none"
	}
	return fmt.Sprintf("%q", msg)
}

// eachInBatches calls each for every record read reads, checkBatch at a
// time in the order of id, and answers how many there were.
func eachInBatches[T any](ctx context.Context, read func(ctx context.Context, after int64, limit int) ([]T, error),
	id func(*T) int64, each func(*T) error) (int, error) {
	count := 0
	for after := int64(0); ; {
		list, err := read(ctx, after, checkBatch)
		if err != nil {
			return count, err
		}
		for i := range list {
			after = id(&list[i])
			count++
			if err := each(&list[i]); err != nil {
				return count, err
			}
		}
		if len(list) < checkBatch {
			return count, nil
		}
	}
}

// earliest answers the entry of m with the lowest log index: the first of
// the logged changes the database lacks.
func earliest[E any](m map[string]logged[E]) logged[E] {
	var first logged[E]
	found := false
	for _, v := range m {
		if !found || v.index < first.index {
			first, found = v, true
		}
	}
	return first
}

func publishKey(owner, pack, version string) string { return owner + "\x00" + pack + "\x00" + version }
