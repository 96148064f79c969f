package sqlstore

import "context"

// AppliedMigrations counts the rows of schema_migrations, for tests.
func AppliedMigrations(ctx context.Context, s *Store) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n)
	return n, err
}

// MigrationFiles counts the embedded migrations of a dialect, for tests.
func MigrationFiles(dialect string) (int, error) {
	m, err := loadMigrations(dialect)
	return len(m), err
}
