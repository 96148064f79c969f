package sqlstore

import (
	"math"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
)

// SQLite's suggestions rank by what pg_trgm computes: for pairs of a query
// and a slug, trigramMatch gives PostgreSQL's own strict_word_similarity
// and similarity.
func TestTrigramMatchIsPgTrgms(t *testing.T) {
	s := openForTest(t, storetest.PostgresURL(t), Options{})
	pairs := [][2]string{
		{"bakup", "backup"}, {"bakup", "backup-tools"}, {"bakup", "postgres-backup"}, {"bakup", "bakery"},
		{"bakup", "the-bakers-backup-kit"}, {"postgers", "postgres-backup"}, {"mysql-backp", "mysql-backup"},
		{"kubernets", "kubernetes-deploy"}, {"widget-cly", "widget-cli"}, {"widget-cly", "widget"},
		{"00059", "pack-0000059"}, {"called-0000123", "pack-0000123"}, {"a", "a-b-a-b"}, {"ab-ab", "ab"},
		{"qqqqqqqq", "backup"}, {"x1-y2-z3", "z3-y2-x1-y2"},
	}
	for _, p := range pairs {
		var word, whole float64
		if err := s.read.QueryRow(`SELECT strict_word_similarity($1, $2), similarity($1, $2)`, p[0], p[1]).Scan(&word, &whole); err != nil {
			t.Fatal(err)
		}
		gotWord, gotWhole := newTrigramMatch(p[0]).similarity(p[1])
		// pg_trgm computes in single precision.
		if math.Abs(gotWord-word) > 1e-6 || math.Abs(gotWhole-whole) > 1e-6 {
			t.Errorf("%q ~ %q: %.6f, %.6f; pg_trgm says %.6f, %.6f", p[0], p[1], gotWord, gotWhole, word, whole)
		}
	}
}

// BenchmarkTrigramMatchWorstSlug: the costliest candidate SQLite's
// suggestions rank, a slug of the most words a slug holds (one letter
// each, 64 characters at most), against a long query: one similarity
// costs about 15 µs here, so the 500 candidates of one suggestion at most
// 7.5 ms of CPU (a slug of real words, 250 ns).
func BenchmarkTrigramMatchWorstSlug(b *testing.B) {
	var words []string
	for i := range 32 {
		words = append(words, string(rune('a'+i%26)))
	}
	slug := strings.Join(words, "-")[:63]
	m := newTrigramMatch(strings.TrimSuffix(strings.Repeat("ab-cd-", 40), "-"))
	for b.Loop() {
		m.similarity(slug)
	}
}
