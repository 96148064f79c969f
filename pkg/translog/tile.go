package translog

import (
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/pact-registry/pact/pkg/clip"
)

// TileHeight is the log's tile height: a full tile holds 256 hashes or 256 entries (C2SP tlog-tiles).
const TileHeight = 8

// TileWidth is the number of hashes or entries in a full tile.
const TileWidth = 1 << TileHeight

// maxTilePath bounds the tile paths ParseTilePath reads: the longest valid one is far shorter.
const maxTilePath = 96

// TilePath answers the C2SP tlog-tiles path of t: `tile/<L>/<N>[.p/<W>]` for a hash tile and
// `tile/entries/<N>[.p/<W>]` for an entry bundle (t.L == -1), where N is written in groups of three digits,
// all but the last prefixed with "x" (1234067 → x001/x234/067). t.H must be TileHeight.
func TilePath(t tlog.Tile) string {
	// tlog writes sumdb's tile/<H>/<L or data>/<N>[.p/<W>], with the same N and W encoding as C2SP.
	p := strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", t.H))
	if t.L == -1 {
		p = "entries/" + strings.TrimPrefix(p, "data/")
	}
	return "tile/" + p
}

// FullTiles calls fn, in order, for each full tile that a tree of size to holds and a tree of size from
// does not: the hash tiles of level 0, then of each higher level, then the entry bundles (L == -1). It stops
// at fn's first error and answers it.
func FullTiles(from, to int64, fn func(tlog.Tile) error) error {
	for level := 0; to>>(TileHeight*level) >= TileWidth; level++ {
		shift := TileHeight * level
		for n := (from >> shift) / TileWidth; n < (to>>shift)/TileWidth; n++ {
			if err := fn(tlog.Tile{H: TileHeight, L: level, N: n, W: TileWidth}); err != nil {
				return err
			}
		}
	}
	for n := from / TileWidth; n < to/TileWidth; n++ {
		if err := fn(tlog.Tile{H: TileHeight, L: -1, N: n, W: TileWidth}); err != nil {
			return err
		}
	}
	return nil
}

// ParseTilePath reads a C2SP tile path as TilePath writes it (only the canonical form: no leading zeros
// beyond the groups of three, no .p/256). Entry bundles come back with L == -1; every tile has H ==
// TileHeight.
func ParseTilePath(path string) (tlog.Tile, error) {
	bad := fmt.Errorf("malformed tile path %q", clip.Text(path, 40))
	if len(path) > maxTilePath {
		return tlog.Tile{}, bad
	}
	rest, ok := strings.CutPrefix(path, "tile/")
	if !ok {
		return tlog.Tile{}, bad
	}
	level, nw, ok := strings.Cut(rest, "/")
	if !ok {
		return tlog.Tile{}, bad
	}
	if level == "entries" {
		level = "data"
	} else if len(level) > 2 || level == "data" {
		return tlog.Tile{}, bad
	}
	t, err := tlog.ParseTilePath(fmt.Sprintf("tile/%d/%s/%s", TileHeight, level, nw))
	if err != nil || t.L > 63/TileHeight || t.N < 0 || TilePath(t) != path {
		return tlog.Tile{}, bad
	}
	return t, nil
}

// EntryTile answers the entry bundle that holds the entry at index in a tree of treeSize entries.
func EntryTile(index, treeSize int64) tlog.Tile {
	n := index / TileWidth
	w := min(treeSize-n*TileWidth, TileWidth)
	return tlog.Tile{H: TileHeight, L: -1, N: n, W: int(w)}
}

// AppendBundleEntry appends one entry to an entry bundle: its length as a big-endian uint16, then its bytes.
func AppendBundleEntry(bundle, entry []byte) ([]byte, error) {
	if len(entry) > MaxEntrySize {
		return bundle, fmt.Errorf("log entry of %d bytes does not fit an entry bundle", len(entry))
	}
	bundle = binary.BigEndian.AppendUint16(bundle, uint16(len(entry)))
	return append(bundle, entry...), nil
}

// EncodeBundle writes entries as an entry bundle.
func EncodeBundle(entries [][]byte) ([]byte, error) {
	var b []byte
	for _, e := range entries {
		var err error
		if b, err = AppendBundleEntry(b, e); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// DecodeBundle splits an entry bundle into its entries, which must be exactly want of them (the bundle's
// width). The entries share data's memory.
func DecodeBundle(data []byte, want int) ([][]byte, error) {
	if want < 0 || want > TileWidth {
		return nil, fmt.Errorf("entry bundle: width %d out of range", want)
	}
	out := make([][]byte, 0, want)
	for len(data) > 0 {
		if len(data) < 2 {
			return nil, fmt.Errorf("entry bundle: truncated after %d entries", len(out))
		}
		n := int(binary.BigEndian.Uint16(data))
		data = data[2:]
		if len(data) < n {
			return nil, fmt.Errorf("entry bundle: entry %d truncated", len(out))
		}
		if len(out) == want {
			return nil, fmt.Errorf("entry bundle: more than %d entries", want)
		}
		out = append(out, data[:n:n])
		data = data[n:]
	}
	if len(out) != want {
		return nil, fmt.Errorf("entry bundle: %d entries, want %d", len(out), want)
	}
	return out, nil
}
