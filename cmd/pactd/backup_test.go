package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/storetest"
)

// Documents whose bytes a careless backup would change. Each is a valid
// pack document that pactd accepts.
var awkwardDocuments = []string{
	"\ufeff# Byte-order mark and CRLF\r\n\r\n```yaml pact:pack\r\nname: awkward\r\nversion: 1.0.0\r\n```\r\n",
	"# Tabs\tand trailing spaces   \n\n```yaml pact:pack\nname: awkward\nversion: 1.1.0\n```\n\n\n\n",
	"# No newline at the end\n\n```yaml pact:pack\nname: awkward\nversion: 1.2.0\n```",
	"# Control bytes \x01\x07\x1b[0m and \u00a0 \u200b \u2028 \U0001F41A\n\n```yaml pact:pack\nname: awkward\nversion: 1.3.0\ndescription: \"<b>&amp;</b> \\\" \\\\\"\n```\n",
	"# Lone CR\rline\r\n\n```yaml pact:pack\nname: awkward\nversion: 1.4.0\n```\n",
}

// TestDumpRestoreAcrossBackends moves a registry from SQLite to PostgreSQL
// and back to SQLite with the real pactd dump and pactd restore, and checks
// that the three servers answer every read byte for byte the same.
func TestDumpRestoreAcrossBackends(t *testing.T) {
	t.Parallel()
	pg := storetest.PostgresURL(t)
	dir := t.TempDir()
	original, final := filepath.Join(dir, "original.db"), filepath.Join(dir, "final.db")
	source := startPactd(t, original)
	tokens := map[string]string{}
	for _, user := range []string{"alice", "bob"} {
		token, err := source.CreateUserWithToken(user)
		if err != nil {
			t.Fatal(err)
		}
		tokens[user] = token
	}
	for _, doc := range awkwardDocuments {
		wantAnswer(t, fmt.Sprintf("publish %.40q", doc), publish(t, source.URL, tokens["alice"], doc), http.StatusOK)
	}
	wantAnswer(t, "publish", publish(t, source.URL, tokens["alice"], packDocument("plain", "2.0.0", "Newer first.")), http.StatusOK)
	wantAnswer(t, "publish", publish(t, source.URL, tokens["alice"], packDocument("plain", "1.9.0", "An older version, later.")), http.StatusOK)
	kept := registerKey(t, source.URL, tokens["bob"], "kept")
	deleted := registerKey(t, source.URL, tokens["bob"], "deleted")
	for i, key := range []*sshIdentity{kept, deleted} {
		body := key.signedPublish(t, packDocument("signed", fmt.Sprintf("0.%d.0", i), "Signed by bob."), fmt.Sprintf("backup-nonce-%012d", i))
		wantAnswer(t, "signed publish", call(t, httpClient, http.MethodPost, source.URL+"/api/publish-signed", "", body), http.StatusOK)
	}
	wantAnswer(t, "delete key", call(t, httpClient, http.MethodDelete, fmt.Sprintf("%s/api/ssh-keys/%d", source.URL, deleted.id), tokens["bob"], nil), http.StatusOK)
	want := readEverything(t, source.URL, tokens)
	// The dump is compared with the round trip's, so it is taken once the
	// source's sequencer has signed a checkpoint over every entry: a
	// restored server sequences what is left, which adds hashes and a
	// checkpoint to the later dumps. Every write above appended one entry.
	logtest.WaitFor(t, source.URL, int64(len(awkwardDocuments)+2+2+2+1))

	// SQLite → file → PostgreSQL, with the file flags.
	dumpFile := filepath.Join(dir, "original.jsonl")
	if r := pactd(t, nil, "", "dump", "--db", original, "-o", dumpFile); r.code != 0 || !strings.Contains(r.stdout, "versions: 9") {
		t.Fatalf("pactd dump: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if r := pactd(t, nil, "", "restore", "--db", pg, "-i", dumpFile); r.code != 0 || !strings.Contains(r.stdout, "into postgres") {
		t.Fatalf("pactd restore into PostgreSQL: code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	onPostgres := startPactd(t, pg)
	sameEverything(t, "PostgreSQL restored from SQLite", readEverything(t, onPostgres.URL, tokens), want)

	// PostgreSQL → pipe → SQLite, through standard output and input.
	dump := exec.Command(pactdBin, "dump", "--db", pg)
	restore := exec.Command(pactdBin, "restore", "--db", final)
	pipe, err := dump.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	restore.Stdin = pipe
	var dumpErr, restoreOut bytes.Buffer
	dump.Stderr, restore.Stdout, restore.Stderr = &dumpErr, &restoreOut, &restoreOut
	if err := dump.Start(); err != nil {
		t.Fatal(err)
	}
	if err := restore.Run(); err != nil {
		t.Fatalf("pactd dump | pactd restore: restore: %v\n%s", err, restoreOut.String())
	}
	if err := dump.Wait(); err != nil {
		t.Fatalf("pactd dump | pactd restore: dump: %v\n%s", err, dumpErr.String())
	}
	onSQLite := startPactd(t, final)
	sameEverything(t, "SQLite restored from PostgreSQL", readEverything(t, onSQLite.URL, tokens), want)

	// The round trip changed no row: the last database dumps as the first.
	again := filepath.Join(dir, "final.jsonl")
	if r := pactd(t, nil, "", "dump", "--db", final, "-o", again); r.code != 0 {
		t.Fatalf("pactd dump of the final database: %d %s", r.code, r.stderr)
	}
	if a, b := dumpRecords(t, dumpFile), dumpRecords(t, again); a != b {
		t.Errorf("SQLite → PostgreSQL → SQLite changed the rows:\n--- only before\n%s\n--- only after\n%s", onlyIn(a, b), onlyIn(b, a))
	}

	t.Run("refusals", func(t *testing.T) {
		truncated := filepath.Join(dir, "truncated.jsonl")
		whole, err := os.ReadFile(dumpFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(truncated, whole[:len(whole)/2], 0o600); err != nil {
			t.Fatal(err)
		}
		empty := func(name string) string { return filepath.Join(t.TempDir(), name) }
		cases := []struct {
			name   string
			args   []string
			code   int
			stderr string
		}{
			{"restore into a database with data", []string{"restore", "--db", final, "-i", dumpFile}, 1, "not empty"},
			{"restore from a missing file", []string{"restore", "--db", empty("a.db"), "-i", filepath.Join(dir, "nope.jsonl")}, 1, "no dump file"},
			{"restore from a truncated file", []string{"restore", "--db", empty("b.db"), "-i", truncated}, 1, "cut short"},
			{"restore of something else", []string{"restore", "--db", empty("c.db"), "-i", original}, 1, "not a pact dump"},
			{"dump of a SQLite file that does not exist", []string{"dump", "--db", filepath.Join(dir, "typo.db")}, 2, "no database at " + filepath.Join(dir, "typo.db") + ": pass --db or set PACTD_DB, or make a new one with pactd migrate"},
			{"dump with an unknown flag", []string{"dump", "--db", final, "--format", "xml"}, 2, "unknown flag"},
			{"restore with an argument", []string{"restore", "--db", final, dumpFile}, 2, "unknown command"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := pactd(t, nil, "", c.args...)
				if r.code != c.code || !strings.Contains(r.stderr, c.stderr) {
					t.Errorf("pactd %s: code %d (want %d), stderr %q (want it to hold %q)", strings.Join(c.args, " "), r.code, c.code, r.stderr, c.stderr)
				}
			})
		}
		// The refused restore left the database as it was.
		sameEverything(t, "SQLite after a refused restore", readEverything(t, onSQLite.URL, tokens), want)
	})
}

// readEverything asks a server every read of the API, and returns each
// answer by path: status, body and the raw documents' ETag. The server's
// own base URL, which differs from server to server, reads {base_url}.
func readEverything(t *testing.T, base string, tokens map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	record := func(path, token string) []byte {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		out[path+" "+token] = fmt.Sprintf("%d %s ETag %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("ETag"),
			strings.ReplaceAll(body.String(), base, "{base_url}"))
		return body.Bytes()
	}
	for user, token := range tokens {
		record("/api/me", token)
		record("/api/ssh-keys", token)
		record("/api/packages?owner="+user, "")
	}
	record("/api/packages?q=older", "")
	var page struct {
		Packages []struct {
			OwnerSlug string `json:"owner_slug"`
			PackSlug  string `json:"pack_slug"`
		} `json:"packages"`
		NextCursor *string `json:"next_cursor"`
	}
	if err := json.Unmarshal(record("/api/packages?limit=2", ""), &page); err != nil || page.NextCursor == nil {
		t.Fatalf("first page of two packages: %v, next_cursor %v", err, page.NextCursor)
	}
	record("/api/packages?limit=2&cursor="+url.QueryEscape(*page.NextCursor), "")
	if err := json.Unmarshal(record("/api/packages?limit=100", ""), &page); err != nil {
		t.Fatal(err)
	}
	for _, p := range page.Packages {
		var detail struct {
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
		}
		if err := json.Unmarshal(record("/api/packages/"+p.OwnerSlug+"/"+p.PackSlug, ""), &detail); err != nil {
			t.Fatal(err)
		}
		record("/raw/"+p.OwnerSlug+"/"+p.PackSlug+".pact.md", "")
		for _, v := range detail.Versions {
			record("/raw/"+p.OwnerSlug+"/"+p.PackSlug+"@"+v.Version+".pact.md", "")
		}
	}
	return out
}

func sameEverything(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for path, w := range want {
		if g := got[path]; g != w {
			t.Errorf("%s answers GET %s differently:\n--- got\n%s\n--- want\n%s", what, path, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d answers, want %d", what, len(got), len(want))
	}
	for i, doc := range awkwardDocuments {
		key := fmt.Sprintf("/raw/alice/awkward@1.%d.0.pact.md ", i)
		if g := got[key]; !strings.HasSuffix(g, "\n"+doc) {
			t.Errorf("%s serves awkward document %d as %q, want its bytes %q", what, i, g, doc)
		}
	}
}

// onlyIn answers the lines of a that b does not hold.
func onlyIn(a, b string) string {
	in := map[string]bool{}
	for _, line := range strings.Split(b, "\n") {
		in[line] = true
	}
	var out []string
	for _, line := range strings.Split(a, "\n") {
		if !in[line] {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// dumpRecords is a dump file without its header (which names the source
// engine and the time).
func dumpRecords(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, records, _ := strings.Cut(string(b), "\n")
	return records
}
