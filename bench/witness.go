package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pact-registry/pact/internal/witnesstest"
	"github.com/pact-registry/pact/pkg/wire"
)

// measureWitnessedPosts measures the publish rows again with two real
// witnesses (litewitness) that pactd pushes every checkpoint to, quorum
// both, and notes how long after the load the last publish was covered by
// a witnessed checkpoint. server is stopped and the witnessed pactd on the
// same database returned. Without litewitness the rows are left out,
// saying so.
func (b *bench) measureWitnessedPosts(ctx context.Context, server *pactd, db *seeded, maxPosts int) (*pactd, error) {
	litewitness := findGoTool("litewitness")
	if litewitness == "" {
		b.progress("litewitness is not installed (%s): no rows with witnesses", witnesstest.Install)
		return server, nil
	}
	vkey, err := getText(ctx, server.URL+"/log/key")
	if err != nil {
		return nil, err
	}
	origin, _, _ := strings.Cut(vkey, "+")
	if err := server.stop(); err != nil {
		return nil, fmt.Errorf("stopping pactd: %w", err)
	}
	dir := filepath.Join(b.work, "witnesses")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	sock, stopAgent, err := witnesstest.StartAgent()
	if err != nil {
		return nil, err
	}
	var ws []*witnesstest.Witness
	b.cleanups = append(b.cleanups, func() {
		for _, w := range ws {
			w.Stop()
		}
		stopAgent()
	})
	for _, name := range []string{"w1", "w2"} {
		w, err := witnesstest.New(litewitness, dir, name, sock, origin, vkey)
		if err != nil {
			return nil, err
		}
		if err := w.Start(); err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	policy := filepath.Join(dir, "policy.txt")
	if err := os.WriteFile(policy, []byte(witnesstest.Policy(vkey, ws)), 0o644); err != nil {
		return nil, err
	}
	witnessed, err := startPactd(ctx, b.bin, db.Path, filepath.Join(b.work, "pactd.log"), b.cfg.PprofDir != "", "--witness-policy", policy)
	if err != nil {
		return nil, err
	}
	// The whole log so far is cosigned before the load, so the rows
	// measure publishing while every new checkpoint is pushed.
	if _, err := waitWitnessed(ctx, witnessed.URL, 2*time.Minute); err != nil {
		return witnessed, err
	}
	if _, err := b.measurePosts(ctx, witnessed, db, "-witnessed", ", two witnesses", true, maxPosts); err != nil {
		return witnessed, err
	}
	took, err := waitWitnessed(ctx, witnessed.URL, time.Minute)
	if err != nil {
		return witnessed, err
	}
	note := fmt.Sprintf("two litewitness processes, quorum both; the last publish was covered by a witnessed checkpoint %s after the load ended", took.Round(time.Millisecond))
	for _, id := range []string{"publish-witnessed", "publish-signed-witnessed"} {
		if r := b.rep.row(id); r != nil {
			r.Notes = append(r.Notes, note)
		}
	}
	return witnessed, nil
}

// waitWitnessed polls /readyz until the served checkpoint is the newest
// one (witnessed_size = checkpoint_size) and answers how long that took.
func waitWitnessed(ctx context.Context, base string, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	var last wire.LogWitnesses
	for time.Since(start) < limit {
		text, err := getText(ctx, base+"/readyz")
		if err != nil {
			return 0, err
		}
		var ready wire.Ready
		if err := json.Unmarshal([]byte(text), &ready); err != nil {
			return 0, fmt.Errorf("/readyz: %w", err)
		}
		if ready.LogWitnesses == nil {
			return 0, fmt.Errorf("/readyz says nothing of witnesses: %s", text)
		}
		last = *ready.LogWitnesses
		if last.WitnessedSize == last.CheckpointSize {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("the log's checkpoint of %d entries was not witnessed within %s (witnessed: %d)", last.CheckpointSize, limit, last.WitnessedSize)
}

// getText GETs url and answers its body; any status but 200 is an error.
func getText(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return strings.TrimSpace(string(body)), nil
}

// findGoTool answers the path of a program `go install` put in
// $(go env GOPATH)/bin, or found on PATH; "" when neither.
func findGoTool(name string) string {
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			if p := filepath.Join(dir, "bin", name); fileExists(p) {
				return p
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
