// Command seeddb seeds a test's database (internal/seedtest): it reads a
// seedtest.Request as JSON on its standard input and writes its accounts
// and packages into the store at -db with sqlstore's Seed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/pact-registry/pact/internal/seedtest"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

func main() {
	dsn := flag.String("db", "", "SQLite file or postgres:// URL")
	flag.Parse()
	var req seedtest.Request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		log.Fatalf("seeddb: reading the request: %v", err)
	}
	if err := seed(context.Background(), *dsn, req); err != nil {
		log.Fatalf("seeddb: %v", err)
	}
}

func seed(ctx context.Context, dsn string, req seedtest.Request) error {
	s, err := sqlstore.Open(ctx, dsn, sqlstore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	ids := map[string]int64{}
	for _, name := range req.Owners {
		a := &registry.Account{Email: name + "@example.com", Username: name, CreatedAt: time.Now()}
		if err := s.CreateAccount(ctx, a); err != nil {
			return fmt.Errorf("account %s: %w", name, err)
		}
		ids[name] = a.ID
	}
	batch := req.Batch
	if batch <= 0 {
		batch = 5000
	}
	for first := 0; first < len(req.Packages); first += batch {
		var ins []registry.PublishInput
		for _, p := range req.Packages[first:min(first+batch, len(req.Packages))] {
			id, ok := ids[p.Owner]
			if !ok {
				return fmt.Errorf("package %s/%s: its owner is not among the request's owners", p.Owner, p.Pack)
			}
			ins = append(ins, registry.PublishInput{OwnerID: id, OwnerSlug: p.Owner, PackSlug: p.Pack, Name: p.Name,
				Description: p.Description, Scheme: p.Scheme, Version: p.Version, Content: p.Content, SHA256: p.SHA256, Now: p.Now})
		}
		if err := s.Seed(ctx, registry.ReadyAll(ins)); err != nil {
			return err
		}
	}
	return nil
}
