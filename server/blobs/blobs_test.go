package blobs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/s3test"
	"github.com/pact-registry/pact/server/blobs"
	"github.com/pact-registry/pact/server/registry"
)

// eachEngine runs fn on a fresh store of every engine: a directory, and a
// bucket of a real S3-compatible server (versitygw).
func eachEngine(t *testing.T, fn func(t *testing.T, store registry.BlobStore)) {
	t.Run("dir", func(t *testing.T) {
		store, err := blobs.Open(context.Background(), "file://"+t.TempDir(), blobs.Credentials{})
		if err != nil {
			t.Fatal(err)
		}
		fn(t, store)
	})
	t.Run("s3", func(t *testing.T) {
		s3 := s3test.Start(t)
		store, err := blobs.Open(context.Background(), s3.Bucket(t), s3.Creds)
		if err != nil {
			t.Fatal(err)
		}
		fn(t, store)
	})
}

func name(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

func read(t *testing.T, store registry.BlobStore, n string) (string, error) {
	t.Helper()
	r, size, err := store.Open(context.Background(), n)
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != size {
		t.Errorf("Open said %d bytes, read %d", size, len(b))
	}
	return string(b), nil
}

// What every engine does: put and open by name, put again harmlessly,
// not found for a name it lacks, list every blob with its size and a
// recent time, delete (twice without error), and refuse what is not a
// blob name.
func TestEngines(t *testing.T) {
	eachEngine(t, func(t *testing.T, store registry.BlobStore) {
		ctx := context.Background()
		docs := []string{"# one\n", "# two\n\nwith more\n", strings.Repeat("x", 300<<10)}
		for _, d := range docs {
			if err := store.Put(ctx, name(d), []byte(d)); err != nil {
				t.Fatal(err)
			}
		}
		if err := store.Put(ctx, name(docs[0]), []byte(docs[0])); err != nil {
			t.Fatalf("putting a blob again: %v", err)
		}
		for _, d := range docs {
			if got, err := read(t, store, name(d)); err != nil || got != d {
				t.Errorf("Open(%s) = %d bytes, %v", name(d)[:8], len(got), err)
			}
		}
		if _, err := read(t, store, name("never put")); !errors.Is(err, registry.ErrBlobNotFound) {
			t.Errorf("Open of a missing blob = %v, want ErrBlobNotFound", err)
		}
		var listed []string
		if err := store.List(ctx, func(b registry.BlobInfo) error {
			listed = append(listed, b.Name)
			if time.Since(b.ModTime) > time.Hour || b.ModTime.After(time.Now().Add(time.Minute)) {
				t.Errorf("%s listed with time %v", b.Name[:8], b.ModTime)
			}
			for _, d := range docs {
				if name(d) == b.Name && int64(len(d)) != b.Size {
					t.Errorf("%s listed with size %d, want %d", b.Name[:8], b.Size, len(d))
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := []string{name(docs[0]), name(docs[1]), name(docs[2])}
		sort.Strings(want)
		sort.Strings(listed)
		if strings.Join(listed, ",") != strings.Join(want, ",") {
			t.Errorf("listed %v, want %v", listed, want)
		}
		for range 2 {
			if err := store.Delete(ctx, name(docs[1])); err != nil {
				t.Fatalf("Delete: %v", err)
			}
		}
		if _, err := read(t, store, name(docs[1])); !errors.Is(err, registry.ErrBlobNotFound) {
			t.Errorf("Open after Delete = %v", err)
		}
		for _, bad := range []string{"", "../../etc/passwd", strings.ToUpper(name("x")), name("x")[:63]} {
			if err := store.Put(ctx, bad, []byte("x")); err == nil {
				t.Errorf("Put(%q) was taken", bad)
			}
			if _, _, err := store.Open(ctx, bad); err == nil || errors.Is(err, registry.ErrBlobNotFound) {
				t.Errorf("Open(%q) = %v, want a refusal of the name", bad, err)
			}
		}
	})
}

// The directory writes through a temporary file: a leftover of a crash
// there is never listed nor opened, and blobs land in two levels of
// fan-out.
func TestDirLayout(t *testing.T) {
	root := t.TempDir()
	d, err := blobs.OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := name("doc")
	if err := d.Put(context.Background(), n, []byte("doc")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, n[:2], n[2:4], n)); err != nil {
		t.Errorf("not at ab/cd/name: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "tmp", name("half")+".123"), []byte("ha"), 0o600); err != nil {
		t.Fatal(err)
	}
	count := 0
	d.List(context.Background(), func(registry.BlobInfo) error { count++; return nil })
	if count != 1 {
		t.Errorf("listed %d blobs, want 1", count)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "tmp"))
	if len(entries) != 1 {
		t.Errorf("tmp holds %d files, want only the leftover", len(entries))
	}
}

// URLs are checked before anything is opened.
func TestCheckURL(t *testing.T) {
	for _, tc := range []struct {
		url, problem string
	}{
		{"file:///var/lib/pact/blobs", ""},
		{"s3://bucket", ""},
		{"s3://bucket/prefix?endpoint=https://s3.example.com&region=eu-west-1", ""},
		{"s3://bucket/p?endpoint=127.0.0.1:9000", ""},
		{"file://relative/path", "absolute path"},
		{"/var/lib/pact", "file:///absolute/path or s3://"},
		{"s3:///prefix", "s3://bucket/prefix"},
		{"s3://bucket/p?endpoint=ftp://host", "not an http(s) address"},
		{"s3://bucket/p?regoin=x", `unknown parameter "regoin"`},
	} {
		err := blobs.CheckURL(tc.url)
		if tc.problem == "" && err != nil || tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)) {
			t.Errorf("CheckURL(%q) = %v, want %q", tc.url, err, tc.problem)
		}
	}
}
