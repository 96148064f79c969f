package sqlstore

import (
	"math"
	"slices"
	"testing"
)

// The trigrams a walk checks: the rarest of each other word, then the next
// rarest; on PostgreSQL (widest below every package) not those estimated
// in nearly every package, whose look-up per posting nearly every posting
// passes.
func TestPickChecksLeavesOutWideTrigrams(t *testing.T) {
	const total = 1e6
	plan := &searchPlan{words: []string{"owner-0000"}}
	grams := []string{"000", "-00", "own", "wne", "ner"} // rarest first
	estimate := []float64{15e3, 2e5, total, total, total}
	if got, want := plan.pickChecks(grams, estimate, total, 2, math.Inf(1)), []string{"000", "-00", "own"}; !slices.Equal(got, want) {
		t.Errorf("every trigram allowed: %q, want %q", got, want)
	}
	if got, want := plan.pickChecks(grams, estimate, total, 2, total*checkWidest), []string{"000", "-00"}; !slices.Equal(got, want) {
		t.Errorf("wide trigrams left out: %q, want %q", got, want)
	}
	// Two words: the other word's rarest trigram is checked first, unless
	// that word is in most packages.
	plan = &searchPlan{words: []string{"xze", "alpha"}}
	grams = []string{"xze", "alp", "lph", "pha"}
	estimate = []float64{300, 1e5, 2e5, 9e5}
	if got, want := plan.pickChecks(grams, estimate, total, 2, total*checkWidest), []string{"xze", "alp", "lph"}; !slices.Equal(got, want) {
		t.Errorf("two words: %q, want %q", got, want)
	}
	estimate = []float64{300, 6e5, 7e5, 9e5}
	if got, want := plan.pickChecks(grams, estimate, total, 2, total*checkWidest), []string{"xze", "alp", "lph"}; !slices.Equal(got, want) {
		t.Errorf("two words, the other in most packages: %q, want %q", got, want)
	}
	estimate = []float64{300, 8e5, 8e5, 9e5}
	if got, want := plan.pickChecks(grams, estimate, total, 2, total*checkWidest), []string{"xze"}; !slices.Equal(got, want) {
		t.Errorf("two words, the other in nearly every package: %q, want %q", got, want)
	}
}
