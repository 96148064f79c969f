package main_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// publishAttempt is one publish a load client sent: answered 200
// (acknowledged), or cut off by the crash or answered 5xx (unknown: it may
// or may not have been stored, but if it was, it must be whole).
type publishAttempt struct {
	pack, version, content string
	acknowledged           bool
}

// kill -9 in the middle of 32 clients publishing: after a restart on the same
// file every acknowledged publish is there byte for byte, every stored version
// is whole (its bytes match its sha256 and what the client sent), and SQLite
// finds the file intact.
func TestKill9UnderPublishLoadLosesNothingAcknowledged(t *testing.T) {
	const (
		clients        = 32
		maxPerClient   = 400 // bounds the load if the kill came late
		killAfterAcked = 400
	)
	db := filepath.Join(t.TempDir(), "pact.db")
	flags := []string{"--max-concurrent-publishes", "64"}
	srv, token := startWithToken(t, "alice", db, flags...)

	user := newAPIUser(srv.URL, token, clients)
	attempts := make([][]publishAttempt, clients)
	var acknowledged atomic.Int64
	enough := make(chan struct{})
	var closeEnough sync.Once
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			pack := fmt.Sprintf("crash-%02d", i)
			for n := range maxPerClient {
				version := fmt.Sprintf("1.0.%d", n)
				padding := 100
				if n%4 == 0 { // every fourth spans several database pages
					padding = 20 << 10
				}
				a := publishAttempt{pack: pack, version: version, content: packDoc(pack, version, padding)}
				status, body, err := user.publish(a.content)
				a.acknowledged = err == nil && status == http.StatusOK
				attempts[i] = append(attempts[i], a)
				if err != nil { // pactd is gone
					return
				}
				if status >= 400 && status < 500 {
					t.Errorf("%s@%s before the crash: %d %s", pack, version, status, body)
					return
				}
				// A 5xx (the database too slow on a loaded machine) is
				// not acknowledged; the checks below treat it as unknown.
				if a.acknowledged && acknowledged.Add(1) >= killAfterAcked {
					closeEnough.Do(func() { close(enough) })
				}
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(20 * time.Second):
		t.Logf("only %d publishes acknowledged after 20s; killing anyway", acknowledged.Load())
	}
	if err := srv.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := srv.Wait(10 * time.Second); err != nil && strings.Contains(err.Error(), "still running") {
		t.Fatal(err)
	}
	wg.Wait()
	if acknowledged.Load() == 0 {
		t.Fatalf("no publish was acknowledged before the kill:\n%s", srv.Logs())
	}

	srv = startPactd(t, db, flags...)
	user = newAPIUser(srv.URL, token, 1)
	lost, unknownStored, unknownAbsent := 0, 0, 0
	for _, sent := range attempts {
		if len(sent) == 0 {
			continue
		}
		pack := sent[0].pack
		byVersion := map[string]publishAttempt{}
		for _, a := range sent {
			byVersion[a.version] = a
		}
		listed := user.versions(t, "alice", pack)
		present := map[string]bool{}
		for _, v := range listed {
			present[v.Version] = true
			a, ok := byVersion[v.Version]
			if !ok {
				t.Errorf("%s@%s is listed but was never sent", pack, v.Version)
				continue
			}
			user.checkDocument(t, "alice", pack, v.Version, a.content, v.SHA256)
			if !a.acknowledged {
				unknownStored++
			}
		}
		for _, a := range sent {
			switch {
			case a.acknowledged && !present[a.version]:
				lost++
				t.Errorf("%s@%s was answered 200 before the crash but is gone", pack, a.version)
			case !a.acknowledged && !present[a.version]:
				unknownAbsent++
			}
		}
		if len(listed) > 0 { // the latest document is the newest listed version, whole
			status, _, body, err := user.get("/raw/alice/" + pack + ".pact.md")
			if err != nil || status != http.StatusOK || string(body) != byVersion[listed[0].Version].content {
				t.Errorf("latest %s: status %d, error %v, not the bytes of %s", pack, status, err, listed[0].Version)
			}
		}
	}
	t.Logf("%d acknowledged, %d lost; of the publishes cut off by the kill, %d were stored whole and %d not at all",
		acknowledged.Load(), lost, unknownStored, unknownAbsent)

	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := integrityCheck(t, db); got != "ok" {
		t.Errorf("PRAGMA integrity_check after kill -9 and restart: %s", got)
	}
	// The documents were on the blob directory beside the database (a
	// new registry's default), each put before its row committed: the
	// kill left at most blobs that no row names, which gc removes (with
	// no grace period here), and every stored document is still read
	// back whole from its blob by the log check.
	if n := rowsHolding(t, db); n != 0 {
		t.Errorf("%d rows hold their document, want none on a new registry", n)
	}
	r := pactd(t, nil, "", "blobs", "gc", "--db", db, "--grace", "1ns")
	if r.code != 0 {
		t.Fatalf("blobs gc after the kill: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("after the kill, %s", strings.TrimSpace(r.stdout))
	if r := pactd(t, nil, "", "log", "check", "--db", db); r.code != 0 {
		t.Errorf("log check after the kill and gc: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
