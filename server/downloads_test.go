package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/wire"
)

// downloadsOf reads GET /api/packages/{owner}/{pack}/downloads (checked
// against openapi.json by env.API).
func downloadsOf(t *testing.T, env *servertest.Env, owner, pack string) wire.PackageDownloads {
	t.Helper()
	r := env.API.Get("/api/packages/" + owner + "/" + pack + "/downloads")
	wantStatus(t, r.Status, http.StatusOK, r.Body)
	var d wire.PackageDownloads
	if err := json.Unmarshal(r.Body, &d); err != nil {
		t.Fatalf("downloads answer: %v: %s", err, r.Body)
	}
	return d
}

func flushDownloads(t *testing.T, env *servertest.Env) {
	t.Helper()
	if err := env.Service.FlushDownloads(context.Background()); err != nil {
		t.Fatalf("flushing downloads: %v", err)
	}
}

// A download is a raw GET answered 200 with the document, counted against
// the version served (latest, @latest and @version alike) on the UTC day it
// happened; HEAD and 304 are not downloads. The counts show once flushed:
// by version, by day (90 days, today last) and as the package's total in
// the list and the package.
func TestDownloadsCountRawGetsByVersionAndDay(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		for _, v := range []string{"1.0.0", "1.1.0"} {
			r := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("dl-pack", v)}, alice.Bearer())
			wantStatus(t, r.Status, http.StatusOK, r.Body)
		}
		r := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("other-pack", "1.0.0")}, alice.Bearer())
		wantStatus(t, r.Status, http.StatusOK, r.Body)

		before := downloadsOf(t, env, "alice", "dl-pack")
		if before.Total != 0 || len(before.Versions) != 2 || before.Versions["1.0.0"] != 0 || before.Versions["1.1.0"] != 0 || len(before.Days) != 90 {
			t.Fatalf("before any download: %+v", before)
		}

		get := func(path string, headers ...string) *http.Response {
			t.Helper()
			req := mustRequest(t, http.MethodGet, env.URL+path)
			for i := 0; i+1 < len(headers); i += 2 {
				req.Header.Set(headers[i], headers[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}
		for range 3 {
			wantStatus(t, get("/raw/alice/dl-pack.pact.md").StatusCode, 200, nil)
		}
		wantStatus(t, get("/raw/alice/dl-pack@latest.pact.md").StatusCode, 200, nil)
		first := get("/raw/alice/dl-pack@1.0.0.pact.md")
		wantStatus(t, first.StatusCode, 200, nil)
		wantStatus(t, get("/raw/alice/dl-pack@1.0.0.pact.md").StatusCode, 200, nil)
		// Not downloads: HEAD, a conditional GET answered 304, a 404.
		head := env.API.Head("/raw/alice/dl-pack.pact.md")
		wantStatus(t, head.Status, 200, head.Body)
		wantStatus(t, get("/raw/alice/dl-pack@1.0.0.pact.md", "If-None-Match", first.Header.Get("ETag")).StatusCode, http.StatusNotModified, nil)
		wantStatus(t, get("/raw/alice/dl-pack@9.9.9.pact.md").StatusCode, http.StatusNotFound, nil)

		// Counted in memory: nothing shows before the flush.
		if d := downloadsOf(t, env, "alice", "dl-pack"); d.Total != 0 {
			t.Fatalf("before the flush: total %d, want 0", d.Total)
		}
		flushDownloads(t, env)
		today := env.Clock.Now().UTC().Format(time.DateOnly)
		d := downloadsOf(t, env, "alice", "dl-pack")
		if d.Total != 6 || d.Versions["1.1.0"] != 4 || d.Versions["1.0.0"] != 2 || len(d.Versions) != 2 {
			t.Fatalf("after the flush: %+v, want total 6, 1.1.0: 4, 1.0.0: 2", d)
		}
		if len(d.Days) != 90 || d.Days[89].Date != today || d.Days[89].Count != 6 || d.Days[88].Count != 0 {
			t.Fatalf("days: %d of them, last %+v; want 90, today %s last with 6", len(d.Days), d.Days[len(d.Days)-1], today)
		}
		if o := downloadsOf(t, env, "alice", "other-pack"); o.Total != 0 {
			t.Fatalf("other-pack counted %d downloads of dl-pack", o.Total)
		}

		// The next day: a new day, the same totals added to.
		env.Clock.Advance(24 * time.Hour)
		wantStatus(t, get("/raw/alice/dl-pack@1.0.0.pact.md").StatusCode, 200, nil)
		flushDownloads(t, env)
		d = downloadsOf(t, env, "alice", "dl-pack")
		if d.Total != 7 || d.Versions["1.0.0"] != 3 || d.Days[89].Count != 1 || d.Days[88].Count != 6 || d.Days[88].Date != today {
			t.Fatalf("the next day: total %d, versions %v, last two days %+v", d.Total, d.Versions, d.Days[88:])
		}
		// 90 days on, the first day has left the window; the totals stay.
		env.Clock.Advance(89 * 24 * time.Hour)
		d = downloadsOf(t, env, "alice", "dl-pack")
		if d.Total != 7 || d.Days[0].Count != 1 || d.Days[0].Date != env.Clock.Now().UTC().AddDate(0, 0, -89).Format(time.DateOnly) {
			t.Fatalf("90 days on: total %d, first day %+v", d.Total, d.Days[0])
		}

		// The list and the package show the total.
		var list wire.PackageList
		lr := env.API.Get("/api/packages?owner=alice")
		wantStatus(t, lr.Status, 200, lr.Body)
		if err := json.Unmarshal(lr.Body, &list); err != nil {
			t.Fatal(err)
		}
		totals := map[string]int64{}
		for _, p := range list.Packages {
			totals[p.PackSlug] = p.Downloads
		}
		if totals["dl-pack"] != 7 || totals["other-pack"] != 0 {
			t.Fatalf("list totals %v, want dl-pack 7, other-pack 0", totals)
		}
		var detail wire.PackageDetail
		dr := env.API.Get("/api/packages/alice/dl-pack")
		wantStatus(t, dr.Status, 200, dr.Body)
		if err := json.Unmarshal(dr.Body, &detail); err != nil {
			t.Fatal(err)
		}
		if detail.Package.Downloads != 7 {
			t.Fatalf("package downloads %d, want 7", detail.Package.Downloads)
		}

		nf := env.API.Get("/api/packages/alice/missing/downloads")
		wantStatus(t, nf.Status, http.StatusNotFound, nf.Body)
	})
}

// The first page of the list is kept in memory between writes (SQLite); a
// flush is a write, so the totals it adds show at once.
func TestDownloadsFlushRefreshesTheCachedList(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		r := env.API.PostJSON("/api/publish", map[string]any{"content": packDoc("cached-pack", "1.0.0")}, alice.Bearer())
		wantStatus(t, r.Status, http.StatusOK, r.Body)
		total := func() int64 {
			var list wire.PackageList
			lr := env.API.Get("/api/packages")
			wantStatus(t, lr.Status, 200, lr.Body)
			if err := json.Unmarshal(lr.Body, &list); err != nil || len(list.Packages) != 1 {
				t.Fatalf("list: %v: %s", err, lr.Body)
			}
			return list.Packages[0].Downloads
		}
		if n := total(); n != 0 {
			t.Fatalf("before: %d", n)
		}
		raw := env.API.Get("/raw/alice/cached-pack.pact.md")
		wantStatus(t, raw.Status, 200, raw.Body)
		flushDownloads(t, env)
		if n := total(); n != 1 {
			t.Fatalf("after a download and a flush the list says %d, want 1", n)
		}
	})
}
