package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
)

// AppendEscaped writes what encoding/json writes inside a string (html) and
// what slog's JSON handler writes (not html), for strings long enough to
// take the eight-bytes-at-a-time path, with every kind of byte at every
// position of a word.
func TestAppendEscapedIsEncodingJSONAndSlog(t *testing.T) {
	kinds := []string{"a", "Z", " ", "~", "\x7f", `"`, `\`, "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f",
		"é", "日", "🙂", "\u2028", "\u2029", "\xff", "\xe2\x82", "\xc3", "\x80"}
	r := rand.New(rand.NewPCG(7, 11))
	check := func(s string) {
		t.Helper()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendEscaped([]byte{'"'}, s, true); string(append(got, '"')) != string(want) {
			t.Fatalf("html, %q:\n got %s\nwant %s", s, append(got, '"'), want)
		}
		var line bytes.Buffer
		slog.New(slog.NewJSONHandler(&line, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey {
				return slog.Attr{}
			}
			return a
		}})).LogAttrs(context.Background(), slog.LevelInfo, "", slog.String("s", s))
		wantSlog := strings.TrimSuffix(strings.TrimPrefix(line.String(), `{"s":"`), "\"}\n")
		if got := AppendEscaped(nil, s, false); string(got) != wantSlog {
			t.Fatalf("slog, %q:\n got %s\nwant %s", s, got, wantSlog)
		}
		ascii := true
		for i := range len(s) {
			ascii = ascii && s[i] < 0x80
		}
		if IsASCII(s) != ascii {
			t.Fatalf("IsASCII(%q) = %v", s, !ascii)
		}
	}
	// One odd byte at each position of a plain run, for runs of 0 to 20
	// bytes: the eight-byte test must see it wherever it falls.
	for n := range 21 {
		for pos := range n {
			for _, k := range kinds {
				check(strings.Repeat("x", pos) + k + strings.Repeat("y", n-pos))
			}
		}
	}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			if r.IntN(2) == 0 {
				b.WriteString(strings.Repeat("p", r.IntN(20)))
			} else {
				b.WriteString(kinds[r.IntN(len(kinds))])
			}
		}
		check(b.String())
	}
}

func TestIsASCII(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", strings.Repeat("x", 100)} {
		if !IsASCII(s) {
			t.Errorf("IsASCII(%q) = false", s)
		}
	}
	for n := range 20 {
		for pos := range n + 1 {
			s := strings.Repeat("x", pos) + "\x80" + strings.Repeat("y", n-pos)
			if IsASCII(s) {
				t.Errorf("IsASCII(%q) = true", s)
			}
		}
	}
}

// A package's description and the URLs of a list answer: mostly plain.
func BenchmarkAppendEscaped(b *testing.B) {
	s := "A pack the benchmark made, called pack-0000123. https://pact.example/raw/owner-0001/pack-0000123.pact.md"
	buf := make([]byte, 0, 256)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendEscaped(buf[:0], s, true)
	}
}
