package client

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/translog"
)

// logState is what a client keeps of one log between runs, in one
// directory of the user's cache (docs/protocol.md, "The client's
// verification"):
//
//	checkpoint.json        the last checkpoint verified, and when it was first seen
//	tile/<L>/<N>           full hash tiles, kept for good (they never change)
//	tile/<L>/<N>.p         the widest partial tile read at that position, until
//	                       the full one replaces it (a tile only grows: its
//	                       hashes never change)
//	tile/entries/<N>       full entry bundles, likewise
//	tile/entries/<N>.p     the widest partial bundle read
//	watch/<owner>          where 'pact log watch' goes on for an owner
//	forks/<time>.txt       both signed checkpoints of a detected fork
//
// Everything read back is checked again against a signed checkpoint, so a
// damaged cache can make a verification fail, never pass. Files are
// written to a temporary name and renamed, so a reader never sees half a
// file.
type logState struct {
	dir string
}

// stateDirName names a log's directory by its key's name and hash, so a
// re-pinned key starts a new history rather than tripping over the old one.
func stateDirName(v note.Verifier) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, v.Name())
	if len(name) > 100 {
		name = name[:100]
	}
	return fmt.Sprintf("%s+%08x", name, v.KeyHash())
}

type checkpointFile struct {
	Note   string    `json:"note"`
	SeenAt time.Time `json:"seen_at"`
}

func (s *logState) checkpointPath() string { return filepath.Join(s.dir, "checkpoint.json") }

// loadCheckpoint returns the last checkpoint verified, or nil.
func (s *logState) loadCheckpoint(v note.Verifier) (*SeenCheckpoint, error) {
	data, err := os.ReadFile(s.checkpointPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f checkpointFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("the log's last checkpoint in %s is damaged (%v); remove the file to start afresh", s.checkpointPath(), err)
	}
	cp, err := translog.OpenCheckpoint([]byte(f.Note), v)
	if err != nil {
		return nil, fmt.Errorf("the log's last checkpoint in %s does not verify (%v); remove the file to start afresh", s.checkpointPath(), err)
	}
	return &SeenCheckpoint{Checkpoint: cp, Note: []byte(f.Note), SeenAt: f.SeenAt}, nil
}

