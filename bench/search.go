package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make and drop the bench's database
)

// searchQueries is how many distinct searches the search path cycles
// through: more than the server's first-page cache holds (256), so every
// search reaches the store.
const searchQueries = 1200

// searchPaths are GET /api/packages?q=... over the seeded database, a mix
// of what people type: an exact slug, owner/slug, a slug prefix, a word
// with a number, a common word (every package), a word no package has, an
// owner's name, a two-letter prefix and a bare number. Spread over the
// database like the raw path's documents.
func searchPaths(n int) []string {
	owners := max(1, (n+packagesPerOwner-1)/packagesPerOwner)
	kinds := []func(i int) string{
		func(i int) string { return packName(i) },
		func(i int) string { return ownerName(i%owners) + "/" + packName(i) },
		func(i int) string { return packName(i)[:len(packName(i))-2] },
		func(i int) string { return fmt.Sprintf("called %07d", i) },
		func(i int) string { return []string{"benchmark", "pack made", "Called"}[i%3] },
		func(i int) string { return []string{"zeppelin", "quartz", "no such pack"}[i%3] },
		func(i int) string { return ownerName(i % owners) },
		func(i int) string { return []string{"pa", "ow", "p"}[i%3] },
		func(i int) string { return fmt.Sprintf("%07d", i)[2:] },
	}
	paths := make([]string, searchQueries)
	for j := range paths {
		i := j * n / searchQueries
		paths[j] = "/api/packages?q=" + url.QueryEscape(kinds[j%len(kinds)](i))
	}
	return paths
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// postgresDatabase makes a fresh database on the server of serverURL for
// one run and returns its URL and a function that drops it.
func postgresDatabase(ctx context.Context, serverURL string) (string, func() error, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", nil, fmt.Errorf("-postgres: %w", err)
	}
	admin, err := sql.Open("pgx", serverURL)
	if err != nil {
		return "", nil, err
	}
	name := fmt.Sprintf("pact_bench_%d", os.Getpid())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("creating the bench database on %s: %w", u.Host, err)
	}
	u.Path = "/" + name
	drop := func() error {
		defer admin.Close()
		_, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	return u.String(), drop, nil
}

// measureSearchOnPostgres seeds a PostgreSQL database as the SQLite one
// and measures the search path on it.
func (b *bench) measureSearchOnPostgres(ctx context.Context) error {
	dsn, drop, err := postgresDatabase(ctx, b.cfg.Postgres)
	if err != nil {
		return err
	}
	if b.cfg.Keep {
		b.progress("PostgreSQL database kept: %s", dsn)
	} else {
		defer func() {
			if err := drop(); err != nil {
				b.progress("dropping the bench database: %v", err)
			}
		}()
	}
	db, err := b.seed(ctx, dsn, b.cfg.Packages)
	if err != nil {
		return err
	}
	// As after any bulk load: statistics (which the planner needs to tell
	// a common word from a rare one) now, not when autovacuum comes round.
	if err := analyze(ctx, dsn); err != nil {
		return fmt.Errorf("VACUUM ANALYZE: %w", err)
	}
	server, err := startPactd(ctx, b.bin, db.Path, filepath.Join(b.work, "pactd-postgres.log"), false)
	if err != nil {
		return err
	}
	defer server.stop()
	if _, err := b.measureSearch(ctx, "search@postgres", searchPath+", PostgreSQL", db, server); err != nil {
		return err
	}
	return b.measurePostgresRows(ctx, server, db)
}

// measureSearch measures the search path on server with -search-conns Go
// clients, whose percentiles are of the answers' own latencies, then with
// wrk on the same searches for the same time, whose p99 (with wrk's
// correction for coordinated omission) the row notes.
func (b *bench) measureSearch(ctx context.Context, id, path string, db *seeded, server *pactd) (int64, error) {
	paths, conns := searchPaths(db.Packages), b.cfg.SearchConns
	b.progress("%s: GET %s%s: %s, %d Go clients, then wrk", id, server.URL, paths[0], b.cfg.Duration, conns)
	if !b.cfg.Short {
		if err := warmUp(ctx, server.URL, paths, conns); err != nil {
			return 0, err
		}
	}
	server.resetPeakRSS()
	prof := b.startProfile(server, id, b.cfg.Duration)
	cpu0 := processCPU(server.cmd.Process.Pid)
	r := runGets(ctx, server.URL, paths, conns, b.cfg.Duration)
	r.CPU = processCPU(server.cmd.Process.Pid) - cpu0
	if err := b.waitProfile(prof); err != nil {
		return 0, err
	}
	kb := server.peakRSS()
	row := b.rep.add(rowOf(id, path, "pactd", db.Packages, r, kb))
	row.Notes = append(row.Notes, fmt.Sprintf("%d Go clients; p50 and p99 are of the answers' own latencies", conns))
	w, err := runWrk(ctx, b.work, server.URL, paths, conns, b.cfg.WrkThreads, b.cfg.Duration)
	if err != nil {
		return 0, err
	}
	row.Errors += w.Errors
	row.Notes = append(row.Notes, fmt.Sprintf("wrk -c%d on the same searches: %.0f/s, p50 %s, p99 %s (wrk's percentiles add samples for coordinated omission)",
		conns, w.rate(), fmtMS(ms(w.P50)), fmtMS(ms(w.P99))))
	row.Notes = append(row.Notes, w.FirstErrors...)
	return kb, nil
}

var searchPath = fmt.Sprintf("GET /api/packages?q=… (%d searches)", searchQueries)

// postgresSize is the size of the database at dsn in bytes (0 when it
// cannot be read).
func postgresSize(ctx context.Context, dsn string) int64 {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return 0
	}
	defer db.Close()
	var size int64
	_ = db.QueryRowContext(ctx, "SELECT pg_database_size(current_database())").Scan(&size)
	return size
}

func analyze(ctx context.Context, dsn string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "VACUUM ANALYZE")
	return err
}
