package translog

import (
	"bytes"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

func TestTilePaths(t *testing.T) {
	tests := []struct {
		tile tlog.Tile
		path string
	}{
		{tlog.Tile{H: 8, L: 0, N: 0, W: 256}, "tile/0/000"},
		{tlog.Tile{H: 8, L: 0, N: 0, W: 1}, "tile/0/000.p/1"},
		{tlog.Tile{H: 8, L: 2, N: 1234067, W: 256}, "tile/2/x001/x234/067"},
		{tlog.Tile{H: 8, L: 1, N: 1000, W: 7}, "tile/1/x001/000.p/7"},
		{tlog.Tile{H: 8, L: -1, N: 5, W: 256}, "tile/entries/005"},
		{tlog.Tile{H: 8, L: -1, N: 1234067, W: 255}, "tile/entries/x001/x234/067.p/255"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := TilePath(tt.tile); got != tt.path {
				t.Fatalf("TilePath(%+v) = %q", tt.tile, got)
			}
			got, err := ParseTilePath(tt.path)
			if err != nil || got != tt.tile {
				t.Fatalf("ParseTilePath = %+v, %v", got, err)
			}
		})
	}
}

func TestParseTilePathRejects(t *testing.T) {
	for _, p := range []string{
		"", "tile", "tile/0", "tile/0/", "tile/0/0", "tile/0/00", "tile/0/0000", "tile/0/x000/001",
		"tile/0/001.p/256", "tile/0/001.p/0", "tile/0/001.p/01", "tile/0/001.p/", "tile/-1/000",
		"tile/data/000", "tile/8/0/000", "tile/00/000", "tile/8/000", "tile/entries/", "tile/entries/1",
		"tile/0/x1/000", "tile/0/000/", "/tile/0/000", "tile/0/abc", "tile/entries/000.p/300",
		"tile/0/" + strings.Repeat("x999/", 20) + "999",
		"tile/0/x9223/x372/x036/x854/x775/x808/000",
	} {
		if tile, err := ParseTilePath(p); err == nil {
			t.Errorf("ParseTilePath(%q) = %+v, want an error", p, tile)
		}
	}
}

func TestEntryTile(t *testing.T) {
	for _, tt := range []struct {
		index, size int64
		want        tlog.Tile
	}{
		{0, 1, tlog.Tile{H: 8, L: -1, N: 0, W: 1}},
		{3, 300, tlog.Tile{H: 8, L: -1, N: 0, W: 256}},
		{256, 300, tlog.Tile{H: 8, L: -1, N: 1, W: 44}},
		{511, 512, tlog.Tile{H: 8, L: -1, N: 1, W: 256}},
	} {
		if got := EntryTile(tt.index, tt.size); got != tt.want {
			t.Errorf("EntryTile(%d, %d) = %+v, want %+v", tt.index, tt.size, got, tt.want)
		}
	}
}

func TestBundle(t *testing.T) {
	entries := [][]byte{[]byte("one\n"), {}, bytes.Repeat([]byte("x"), 300)}
	b, err := EncodeBundle(entries)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0, 4, 'o', 'n', 'e', '\n', 0, 0, 1, 44}) {
		t.Fatalf("bundle starts % x", b[:10])
	}
	got, err := DecodeBundle(b, 3)
	if err != nil || len(got) != 3 || !bytes.Equal(got[2], entries[2]) || len(got[1]) != 0 {
		t.Fatalf("DecodeBundle = %q, %v", got, err)
	}
	for name, tc := range map[string]struct {
		data []byte
		want int
	}{
		"fewer":     {b, 4},
		"more":      {b, 2},
		"truncated": {b[:len(b)-1], 3},
		"odd byte":  {append(b[:len(b):len(b)], 0), 3},
		"too wide":  {nil, 257},
	} {
		if _, err := DecodeBundle(tc.data, tc.want); err == nil {
			t.Errorf("%s: DecodeBundle accepted it", name)
		}
	}
	if _, err := EncodeBundle([][]byte{make([]byte, MaxEntrySize+1)}); err == nil {
		t.Error("EncodeBundle accepted an entry longer than a uint16")
	}
}