// saveCheckpoint keeps cp as the last checkpoint seen, unless another run
// kept a larger one in the meantime: the kept checkpoint only moves forward.
func (s *logState) saveCheckpoint(cp *Checkpoint, now time.Time) error {
	if data, err := os.ReadFile(s.checkpointPath()); err == nil {
		var f checkpointFile
		if json.Unmarshal(data, &f) == nil {
			if text, err := openUnverified(f.Note); err == nil && text.Size >= cp.Size {
				return nil
			}
		}
	}
	data, err := json.MarshalIndent(checkpointFile{Note: string(cp.Note), SeenAt: now.UTC().Truncate(time.Second)}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(s.checkpointPath(), append(data, '\n')); err != nil {
		return fmt.Errorf("cannot keep the log's checkpoint: %w", err)
	}
	return nil
}

// openUnverified reads a checkpoint's text without its signature, to compare
// sizes with one kept by a concurrent run (which verified it).
func openUnverified(msg string) (translog.Checkpoint, error) {
	text, _, ok := strings.Cut(msg, "\n\n")
	if !ok {
		return translog.Checkpoint{}, errors.New("no signature block")
	}
	return translog.ParseCheckpointText(text + "\n")
}

// saveForkEvidence keeps both signed checkpoints of a detected fork and
// returns the file's path, or "" if it could not be written.
func (s *logState) saveForkEvidence(seen *SeenCheckpoint, cp *Checkpoint, now time.Time) string {
	path := filepath.Join(s.dir, "forks", now.UTC().Format("20060102T150405Z")+".txt")
	text := fmt.Sprintf("checkpoint seen on %s:\n\n%s\ncheckpoint served on %s:\n\n%s",
		seenDate(seen), seen.Note, now.UTC().Format("2006-01-02 15:04 UTC"), cp.Note)
	if writeAtomic(path, []byte(text)) != nil {
		return ""
	}
	return path
}

func (s *logState) tilePath(t tlog.Tile) string {
	return filepath.Join(s.dir, filepath.FromSlash(translog.TilePath(t)))
}

// loadTile returns the hashes of t from a kept tile at t's position: the
// full tile, or the widest partial one seen if it is at least as wide (a
// tile's hashes never change, it only grows); nil when there is none.
func (s *logState) loadTile(t tlog.Tile) []byte {
	full := t
	full.W = translog.TileWidth
	path := s.tilePath(full)
	for _, p := range []string{path, path + ".p"} {
		data, err := os.ReadFile(p)
		if err != nil || len(data) > translog.TileWidth*tlog.HashSize || len(data)%tlog.HashSize != 0 {
			continue
		}
		if len(data) >= t.W*tlog.HashSize {
			return data[:t.W*tlog.HashSize]
		}
	}
	return nil
}

// saveTile keeps an authenticated tile: a full one for good (dropping the
// partial one), a partial one if it is wider than the one kept; with
// replace, whatever is kept.
func (s *logState) saveTile(t tlog.Tile, data []byte, replace bool) {
	full := t
	full.W = translog.TileWidth
	path := s.tilePath(full)
	if t.W == translog.TileWidth {
		if _, err := os.Stat(path); err == nil && !replace {
			return
		}
		// A cache: failing to keep a tile costs a request later.
		if writeAtomic(path, data) == nil {
			os.Remove(path + ".p")
		}
		return
	}
	if old, err := os.ReadFile(path + ".p"); err == nil && len(old) >= len(data) && !replace {
		return
	}
	_ = writeAtomic(path+".p", data)
}

func (s *logState) bundlePaths(bundle tlog.Tile) (full, partial string) {
	b := bundle
	b.W = translog.TileWidth
	full = s.tilePath(b)
	return full, full + ".p"
}

// loadBundle returns the first bundle.W entries of a cached bundle at
// bundle's position, or nil.
func (s *logState) loadBundle(bundle tlog.Tile) [][]byte {
	full, partial := s.bundlePaths(bundle)
	for _, path := range []string{full, partial} {
		data, err := os.ReadFile(path)
		if err != nil || len(data) > maxBundleBytes {
			continue
		}
		entries, err := translog.DecodeBundle(data, countBundle(data))
		if err != nil || len(entries) < bundle.W {
			continue
		}
		return entries[:bundle.W]
	}
	return nil
}

// saveBundle keeps a bundle whose entries were checked against a
// checkpoint: a full one for good, a partial one if it is wider than the
// one kept.
func (s *logState) saveBundle(bundle tlog.Tile, entries [][]byte) {
	full, partial := s.bundlePaths(bundle)
	path := full
	if len(entries) < translog.TileWidth {
		path = partial
		if data, err := os.ReadFile(partial); err == nil && countBundle(data) >= len(entries) {
			return
		}
	} else {
		if _, err := os.Stat(full); err == nil {
			return
		}
	}
	data, err := translog.EncodeBundle(entries)
	if err != nil {
		return
	}
	_ = writeAtomic(path, data) // a cache, as in saveTile
	if path == full {
		os.Remove(partial)
	}
}

func (s *logState) removeBundle(bundle tlog.Tile) {
	full, partial := s.bundlePaths(bundle)
	os.Remove(full)
	os.Remove(partial)
}

// countBundle counts the length-prefixed entries of a bundle (at most a
// full tile's worth); DecodeBundle checks the rest.
func countBundle(data []byte) int {
	n := 0
	for len(data) >= 2 && n <= translog.TileWidth {
		l := int(binary.BigEndian.Uint16(data))
		if len(data) < 2+l {
			break
		}
		data = data[2+l:]
		n++
	}
	return n
}

// WatchPosition returns where watching owner's events goes on (the index
// of the first entry not yet shown) and whether one was kept.
func (v *LogVerifier) WatchPosition(owner string) (int64, bool) {
	data, err := os.ReadFile(v.watchPath(owner))
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// SetWatchPosition keeps where watching owner's events goes on.
func (v *LogVerifier) SetWatchPosition(owner string, next int64) error {
	return writeAtomic(v.watchPath(owner), []byte(strconv.FormatInt(next, 10)+"\n"))
}

func (v *LogVerifier) watchPath(owner string) string {
	// Owners are slugs; anything else is hex-encoded to stay one file name.
	name := owner
	for _, r := range owner {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			name = fmt.Sprintf("%x", owner)
			break
		}
	}
	return filepath.Join(v.state.dir, "watch", name)
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path, making the directories (private to the user) as needed.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
