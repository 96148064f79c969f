package main_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// downloadTotal reads a package's download counts from base.
func downloadTotal(t *testing.T, base, owner, pack string) (total int64, versions map[string]int64) {
	t.Helper()
	got := get(t, base+"/api/packages/"+owner+"/"+pack+"/downloads", "")
	wantAnswer(t, "downloads of "+owner+"/"+pack, got, http.StatusOK)
	var d struct {
		Total    int64            `json:"total"`
		Versions map[string]int64 `json:"versions"`
		Days     []struct {
			Date  string `json:"date"`
			Count int64  `json:"count"`
		} `json:"days"`
	}
	if err := json.Unmarshal(got.body, &d); err != nil {
		t.Fatalf("downloads answer %s: %v", got, err)
	}
	if len(d.Days) != 90 || d.Days[89].Date != time.Now().UTC().Format(time.DateOnly) && d.Days[89].Date != time.Now().UTC().Add(-time.Minute).Format(time.DateOnly) {
		t.Fatalf("downloads answer: %d days, want 90 ending today: %s", len(d.Days), got)
	}
	var sum int64
	for _, day := range d.Days {
		sum += day.Count
	}
	if sum != d.Total {
		t.Fatalf("the days add up to %d, the total is %d: %s", sum, d.Total, got)
	}
	return d.Total, d.Versions
}

func downloadRaw(t *testing.T, url string, n int) {
	t.Helper()
	for range n {
		wantAnswer(t, "GET "+url, get(t, url, ""), http.StatusOK)
	}
}

// pactd serve adds the downloads it counted to the database when it shuts
// down, however long its flush interval: a restarted server answers them.
func TestServeFlushesDownloadsAtShutdown(t *testing.T) {
	t.Parallel()
	for _, backend := range []struct{ name, dsn string }{
		{"sqlite", storetest.SQLiteDSN(t)}, {"postgres", storetest.PostgresURL(t)},
	} {
		t.Run(backend.name, func(t *testing.T) {
			srv, token := startWithToken(t, "alice", backend.dsn, "--downloads-flush-interval", "1h")
			wantAnswer(t, "publish", publish(t, srv.URL, token, packDocument("kept", "1.0.0", "Counted.")), http.StatusOK)
			downloadRaw(t, srv.URL+"/raw/alice/kept.pact.md", 3)
			downloadRaw(t, srv.URL+"/raw/alice/kept@1.0.0.pact.md", 2)
			if total, _ := downloadTotal(t, srv.URL, "alice", "kept"); total != 0 {
				t.Fatalf("before any flush: %d downloads, want 0 (the interval is an hour)", total)
			}
			if err := srv.Stop(); err != nil {
				t.Fatal(err)
			}
			again := startPactd(t, backend.dsn)
			if total, versions := downloadTotal(t, again.URL, "alice", "kept"); total != 5 || versions["1.0.0"] != 5 {
				t.Fatalf("after a restart: total %d, versions %v; want 5 counted before the shutdown", total, versions)
			}
		})
	}
}

// Two pactd processes on one PostgreSQL database each count the downloads
// they answer and add them to the database every --downloads-flush-interval:
// the counts add up, read from either.
func TestReplicasAddUpDownloads(t *testing.T) {
	t.Parallel()
	dsn := storetest.PostgresURL(t)
	first, token := startWithToken(t, "alice", dsn, "--downloads-flush-interval", "100ms")
	second := startPactd(t, dsn, "--downloads-flush-interval", "100ms")
	wantAnswer(t, "publish", publish(t, first.URL, token, packDocument("shared", "1.0.0", "First.")), http.StatusOK)
	wantAnswer(t, "publish", publish(t, first.URL, token, packDocument("shared", "2.0.0", "Second.")), http.StatusOK)
	for round := range 3 {
		downloadRaw(t, first.URL+"/raw/alice/shared@1.0.0.pact.md", 4)
		downloadRaw(t, second.URL+"/raw/alice/shared@1.0.0.pact.md", 3)
		downloadRaw(t, second.URL+"/raw/alice/shared.pact.md", 2)
		want := int64(9 * (round + 1))
		var total int64
		var versions map[string]int64
		if !within(10*time.Second, func() bool {
			total, versions = downloadTotal(t, second.URL, "alice", "shared")
			return total == want
		}) {
			t.Fatalf("round %d: the replicas' flushes add up to %d (%v), want %d", round, total, versions, want)
		}
		if versions["1.0.0"] != 7*int64(round+1) || versions["2.0.0"] != 2*int64(round+1) {
			t.Fatalf("round %d: versions %v", round, versions)
		}
		if total, _ := downloadTotal(t, first.URL, "alice", "shared"); total != want {
			t.Fatalf("round %d: the first replica reads %d, want %d", round, total, want)
		}
	}
}
