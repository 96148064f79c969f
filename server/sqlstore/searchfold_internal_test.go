package sqlstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pact-registry/pact/internal/storetest"
)

// A query is folded as the index folds text, in Go or by the database
// (docs/design.md, "Search"): what foldQuery answers is what the engine's
// fold answers, for ASCII queries, others, and on PostgreSQL also when the
// database's lower() is taken not to fold ASCII as Go does (a Turkish
// locale), where every query is asked of the database.
func TestSearchFoldsAsTheEngine(t *testing.T) {
	queries := []string{"Widget", "ALICE/Widget-CLI", "a\tB  c", "ÜNÏCØDÉ Straße", "İSTANBUL", "ǅemal", "ΣΟΦΙΑ"}
	opens := map[string]func(t *testing.T) *Store{
		"sqlite":   func(t *testing.T) *Store { return openForTest(t, filepath.Join(t.TempDir(), "pact.db"), Options{}) },
		"postgres": func(t *testing.T) *Store { return openForTest(t, storetest.PostgresURL(t), Options{}) },
	}
	ctx := context.Background()
	for name, open := range opens {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			for _, differs := range []bool{false, true} {
				if differs {
					if name != "postgres" {
						continue
					}
					s.asciiFold.Store(asciiFoldDiffers)
				}
				for _, q := range queries {
					var want string
					if err := s.read.QueryRowContext(ctx, s.q(`SELECT `+s.dialect.fold()+`(CAST(? AS TEXT))`), q).Scan(&want); err != nil {
						t.Fatal(err)
					}
					got, err := s.foldQuery(ctx, q)
					if err != nil {
						t.Fatalf("%s: %q: %v", name, q, err)
					}
					if got != want {
						t.Errorf("%s (ASCII folds differently: %v): %q folded to %q, the engine folds it to %q", name, differs, q, got, want)
					}
				}
				if name == "postgres" && !differs && s.asciiFold.Load() != asciiFoldSame {
					t.Errorf("postgres: lower() was not found to fold ASCII as Go does")
				}
			}
		})
	}
}
