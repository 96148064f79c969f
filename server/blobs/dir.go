// Package blobs holds the engines of registry.BlobStore: a directory on
// local disk (file://) and S3-compatible object storage (s3://), opened by
// the URL pactd serve --blobs gives.
package blobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pact-registry/pact/server/registry"
)

// Dir keeps each blob in a file of its own, dir/ab/cd/abcd…, two levels of
// fan-out so that no directory holds more than a few thousand names at a
// million blobs. A blob is written to a temporary file in dir/tmp, synced,
// renamed into place and its directory synced: a crash leaves the whole
// blob or none of it under its name.
type Dir struct {
	root string
}

// OpenDir opens (making it when missing) the directory engine at root.
func OpenDir(root string) (*Dir, error) {
	if root == "" {
		return nil, errors.New("the blob directory is empty")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(abs, "tmp"), 0o750); err != nil {
		return nil, fmt.Errorf("blob directory: %w", err)
	}
	return &Dir{root: abs}, nil
}

// Root is the directory's absolute path.
func (d *Dir) Root() string { return d.root }

// Path is where blob name lives.
func (d *Dir) Path(name string) string {
	return filepath.Join(d.root, name[0:2], name[2:4], name)
}

func checkName(name string) error {
	if !registry.IsBlobName(name) {
		return fmt.Errorf("%q is not a blob name (a sha256 in lower-case hex)", name)
	}
	return nil
}

// Put writes content under name: temporary file, fsync, rename, fsync of
// the directory. A blob that exists is written again: that repairs one
// damaged since, and renews its time, which pactd blobs gc reads as its
// age (an unreferenced blob that a publish names again is young again).
func (d *Dir) Put(ctx context.Context, name string, content []byte) error {
	return d.put(name, content, true)
}

// PutUnsynced writes content under name as Put does, but syncs neither the
// file nor its directory: the blob is durable only once SyncPuts returns.
// pactd blobs migrate puts a batch so, syncs once, and only then frees the
// rows; a crash before the sync loses blobs whose rows still hold their
// bytes, which the next run puts again. Where the file system cannot be
// synced at once (not Linux), it is Put.
func (d *Dir) PutUnsynced(ctx context.Context, name string, content []byte) error {
	return d.put(name, content, !canSyncFS)
}

// SyncPuts makes every blob written before it durable: syncfs(2) of the
// file system that holds the directory, which writes out every file's data
// and every directory's entries there, in one call.
func (d *Dir) SyncPuts(ctx context.Context) error {
	if !canSyncFS {
		return nil
	}
	return syncFS(d.root)
}

func (d *Dir) put(name string, content []byte, sync bool) error {
	if err := checkName(name); err != nil {
		return err
	}
	path := d.Path(name)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return full(err)
	}
	tmp, err := os.CreateTemp(filepath.Join(d.root, "tmp"), name+".*")
	if err != nil {
		return full(err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; else a leftover
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return full(err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return full(err)
		}
	}
	if err := tmp.Close(); err != nil {
		return full(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	return syncDir(dir)
}

// full marks a write that failed for want of room (ENOSPC, or EDQUOT
// over a quota) as registry.ErrBlobStoreFull.
func full(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return errors.Join(registry.ErrBlobStoreFull, err)
	}
	return err
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Open answers the blob's *os.File.
func (d *Dir) Open(ctx context.Context, name string) (io.ReadSeekCloser, int64, error) {
	if err := checkName(name); err != nil {
		return nil, 0, err
	}
	f, err := os.Open(d.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, registry.ErrBlobNotFound
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// Delete removes blob name.
func (d *Dir) Delete(ctx context.Context, name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := os.Remove(d.Path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// List walks the fan-out directories; files whose names are not blob
// names (the tmp directory's, an operator's) are passed over.
func (d *Dir) List(ctx context.Context, fn func(registry.BlobInfo) error) error {
	return filepath.WalkDir(d.root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != d.root && strings.HasPrefix(path, filepath.Join(d.root, "tmp")) {
				return filepath.SkipDir
			}
			return ctx.Err()
		}
		name := e.Name()
		if !registry.IsBlobName(name) || path != d.Path(name) {
			return nil
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // deleted meanwhile
		}
		if err != nil {
			return err
		}
		return fn(registry.BlobInfo{Name: name, Size: fi.Size(), ModTime: fi.ModTime()})
	})
}

// RemoveLeftovers removes the temporary files older than before: what a
// crash in the middle of a Put leaves in dir/tmp (pactd blobs gc).
func (d *Dir) RemoveLeftovers(ctx context.Context, before time.Time) (int64, error) {
	entries, err := os.ReadDir(filepath.Join(d.root, "tmp"))
	if err != nil {
		return 0, err
	}
	var n int64
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		fi, err := e.Info()
		if err != nil || fi.IsDir() || !fi.ModTime().Before(before) {
			continue
		}
		if err := os.Remove(filepath.Join(d.root, "tmp", e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}

// Open opens the blob store rawURL names: file:///path (a directory on
// local disk) or s3://bucket/prefix?endpoint=…&region=… (S3-compatible
// object storage, signed with creds).
func Open(ctx context.Context, rawURL string, creds Credentials) (registry.BlobStore, error) {
	if err := CheckURL(rawURL); err != nil {
		return nil, err
	}
	if strings.HasPrefix(rawURL, "s3://") {
		return OpenS3(ctx, rawURL, creds)
	}
	return OpenDir(strings.TrimPrefix(rawURL, "file://"))
}

// CheckURL says what is wrong with rawURL as a blob store's, without
// opening it.
func CheckURL(rawURL string) error {
	switch {
	case strings.HasPrefix(rawURL, "file://"):
		if !strings.HasPrefix(strings.TrimPrefix(rawURL, "file://"), "/") {
			return errors.New("a file URL names an absolute path: file:///var/lib/pact/blobs")
		}
		return nil
	case strings.HasPrefix(rawURL, "s3://"):
		_, err := parseS3URL(rawURL)
		return err
	}
	return errors.New("give file:///absolute/path or s3://bucket/prefix?endpoint=https://host:port&region=r")
}

// Key is blob name's path under the directory, ab/cd/name: what a web
// server with the directory as its root serves it at.
func (d *Dir) Key(name string) string { return name[0:2] + "/" + name[2:4] + "/" + name }