func TestCheckpoint(t *testing.T) {
	skey, vkey, err := GenerateKey(rand.Reader, "pact.example.com/log")
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := note.NewSigner(skey)
	verifier, _ := note.NewVerifier(vkey)
	c := Checkpoint{Origin: "pact.example.com/log", Size: 17, Hash: tlog.RecordHash([]byte("x"))}
	msg, err := SignCheckpoint(c, signer)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(msg), "pact.example.com/log\n17\n") {
		t.Fatalf("checkpoint text:\n%s", msg)
	}
	got, err := OpenCheckpoint(msg, verifier)
	if err != nil || got != c {
		t.Fatalf("OpenCheckpoint = %+v, %v", got, err)
	}
	// Another key with the same name does not verify it.
	_, other, _ := GenerateKey(rand.Reader, "pact.example.com/log")
	ov, _ := note.NewVerifier(other)
	if _, err := OpenCheckpoint(msg, ov); err == nil {
		t.Fatal("a different key verified the checkpoint")
	}
	// A changed size breaks the signature.
	forged := bytes.Replace(msg, []byte("\n17\n"), []byte("\n18\n"), 1)
	if _, err := OpenCheckpoint(forged, verifier); err == nil {
		t.Fatal("a changed checkpoint verified")
	}
	// Signed by the right key, but naming another log: a key is the name
	// of one log only.
	otherOrigin, err := note.Sign(&note.Note{Text: Checkpoint{Origin: "other.example/log", Size: 17, Hash: c.Hash}.Text()}, signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCheckpoint(otherOrigin, verifier); err == nil || !strings.Contains(err.Error(), `origin "other.example/log" is not the key's name`) {
		t.Fatalf("OpenCheckpoint of a checkpoint naming another origin: %v", err)
	}
	if _, err := SignCheckpoint(Checkpoint{Origin: "other/log"}, signer); err == nil {
		t.Fatal("signed a checkpoint whose origin is not the key's name")
	}
	for _, text := range []string{"o\n1\n", "o\n-1\nAAAA\n", "o\n01\n" + c.Text()[len("pact.example.com/log\n17\n"):],
		"\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", "o\n1\nAAAA\n", "o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"} {
		if _, err := ParseCheckpointText(text); err == nil {
			t.Errorf("ParseCheckpointText(%q) accepted it", text)
		}
	}
	ext, err := ParseCheckpointText(c.Text() + "extension line\n")
	if err != nil || ext != c {
		t.Errorf("extension line: %+v, %v", ext, err)
	}
}

func TestVerifierKey(t *testing.T) {
	skey, vkey, err := GenerateKey(rand.Reader, "pact.example.com:8080/log")
	if err != nil {
		t.Fatal(err)
	}
	got, err := VerifierKey(skey)
	if err != nil || got != vkey {
		t.Fatalf("VerifierKey = %q, %v; want %q", got, err, vkey)
	}
	for _, bad := range []string{"", vkey, "PRIVATE+KEY+x+00000000+AAAA"} {
		if _, err := VerifierKey(bad); err == nil {
			t.Errorf("VerifierKey(%q) accepted it", bad)
		}
	}
}

// A key whose base64 holds "+" (most do, in one character of 64) keeps its
// name: VerifierKey must not split the key text on it.
func TestVerifierKeyOfManyKeys(t *testing.T) {
	for range 200 {
		skey, vkey, err := GenerateKey(rand.Reader, "pact.example.com/log")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := VerifierKey(skey); err != nil || got != vkey {
			t.Fatalf("VerifierKey(%s) = %q, %v; want %q", skey, got, err, vkey)
		}
	}
}

// FullTiles names each full tile a tree gains when it grows, once: a tile
// of level L is full when the tree holds 256 nodes of tlog level 8·L under
// it; entry bundles come last.
func TestFullTiles(t *testing.T) {
	names := func(from, to int64) []string {
		var out []string
		if err := FullTiles(from, to, func(tl tlog.Tile) error {
			out = append(out, TilePath(tl))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		from, to int64
		want     string
	}{
		{0, 255, ""},
		{0, 256, "tile/0/000 tile/entries/000"},
		{256, 511, ""},
		{200, 600, "tile/0/000 tile/0/001 tile/entries/000 tile/entries/001"},
		{65000, 65536, "tile/0/253 tile/0/254 tile/0/255 tile/1/000 tile/entries/253 tile/entries/254 tile/entries/255"},
		{65536, 65536 + 256, "tile/0/256 tile/entries/256"},
		{1 << 24, 1<<24 + 256, "tile/0/x065/536 tile/entries/x065/536"},
		{1<<24 - 1, 1 << 24, "tile/0/x065/535 tile/1/255 tile/2/000 tile/entries/x065/535"},
	} {
		if got := strings.Join(names(c.from, c.to), " "); got != c.want {
			t.Errorf("FullTiles(%d, %d) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
	if n := len(names(0, 1000000)); n != 3906+15+3906 {
		t.Errorf("a tree of 1,000,000 has %d full tiles, want 3,906 + 15 hash tiles and 3,906 bundles", n)
	}
	stop := errors.New("stop")
	calls := 0
	if err := FullTiles(0, 1<<20, func(tlog.Tile) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("FullTiles went on after an error: %v, %d calls", err, calls)
	}
}
