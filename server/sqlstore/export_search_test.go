package sqlstore

import (
	"context"
)

// SearchIndex counts the packages in the search index and says whether its
// triggers are on, for tests.
func SearchIndex(ctx context.Context, s *Store) (rows int64, triggersOn bool, err error) {
	query := "SELECT count(*) FROM package_texts"
	if s.dialect.name() == "postgres" {
		query = "SELECT count(*) FROM package_search"
	}
	if err := s.read.QueryRowContext(ctx, query).Scan(&rows); err != nil {
		return 0, false, err
	}
	if s.dialect.name() == "postgres" {
		return rows, true, nil // SET LOCAL ends with its transaction
	}
	var deferred int
	err = s.read.QueryRowContext(ctx, "SELECT deferred FROM search_index_state").Scan(&deferred)
	return rows, deferred == 0, err
}

// WrongSearchTexts counts the packages whose entry in the search index is
// missing or differs from what their owner, slug, name and description
// make (PostgreSQL, where the index's rows can be read back), and the
// entries of packages that are gone; on SQLite, whose FTS5 tables are
// contentless, the packages without an entry and the entries without a
// package.
func WrongSearchTexts(ctx context.Context, s *Store) (int64, error) {
	query := `SELECT
  (SELECT count(*) FROM packages p WHERE NOT EXISTS (SELECT 1 FROM package_texts t WHERE t.rowid = -p.id))
+ (SELECT count(*) FROM package_texts t WHERE NOT EXISTS (SELECT 1 FROM packages p WHERE p.id = -t.rowid))
+ (SELECT count(*) FROM packages p WHERE NOT EXISTS (SELECT 1 FROM package_names t WHERE t.rowid = -p.id))
+ (SELECT count(*) FROM packages p WHERE NOT EXISTS (SELECT 1 FROM package_slugs t WHERE t.rowid = -p.id))`
	if s.dialect.name() == "postgres" {
		query = `SELECT
  (SELECT count(*) FROM packages p JOIN accounts a ON a.id = p.owner_id
   LEFT JOIN package_search t ON t.package_id = p.id
   WHERE t.texts IS DISTINCT FROM setweight(package_search_vector(a.username), 'B')
         || setweight(package_search_vector(p.pack_slug || ' ' || p.name), 'A')
         || setweight(package_search_vector(p.description), 'C'))
+ (SELECT count(*) FROM package_search t WHERE NOT EXISTS (SELECT 1 FROM packages p WHERE p.id = t.package_id))`
	}
	var wrong int64
	err := s.read.QueryRowContext(ctx, query).Scan(&wrong)
	return wrong, err
}
