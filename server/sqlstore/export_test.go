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

// MigrateTo applies the migrations of dsn up to and including version
// only, and runs statements on that schema: for tests of what later
// migrations do to data stored before them.
func MigrateTo(ctx context.Context, dsn string, version int64, statements ...string) error {
	opts, err := Options{CacheBytes: -1}.withDefaults()
	if err != nil {
		return err
	}
	var s *Store
	if IsPostgres(dsn) {
		s, err = openPostgres(dsn, opts)
	} else {
		s, err = openSQLite(dsn, opts)
	}
	if err != nil {
		return err
	}
	defer s.Close()
	migrations, err := loadMigrations(s.dialect.name())
	if err != nil {
		return err
	}
	for _, m := range migrations {
		if m.version <= version {
			if err := s.applyMigration(ctx, m); err != nil {
				return err
			}
		}
	}
	for _, statement := range statements {
		if _, err := s.write.ExecContext(ctx, statement); err != nil {
			return err
		}
	}
	return nil
}
