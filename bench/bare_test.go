package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/pact-registry/pact/server"
	"github.com/pact-registry/pact/server/registry"
	"github.com/pact-registry/pact/server/sqlstore"
)

// TestMain lets this test binary serve as the bench's bare Go servers,
// which the bench starts by running its own program again.
func TestMain(m *testing.M) {
	if db := os.Getenv(bareListEnv); db != "" {
		if err := serveBareList(db, os.Getenv(bareListBaseEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if db := os.Getenv(bareSQLiteEnv); db != "" {
		if err := serveBareSQLite(db, os.Getenv(bareSQLitePathsEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(bareFilesEnv); dir != "" {
		if err := serveBareFiles(dir); err != nil {
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

// The bare list server answers every page of the list, walked by its
// next_cursor, with the bytes pactd's handler writes for the same page of
// the same database.
func TestBareListServerAnswersAsPactd(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := seedDatabase(ctx, filepath.Join(dir, "list.db"), 2*listPageSize+5, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	const base = "http://pactd.invalid:8080"
	store, err := sqlstore.Open(ctx, s.Path, sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	pactd := httptest.NewServer(server.New(registry.NewService(store, registry.Options{}),
		server.Config{BaseURL: base, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	defer pactd.Close()
	bare, err := startBareList(ctx, s.Path, base)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.stop()

	pages, cursor := 0, ""
	for {
		path := "/api/packages"
		if cursor != "" {
			path += "?cursor=" + cursor
		}
		status, want := getBody(t, pactd.URL+path)
		if status != http.StatusOK {
			t.Fatalf("pactd %s: %d %s", path, status, want)
		}
		if status, got := getBody(t, bare.URL+path); status != http.StatusOK || got != want {
			t.Fatalf("bare %s: %d\n%s\nwant pactd's\n%s", path, status, got, want)
		}
		var page struct {
			Packages   []json.RawMessage `json:"packages"`
			NextCursor *string           `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(want), &page); err != nil {
			t.Fatal(err)
		}
		pages++
		if page.NextCursor == nil {
			if len(page.Packages) != 5 {
				t.Fatalf("the last page holds %d packages, want 5", len(page.Packages))
			}
			break
		}
		cursor = *page.NextCursor
	}
	if pages != 3 {
		t.Fatalf("walked %d pages, want 3", pages)
	}
}

// The bare list server escapes a text as encoding/json does.
func TestAppendBareJSONIsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `a "quoted" \\ path`, "<b>&amp;</b>", "tab\there\nnew\x00\x1f", "ünïcödé ✓", "line\u2028para\u2029end", "\x7f"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendBareJSON(nil, []byte(s)); string(got) != string(want) {
			t.Errorf("appendBareJSON(%q) = %s, want %s", s, got, want)
		}
	}
}
