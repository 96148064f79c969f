package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/pact-registry/pact/pkg/wire"
	"github.com/pact-registry/pact/server/internal/httpx"
	"github.com/pact-registry/pact/server/registry"
)

// The package list is encoded by hand; its bytes must stay exactly what
// encoding/json makes of the wire types, whatever the strings hold.
func TestPackageListJSONIsEncodingJSON(t *testing.T) {
	hostile := []string{"", "plain", `"quoted" \back\slash`, "<script>&amp;</script>", "tab\there\nnew\rline\b\f\x00\x1f\x7f",
		"Ünïcødé ✓ 𝄞", "line\u2028sep\u2029", "bad \xff utf-8 \xe2\x82", "\xe2", "end with \xc3"}
	pick := func(r *rand.Rand) string {
		if r.IntN(3) == 0 {
			b := make([]byte, r.IntN(24))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			return string(b)
		}
		return hostile[r.IntN(len(hostile))]
	}
	for _, base := range []string{"http://pact.test", "https://pact.example/sub<&>", "http://ü.test"} {
		s := &Server{cfg: Config{BaseURL: base}, shared: httpx.NewShared(slog.New(slog.NewTextHandler(io.Discard, nil)), base, nil, 0, 0)}
		r := rand.New(rand.NewPCG(1, uint64(len(base))))
		for round := range 200 {
			pkgs := make([]registry.Package, r.IntN(4))
			for i := range pkgs {
				pkgs[i] = registry.Package{
					ID: r.Int64N(1 << 40), OwnerSlug: pick(r), PackSlug: pick(r), Name: pick(r), Description: pick(r),
					Scheme: pick(r), Version: pick(r), SHA256: pick(r), Deprecated: pick(r), TrustedPublishingOnly: r.IntN(2) == 0,
					CreatedAt: time.Unix(r.Int64N(4e9), r.Int64N(1e9)).UTC(),
					UpdatedAt: time.Unix(r.Int64N(4e9), 0).In(time.FixedZone("east", 3600+r.IntN(3600))),
				}
			}
			next := ""
			if round%2 == 1 {
				next = pick(r)
			}
			out := make([]wire.Package, len(pkgs))
			for i := range pkgs {
				out[i] = s.presentPackage(&pkgs[i])
			}
			var nextCursor *string
			if next != "" {
				nextCursor = &next
			}
			var suggestions []string
			for range round % 3 {
				suggestions = append(suggestions, pick(r))
			}
			want, err := json.Marshal(wire.PackageList{OK: true, Packages: out, NextCursor: nextCursor, Suggestions: suggestions})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.appendPackageList(nil, pkgs, next, registry.ListQuery{}, suggestions); string(got) != string(want) {
				t.Fatalf("base %q round %d:\n got %s\nwant %s", base, round, got, want)
			}
		}
	}
}

// BenchmarkPackageListJSON encodes a page of 20 packages as the bench
// seeds them: the list's encoding alone, without the store or net/http.
func BenchmarkPackageListJSON(b *testing.B) {
	base := "http://127.0.0.1:40123"
	s := &Server{cfg: Config{BaseURL: base}, shared: httpx.NewShared(slog.New(slog.NewTextHandler(io.Discard, nil)), base, nil, 0, 0)}
	pkgs := make([]registry.Package, 20)
	now := time.Date(2026, 11, 25, 8, 0, 0, 123456789, time.UTC)
	for i := range pkgs {
		name := "pack-" + strconv.Itoa(1000000+i)
		pkgs[i] = registry.Package{ID: int64(i + 1), OwnerSlug: "owner-0042", PackSlug: name, Name: name,
			Description: "A pack the benchmark made, called " + name + ".", Scheme: "pact/v1", Version: "1.0.0",
			SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", CreatedAt: now, UpdatedAt: now}
	}
	buf := s.appendPackageList(nil, pkgs, "djE6MjE", registry.ListQuery{}, nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = s.appendPackageList(buf[:0], pkgs, "djE6MjE", registry.ListQuery{}, nil)
	}
}
