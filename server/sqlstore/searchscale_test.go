package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// BenchmarkSearchScale runs the bench's searches (bench/search.go: exact
// slug, owner/slug, prefix, a word with a number, common words, words no
// package has, an owner's name, 1–2 letters, a bare number) in process,
// one at a time, against a store of PACT_SEARCH_SCALE packages (default
// 100,000) at PACT_SEARCH_SCALE_DSN (a SQLite path or a postgres:// URL),
// seeded in the bench's shape when it holds fewer; it reports p50, p99 and
// the slowest per kind. Skipped without PACT_SEARCH_SCALE_DSN: the store
// is kept between runs (seeding 1,000,000 packages takes minutes).
//
//	PACT_SEARCH_SCALE_DSN=/tmp/s1m.db PACT_SEARCH_SCALE=1000000 \
//	  go test -tags nomsgpack,sqlite_fts5 -run '^$' -bench SearchScale -benchtime 1x ./server/sqlstore/
func BenchmarkSearchScale(b *testing.B) {
	dsn := os.Getenv("PACT_SEARCH_SCALE_DSN")
	if dsn == "" {
		b.Skip("PACT_SEARCH_SCALE_DSN is not set")
	}
	n := 100000
	if v := os.Getenv("PACT_SEARCH_SCALE"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, dsn, sqlstore.Options{SQLiteSynchronous: "OFF"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	seedScale(b, s, n)

	kinds := []string{"exact slug", "owner/slug", "prefix", "called N", "common words", "no such word", "owner", "1-2 letters", "bare number"}
	owners := max(1, (n+999)/1000)
	owner := func(i int) string { return fmt.Sprintf("owner-%04d", i) }
	pack := func(i int) string { return fmt.Sprintf("pack-%07d", i) }
	queryOf := []func(i int) string{
		func(i int) string { return pack(i) },
		func(i int) string { return owner(i%owners) + "/" + pack(i) },
		func(i int) string { return pack(i)[:len(pack(i))-2] },
		func(i int) string { return fmt.Sprintf("called %07d", i) },
		func(i int) string { return []string{"benchmark", "pack made", "Called"}[i%3] },
		func(i int) string { return []string{"zeppelin", "quartz", "no such pack"}[i%3] },
		func(i int) string { return owner(i % owners) },
		func(i int) string { return []string{"pa", "ow", "p"}[i%3] },
		func(i int) string { return fmt.Sprintf("%07d", i)[2:] },
	}
	const searches = 1200
	for b.Loop() {
		took := make([][]time.Duration, len(kinds))
		slowest := make([]string, len(kinds))
		var all []time.Duration
		for j := range searches {
			k := j % len(kinds)
			q := queryOf[k](j * n / searches)
			t0 := time.Now()
			found, err := s.ListPackages(ctx, registry.PackageFilter{Limit: 21, Query: q})
			if err != nil {
				b.Fatalf("q=%q: %v", q, err)
			}
			// As GET /api/packages?q= does (registry.Service.Suggestions).
			if len(found) < 3 && (len(found) == 0 || found[0].SearchRank != registry.SearchExact) {
				if _, err := s.SuggestSlugs(ctx, q, 5+len(found)); err != nil {
					b.Fatalf("suggestions for q=%q: %v", q, err)
				}
			}
			d := time.Since(t0)
			if len(took[k]) == 0 || d > slices.Max(took[k]) {
				slowest[k] = q
			}
			took[k] = append(took[k], d)
			all = append(all, d)
		}
		pct := func(d []time.Duration, p float64) time.Duration {
			slices.Sort(d)
			return d[min(len(d)-1, int(float64(len(d))*p/100))]
		}
		for k, kind := range kinds {
			b.Logf("%-13s p50 %8v  p99 %8v  slowest %q", kind,
				pct(took[k], 50).Round(10*time.Microsecond), pct(took[k], 99).Round(10*time.Microsecond), slowest[k])
		}
		b.Logf("all           p50 %8v  p99 %8v", pct(all, 50).Round(10*time.Microsecond), pct(all, 99).Round(10*time.Microsecond))
	}
}

// seedScale fills s with n packages as the bench seeds them (short
// documents: a search reads no document).
func seedScale(b *testing.B, s *sqlstore.Store, n int) {
	ctx := context.Background()
	have, err := s.ListPackages(ctx, registry.PackageFilter{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	if len(have) > 0 {
		return // seeded by an earlier run
	}
	owners := max(1, (n+999)/1000)
	accounts := make([]*registry.Account, owners)
	for i := range accounts {
		a := &registry.Account{Email: fmt.Sprintf("owner-%04d@bench.invalid", i), Username: fmt.Sprintf("owner-%04d", i), CreatedAt: time.Now()}
		if err := s.CreateAccount(ctx, a); err != nil {
			b.Fatal(err)
		}
		accounts[i] = a
	}
	base := time.Now().UTC().Add(-time.Duration(n) * time.Millisecond)
	for first := 0; first < n; first += 5000 {
		var batch []registry.PublishInput
		for i := first; i < min(n, first+5000); i++ {
			name := fmt.Sprintf("pack-%07d", i)
			content := []byte("# " + name + "\n")
			o := accounts[i%owners]
			batch = append(batch, registry.PublishInput{OwnerID: o.ID, OwnerSlug: o.Username, PackSlug: name, Name: name,
				Description: "A pack the benchmark made, called " + name + ".", Scheme: "pact/v1", Version: "1.0.0",
				Content: content, SHA256: sha(content), Now: base.Add(time.Duration(i) * time.Millisecond)})
		}
		if err := s.Seed(ctx, registry.ReadyAll(batch)); err != nil {
			b.Fatal(err)
		}
	}
	// What autovacuum would do in a while, now: PostgreSQL's statistics,
	// which its planner needs to tell a common word from a rare one.
	if strings.HasPrefix(os.Getenv("PACT_SEARCH_SCALE_DSN"), "postgres") {
		db, err := sql.Open("pgx", os.Getenv("PACT_SEARCH_SCALE_DSN"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
}
