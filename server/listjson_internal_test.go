package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
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
					Scheme: pick(r), Version: pick(r), SHA256: pick(r), Deprecated: pick(r),
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
			want, err := json.Marshal(wire.PackageList{OK: true, Packages: out, NextCursor: nextCursor})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.appendPackageList(nil, pkgs, next); string(got) != string(want) {
				t.Fatalf("base %q round %d:\n got %s\nwant %s", base, round, got, want)
			}
		}
	}
}
