package main

import (
	"context"
	"fmt"
)

// measurePostgresRows measures, on the pactd serving the PostgreSQL
// database, what the SQLite rows measure first: the raw path (its read
// cache kept coherent across replicas by --db-read-cache-ttl), the list's
// first page (no cache of encoded pages on PostgreSQL) and the token
// publish (one transaction per publish).
func (b *bench) measurePostgresRows(ctx context.Context, server *pactd, db *seeded) error {
	hot := db.hotPaths(b.cfg.RawDocs)
	for _, p := range []struct {
		id, path string
		paths    []string
	}{
		{"raw@postgres", fmt.Sprintf("GET /raw/{owner}/{pack}.pact.md (%d docs), PostgreSQL", len(hot)), hot},
		{"list@postgres", "GET /api/packages (page 1), PostgreSQL", []string{"/api/packages"}},
	} {
		r, kb, err := b.get(ctx, server.URL, p.id, p.paths, server)
		if err != nil {
			return err
		}
		b.rep.add(rowOf(p.id, p.path, "pactd", db.Packages, r, kb))
	}
	maxPosts := int(b.cfg.Duration.Seconds() * float64(b.cfg.MaxPostRate))
	_, err := b.measurePosts(ctx, server, db, "@postgres", ", PostgreSQL", false, maxPosts)
	return err
}
