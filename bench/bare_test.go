package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestMain lets this test binary serve as the bench's bare Go servers,
// which the bench starts by running its own program again.
func TestMain(m *testing.M) {
	if db := os.Getenv(bareSQLiteEnv); db != "" {
		if err := serveBareSQLite(db, os.Getenv(bareSQLitePathsEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(bareEnv); dir != "" {
		if err := serveBare(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The bare Go servers answer every seeded raw path with the document pactd
// serves there, from memory and from the database; other paths are 404s.
func TestBareServersServeTheSeededDocuments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := seedDatabase(ctx, filepath.Join(dir, "bare.db"), 30, 1000, 30)
	if err != nil {
		t.Fatal(err)
	}
	www := filepath.Join(dir, "www")
	if err := writeDocs(www, s.Docs); err != nil {
		t.Fatal(err)
	}
	fromFiles, err := startBare(ctx, www)
	if err != nil {
		t.Fatal(err)
	}
	defer fromFiles.stop()
	fromSQLite, err := startBareSQLite(ctx, s.Path, filepath.Join(dir, "paths.txt"), s.RawPaths)
	if err != nil {
		t.Fatal(err)
	}
	defer fromSQLite.stop()
	if len(s.RawPaths) != 30 {
		t.Fatalf("%d raw paths seeded, want 30", len(s.RawPaths))
	}
	for _, server := range []*bareServer{fromFiles, fromSQLite} {
		for _, p := range s.RawPaths {
			status, body := getBody(t, server.URL+p)
			if status != http.StatusOK || body != string(s.Docs[p]) {
				t.Fatalf("%s%s: %d, %d bytes; want 200 and the %d bytes seeded", server.URL, p, status, len(body), len(s.Docs[p]))
			}
		}
		if status, _ := getBody(t, server.URL+"/raw/nobody/nothing.pact.md"); status != http.StatusNotFound {
			t.Errorf("%s: an unknown path answered %d", server.URL, status)
		}
	}
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
