package main_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// bigReleases is how many releases of alice/big the bounded-list test
// registers: more than a page of the largest limit.
const bigReleases = 120

// bigRelease is a release as large as POST /api/releases takes: 1,000
// artifacts and two URLs of 2,048 bytes of '<', which JSON escapes
// six-fold.
func bigRelease(version string) map[string]any {
	long := "https://example.com/" + strings.Repeat("<", 2048-len("https://example.com/"))
	artifacts := make([]map[string]any, 1000)
	for i := range artifacts {
		artifacts[i] = map[string]any{"name": fmt.Sprintf("widget-%s-part-%04d.tar.gz", version, i),
			"url": fmt.Sprintf("https://example.com/dl/%s/widget-part-%04d.tar.gz", version, i), "size": 123456 + i,
			"sha256": strings.Repeat("ab", 32)}
	}
	return map[string]any{"contract_id": "alice/big", "version": version, "artifact_index_url": long, "contract_url": long,
		"artifacts": artifacts}
}

// TestReleaseListsStayBounded lists the releases of a pack with many of the
// largest releases, anonymously, through a real pactd: every page is at
// most 1 MB (a list counts artifacts, it does not carry them, and a page
// ends early rather than pass its bound), the pages hold every release
// once, and 8 clients reading the largest page at once leave pactd's memory
// bounded. It once answered 25.5 MB for ?limit=100, and 8 such requests at
// once took pactd from 100 to 310 MB.
func TestReleaseListsStayBounded(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dsn := filepath.Join(t.TempDir(), "pact.db")
			if backend == "postgres" {
				dsn = storetest.PostgresURL(t)
			}
			srv, token := startWithToken(t, "alice", dsn)
			var wg sync.WaitGroup
			failures := make(chan string, bigReleases)
			for w := range 4 {
				wg.Go(func() {
					for i := w; i < bigReleases; i += 4 {
						version := fmt.Sprintf("1.0.%d", i)
						if got := publish(t, srv.URL, token, packDocument("big", version, "A big one.")); got.status != http.StatusOK {
							failures <- fmt.Sprintf("publish %s: %s", version, got)
							return
						}
						if got := call(t, httpClient, http.MethodPost, srv.URL+"/api/releases", token, bigRelease(version)); got.status != http.StatusOK {
							failures <- fmt.Sprintf("release %s: %.300s", version, got)
							return
						}
					}
				})
			}
			wg.Wait()
			close(failures)
			for f := range failures {
				t.Fatal(f)
			}

			// Every page, with the largest limit, by the one-segment
			// contract_id of the report.
			first := srv.URL + "/api/contracts/alice%2Fbig/releases?limit=100"
			seen := map[string]bool{}
			largest, pages := 0, 0
			for next := first; next != ""; pages++ {
				got := get(t, next, "")
				wantAnswer(t, "a page of releases", got, http.StatusOK)
				largest = max(largest, len(got.body))
				var page struct {
					Releases []struct {
						Version       string           `json:"version"`
						ArtifactCount int              `json:"artifact_count"`
						Artifacts     []map[string]any `json:"artifacts"`
						URL           string           `json:"url"`
					} `json:"releases"`
					NextCursor *string `json:"next_cursor"`
				}
				if err := json.Unmarshal(got.body, &page); err != nil {
					t.Fatal(err)
				}
				if len(got.body) > 1_000_000 {
					t.Errorf("page %d is %d bytes, over 1 MB", pages, len(got.body))
				}
				for _, r := range page.Releases {
					if seen[r.Version] || r.ArtifactCount != 1000 || r.Artifacts != nil || !strings.HasSuffix(r.URL, "/releases/"+r.Version) {
						t.Fatalf("page %d lists %s (seen before: %v) with %d artifacts counted, %d listed, url %s", pages, r.Version,
							seen[r.Version], r.ArtifactCount, len(r.Artifacts), r.URL)
					}
					seen[r.Version] = true
				}
				next = ""
				if page.NextCursor != nil {
					next = first + "&cursor=" + url.QueryEscape(*page.NextCursor)
				}
			}
			if len(seen) != bigReleases {
				t.Fatalf("the pages listed %d releases, want %d", len(seen), bigReleases)
			}
			t.Logf("%d releases in %d pages, the largest %d bytes", len(seen), pages, largest)
			one := get(t, srv.URL+"/api/contracts/alice/big/releases/1.0.7", "")
			wantAnswer(t, "one release", one, http.StatusOK)
			var detail struct {
				Release struct {
					Artifacts []map[string]any `json:"artifacts"`
				} `json:"release"`
			}
			if err := json.Unmarshal(one.body, &detail); err != nil || len(detail.Release.Artifacts) != 1000 {
				t.Errorf("the release of 1.0.7 has %d artifacts (%v), want 1000", len(detail.Release.Artifacts), err)
			}

			// 8 anonymous clients at once, reading the first page again and
			// again.
			srv.ResetPeakRSS()
			before, cpuBefore, start := srv.RSSMiB(), srv.CPUTime(), time.Now()
			errs := make(chan string, 8)
			for range 8 {
				wg.Go(func() {
					for range 10 {
						resp, err := httpClient.Get(first)
						if err != nil {
							errs <- err.Error()
							return
						}
						var page struct {
							Releases []json.RawMessage `json:"releases"`
						}
						err = json.NewDecoder(resp.Body).Decode(&page)
						resp.Body.Close()
						if resp.StatusCode != http.StatusOK || err != nil || len(page.Releases) == 0 {
							errs <- fmt.Sprintf("%d, %d releases, %v", resp.StatusCode, len(page.Releases), err)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for e := range errs {
				t.Errorf("under load: %s", e)
			}
			peak := srv.PeakRSSMiB()
			t.Logf("80 first pages from 8 clients in %v, %v of CPU; pactd RSS %.0f MiB before, peak %.0f MiB",
				time.Since(start).Round(time.Millisecond), srv.CPUTime()-cpuBefore, before, peak)
			if peak >= 150 {
				t.Errorf("pactd's peak RSS reached %.0f MiB under 8 readers of the release list, want under 150", peak)
			}
		})
	}
}
