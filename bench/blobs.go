package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
)

// The raw path over a working set ten times the read cache with the
// documents on a blob store (docs/operations.md, Blob store): a copy of
// the seeded database whose documents pactd blobs migrate moved to a
// directory, and another whose documents it moved to a bucket of a real
// S3 server (versitygw, when installed).

// blobCopy is a copy of the seeded database with its documents on a blob
// store, and what pactd needs to reach it.
type blobCopy struct {
	db, blobs string
	env       []string
}

// copyWithBlobs copies db (VACUUM INTO: a consistent copy beside the
// pactd serving it) to name and moves its documents to blobsURL.
func (b *bench) copyWithBlobs(ctx context.Context, db *seeded, name, blobsURL string, env []string) (*blobCopy, error) {
	path := filepath.Join(b.work, name)
	src, err := sql.Open("sqlite3", db.Path)
	if err != nil {
		return nil, err
	}
	_, err = src.ExecContext(ctx, `VACUUM INTO ?`, path)
	src.Close()
	if err != nil {
		return nil, fmt.Errorf("copying the database to %s: %w", path, err)
	}
	b.progress("pactd blobs migrate --db %s --blobs %s", path, blobsURL)
	cmd := exec.CommandContext(ctx, b.bin, "blobs", "migrate", "--db", path, "--blobs", blobsURL)
	cmd.Env = append(pactdtest.CleanEnv(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pactd blobs migrate: %v: %s", err, out)
	}
	return &blobCopy{db: path, blobs: blobsURL, env: env}, nil
}

// versitygw is a private S3 server over a directory.
type versitygw struct {
	endpoint string
	env      []string
	cmd      *exec.Cmd
}

// startVersitygw serves dir's subdirectories as buckets; "" when
// versitygw is not installed.
func startVersitygw(ctx context.Context, dir string) (*versitygw, error) {
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		out, _ := exec.Command("go", "env", "GOPATH").Output()
		bin = filepath.Join(string(out[:max(len(out)-1, 0)]), "bin", "versitygw")
		if _, err := os.Stat(bin); err != nil {
			return nil, nil
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "pact"), 0o755); err != nil {
		return nil, err
	}
	v := &versitygw{endpoint: fmt.Sprintf("http://127.0.0.1:%d", port),
		env: []string{"AWS_ACCESS_KEY_ID=bench", "AWS_SECRET_ACCESS_KEY=bench-secret"}}
	v.cmd = exec.Command(bin, "--port", fmt.Sprintf("127.0.0.1:%d", port), "posix", dir)
	v.cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY=bench", "ROOT_SECRET_KEY=bench-secret")
	log, err := os.Create(filepath.Join(dir, "..", "versitygw.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	v.cmd.Stdout, v.cmd.Stderr = log, log
	if err := v.cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(v.endpoint); err == nil {
			resp.Body.Close()
			return v, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			v.stop()
			return nil, errors.New("versitygw did not answer within 30s")
		}
	}
}

func (v *versitygw) stop() {
	_ = v.cmd.Process.Kill()
	_ = v.cmd.Wait()
}

// blobTargets starts a pactd with the read cache of cache bytes on each
// copy of db with its documents on a blob store: rows raw-cold-files and,
// with versitygw, raw-cold-s3.
func (b *bench) blobTargets(ctx context.Context, db *seeded, cache int64) ([]target, func(), error) {
	var stops []func()
	stop := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	var targets []target
	serve := func(id, server string, c *blobCopy) error {
		p, err := startPactdEnv(ctx, b.bin, c.db, filepath.Join(b.work, "pactd-"+id+".log"), b.cfg.PprofDir != "", c.env,
			"--db-read-cache-bytes", fmt.Sprint(cache), "--blobs", c.blobs)
		if err != nil {
			return err
		}
		stops = append(stops, func() { p.stop() })
		targets = append(targets, target{id, server, p.URL, p})
		return nil
	}
	files, err := b.copyWithBlobs(ctx, db, "files.db", "file://"+filepath.Join(b.work, "files.db.blobs"), nil)
	if err != nil {
		return nil, stop, err
	}
	if err := serve("raw-cold-files", "pactd, documents in files", files); err != nil {
		return nil, stop, err
	}
	s3, err := startVersitygw(ctx, filepath.Join(b.work, "s3"))
	if err != nil {
		return nil, stop, err
	}
	if s3 == nil {
		b.progress("versitygw is not installed (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0): no S3 row")
		return targets, stop, nil
	}
	stops = append(stops, s3.stop)
	onS3, err := b.copyWithBlobs(ctx, db, "s3.db", "s3://pact/docs?endpoint="+s3.endpoint, s3.env)
	if err != nil {
		return nil, stop, err
	}
	if err := serve("raw-cold-s3", "pactd, documents on S3", onS3); err != nil {
		return nil, stop, err
	}
	return targets, stop, nil
}
