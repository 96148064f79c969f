// Package logtest reads a pact server's transparency log over HTTP and
// checks it with golang.org/x/mod/sumdb's own verifiers (sumdb/note for the
// checkpoint's signature, tlog's TileHashReader, ProveRecord and CheckRecord
// for every entry's inclusion), independently of pact's own code: paths,
// bundles and checkpoints are parsed here from the C2SP specifications.
package logtest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// Log is what a verified read of the log found.
type Log struct {
	VerifierKey string
	Origin      string
	Tree        tlog.Tree
	Checkpoint  []byte   // the signed note as served
	Entries     [][]byte // every entry of the tree, by index
}

var client = &http.Client{Timeout: 30 * time.Second}

func fetch(base, path string) ([]byte, error) {
	resp, err := client.Get(base + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, bytes.TrimSpace(body))
	}
	return body, nil
}

// Checkpoint reads and verifies the latest checkpoint with the served key.
func Checkpoint(base string) (*Log, error) {
	key, err := fetch(base, "/log/key")
	if err != nil {
		return nil, err
	}
	vkey := strings.TrimSuffix(string(key), "\n")
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("the served key %q: %v", vkey, err)
	}
	signed, err := fetch(base, "/log/checkpoint")
	if err != nil {
		return nil, err
	}
	n, err := note.Open(signed, note.VerifierList(verifier))
	if err != nil {
		return nil, fmt.Errorf("the checkpoint does not verify: %v\n%s", err, signed)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[0] != verifier.Name() {
		return nil, fmt.Errorf("checkpoint text %q: want origin %q, size, hash", n.Text, verifier.Name())
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("checkpoint size %q: %v", lines[1], err)
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return nil, fmt.Errorf("checkpoint root hash %q", lines[2])
	}
	return &Log{VerifierKey: vkey, Origin: lines[0], Tree: tlog.Tree{N: size, Hash: tlog.Hash(root)}, Checkpoint: signed}, nil
}

// tilePath writes a tile's C2SP path: tile/<L>/<N>[.p/<W>], level "entries"
// for entry bundles.
func tilePath(level string, n int64, w int) string {
	s := fmt.Sprintf("%03d", n%1000)
	for n >= 1000 {
		n /= 1000
		s = fmt.Sprintf("x%03d/%s", n%1000, s)
	}
	if w < 256 {
		s += fmt.Sprintf(".p/%d", w)
	}
	return "/log/tile/" + level + "/" + s
}

// tiles serves tlog's TileHashReader from the server's hash tiles.
type tiles struct{ base string }

func (tiles) Height() int { return 8 }

func (r tiles) ReadTiles(ts []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(ts))
	for i, t := range ts {
		data, err := fetch(r.base, tilePath(strconv.Itoa(t.L), t.N, t.W))
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (tiles) SaveTiles([]tlog.Tile, [][]byte) {}

// Verify reads the latest checkpoint and every entry, and checks each
// entry's inclusion in the checkpoint's tree.
func Verify(base string) (*Log, error) {
	l, err := Checkpoint(base)
	if err != nil {
		return nil, err
	}
	for start := int64(0); start < l.Tree.N; start += 256 {
		w := int(min(256, l.Tree.N-start))
		bundle, err := fetch(base, tilePath("entries", start/256, w))
		if err != nil {
			return nil, err
		}
		for len(bundle) > 0 {
			if len(bundle) < 2 {
				return nil, fmt.Errorf("entry bundle at %d is cut short", start)
			}
			n := int(binary.BigEndian.Uint16(bundle))
			if len(bundle) < 2+n {
				return nil, fmt.Errorf("entry bundle at %d is cut short", start)
			}
			l.Entries = append(l.Entries, bundle[2:2+n])
			bundle = bundle[2+n:]
		}
		if int64(len(l.Entries)) != start+int64(w) {
			return nil, fmt.Errorf("entry bundle at %d holds %d entries, want %d", start, int64(len(l.Entries))-start, w)
		}
	}
	reader := tlog.TileHashReader(l.Tree, tiles{base})
	for i, entry := range l.Entries {
		proof, err := tlog.ProveRecord(l.Tree.N, int64(i), reader)
		if err != nil {
			return nil, fmt.Errorf("proving entry %d: %v", i, err)
		}
		if err := tlog.CheckRecord(proof, l.Tree.N, l.Tree.Hash, int64(i), tlog.RecordHash(entry)); err != nil {
			return nil, fmt.Errorf("entry %d is not in the tree: %v", i, err)
		}
	}
	return l, nil
}

// Consistent checks that the tree of later contains the tree of earlier,
// both read from base.
func Consistent(base string, earlier, later tlog.Tree) error {
	if earlier.N == 0 {
		return nil // every tree extends the empty one
	}
	proof, err := tlog.ProveTree(later.N, earlier.N, tlog.TileHashReader(later, tiles{base}))
	if err != nil {
		return err
	}
	return tlog.CheckTree(proof, later.N, later.Hash, earlier.N, earlier.Hash)
}

// WaitFor reads the checkpoint until it covers at least size entries (the
// server promises within a second; this waits up to 20 seconds so a loaded
// machine does not fail the test), then verifies the whole log.
func WaitFor(t testing.TB, base string, size int64) *Log {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := Checkpoint(base)
		if err == nil && l.Tree.N >= size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no checkpoint covers %d entries after 20s: %v %+v", size, err, l)
		}
		time.Sleep(20 * time.Millisecond)
	}
	l, err := Verify(base)
	if err != nil {
		t.Fatalf("verifying the log of %s: %v", base, err)
	}
	return l
}

// Field answers the value of key in an entry ("" when absent).
func Field(entry []byte, key string) string {
	for _, line := range strings.Split(string(entry), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			return v
		}
	}
	return ""
}
