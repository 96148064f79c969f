package main_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/s3test"
)

func docSHA(doc string) string {
	sum := sha256.Sum256([]byte(doc))
	return hex.EncodeToString(sum[:])
}

// blobPath is where the directory engine keeps doc.
func blobPath(dir, doc string) string {
	n := docSHA(doc)
	return filepath.Join(dir, n[:2], n[2:4], n)
}

// rowsHolding counts the versions of the SQLite file whose rows hold
// their document.
func rowsHolding(t *testing.T, file string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", file+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM versions WHERE length(content) > 0").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A new SQLite registry keeps its documents in <db>.blobs from its first
// publish; the database keeps only their rows.
func TestNewRegistryKeepsDocumentsBesideTheDatabase(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pact.db")
	srv, token := startWithToken(t, "alice", file)
	doc := packDocument("beside", "1.0.0", "Kept in a file.")
	wantAnswer(t, "publish", publish(t, srv.URL, token, doc), http.StatusOK)
	if got, err := os.ReadFile(blobPath(file+".blobs", doc)); err != nil || string(got) != doc {
		t.Fatalf("the document beside the database: %q, %v", got, err)
	}
	if n := rowsHolding(t, file); n != 0 {
		t.Errorf("%d rows hold their document", n)
	}
	if got := get(t, srv.URL+"/raw/alice/beside.pact.md", ""); got.status != 200 || string(got.body) != doc {
		t.Errorf("GET raw: %s", got)
	}
	// pactd migrate, which an operator may run first, makes it too.
	other := migrated(t, filepath.Join(t.TempDir(), "other.db"))
	if fi, err := os.Stat(other + ".blobs"); err != nil || !fi.IsDir() {
		t.Errorf("pactd migrate of a new database made no %s.blobs: %v", other, err)
	}
}

// A registry made before the blob store keeps its documents in its
// database, and serves them; pactd blobs migrate moves them beside it
// (again: nothing left to move), after which pactd serves every document
// from files and puts new ones there; pactd log check reads them and names
// a damaged one; pactd dump carries them into a restore; pactd blobs gc
// removes what a crash between a blob and its row leaves, once older than
// --grace.
func TestMigrateAnExistingRegistryToFiles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pact.db")
	dir := file + ".blobs"
	old := []string{packDocument("one", "1.0.0", "Old."), packDocument("one", "1.1.0", "Older."), packDocument("two", "1.0.0", "Other.")}
	srv, token := startWithToken(t, "alice", file, "--blobs", "none")
	for _, doc := range old {
		wantAnswer(t, "publish", publish(t, srv.URL, token, doc), http.StatusOK)
	}
	srv.Stop()
	// Started again by the new version, with no directory: as before.
	srv = startPactd(t, file)
	third := packDocument("three", "1.0.0", "Still in the database.")
	wantAnswer(t, "publish", publish(t, srv.URL, token, third), http.StatusOK)
	old = append(old, third)
	srv.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s exists before the migration (%v)", dir, err)
	}
	if n := rowsHolding(t, file); n != len(old) {
		t.Fatalf("%d rows hold their document, want %d", n, len(old))
	}

	r := pactd(t, nil, "", "blobs", "migrate", "--db", file)
	if r.code != 0 || !strings.Contains(r.stdout, "moved 4 documents") {
		t.Fatalf("blobs migrate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := rowsHolding(t, file); n != 0 {
		t.Errorf("after the migration %d rows hold their document", n)
	}
	if r := pactd(t, nil, "", "blobs", "migrate", "--db", file); r.code != 0 || !strings.Contains(r.stdout, "moved 0 documents") {
		t.Errorf("blobs migrate again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	srv = startPactd(t, file)
	fourth := packDocument("four", "1.0.0", "In a file.")
	wantAnswer(t, "publish", publish(t, srv.URL, token, fourth), http.StatusOK)
	for _, doc := range append(old, fourth) {
		if _, err := os.Stat(blobPath(dir, doc)); err != nil {
			t.Errorf("no file for a document: %v", err)
		}
	}
	for path, doc := range map[string]string{"/raw/alice/one@1.0.0.pact.md": old[0], "/raw/alice/one.pact.md": old[1],
		"/raw/alice/two.pact.md": old[2], "/raw/alice/three.pact.md": third, "/raw/alice/four.pact.md": fourth} {
		if got := get(t, srv.URL+path, ""); got.status != 200 || string(got.body) != doc {
			t.Errorf("GET %s: %s", path, got)
		}
	}
	if r := pactd(t, nil, "", "log", "check", "--db", file); r.code != 0 {
		t.Errorf("log check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// The dump carries the documents; its restore needs no directory.
	dump := filepath.Join(t.TempDir(), "dump.jsonl")
	if r := pactd(t, nil, "", "dump", "--db", file, "-o", dump); r.code != 0 {
		t.Fatalf("dump: exit %d\n%s", r.code, r.stderr)
	}
	restored := filepath.Join(t.TempDir(), "restored.db")
	if r := pactd(t, nil, "", "restore", "--db", restored, "-i", dump); r.code != 0 {
		t.Fatalf("restore: exit %d\n%s", r.code, r.stderr)
	}
	copySrv := startPactd(t, restored)
	for path, doc := range map[string]string{"/raw/alice/one@1.0.0.pact.md": old[0], "/raw/alice/four.pact.md": fourth} {
		if got := get(t, copySrv.URL+path, ""); got.status != 200 || string(got.body) != doc {
			t.Errorf("restored, GET %s: %s", path, got)
		}
	}

	// What a crash between a blob and its row leaves: two unreferenced
	// blobs, one older than the grace period.
	stale, young := packDocument("stale", "1.0.0", "Never committed."), packDocument("young", "1.0.0", "Being published.")
	for _, doc := range []string{stale, young} {
		p := blobPath(dir, doc)
		os.MkdirAll(filepath.Dir(p), 0o750)
		if err := os.WriteFile(p, []byte(doc), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(blobPath(dir, stale), long, long); err != nil {
		t.Fatal(err)
	}
	// And the partial writes of publishes cut short, one old, one not.
	oldPartial, newPartial := filepath.Join(dir, "tmp", docSHA(stale)+".1"), filepath.Join(dir, "tmp", docSHA(young)+".2")
	for _, p := range []string{oldPartial, newPartial} {
		if err := os.WriteFile(p, []byte("# half"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(oldPartial, long, long)
	for _, doc := range old { // referenced blobs are kept however old
		os.Chtimes(blobPath(dir, doc), long, long)
	}
	r = pactd(t, nil, "", "blobs", "gc", "--db", file)
	if r.code != 0 || !strings.Contains(r.stdout, "removed 1 unreferenced blobs") {
		t.Errorf("blobs gc: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(blobPath(dir, stale)); !os.IsNotExist(err) {
		t.Errorf("the stale blob is still there (%v)", err)
	}
	if !strings.Contains(r.stdout, "removed 1 partial writes") {
		t.Errorf("blobs gc did not say it removed the old partial write:\n%s", r.stdout)
	}
	if _, err := os.Stat(oldPartial); !os.IsNotExist(err) {
		t.Errorf("the old partial write is still there (%v)", err)
	}
	if _, err := os.Stat(newPartial); err != nil {
		t.Errorf("gc removed a partial write younger than --grace: %v", err)
	}
	for _, doc := range append(old, fourth, young) {
		if _, err := os.Stat(blobPath(dir, doc)); err != nil {
			t.Errorf("gc removed a blob it must keep: %v", err)
		}
	}
	if r := pactd(t, nil, "", "blobs", "gc", "--db", file, "--grace", "0s"); r.code != 2 || !strings.Contains(r.stderr, "--grace") {
		t.Errorf("blobs gc --grace 0s: exit %d, %s", r.code, r.stderr)
	}

	// A damaged file: never served, and the log check names it.
	if err := os.WriteFile(blobPath(dir, old[2]), []byte(strings.Replace(old[2], "Other", "Evil!", 1)), 0o640); err != nil {
		t.Fatal(err)
	}
	if got := get(t, srv.URL+"/raw/alice/two.pact.md", ""); got.status != http.StatusInternalServerError || strings.Contains(string(got.body), "Evil") {
		t.Errorf("GET a damaged document: %s", got)
	}
	r = pactd(t, nil, "", "log", "check", "--db", file)
	if r.code != 1 || !strings.Contains(r.stderr, "blob "+docSHA(old[2])) {
		t.Errorf("log check of a damaged blob: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// --blobs is checked before anything starts, from the flag as from the
// environment; a bucket that does not answer, or no credentials, stop
// serve with a message.
func TestBlobsSettingIsChecked(t *testing.T) {
	db := filepath.Join(t.TempDir(), "pact.db")
	for _, tc := range []struct {
		env  []string
		args []string
		code int
		want string
	}{
		{nil, []string{"--blobs", "relative/dir"}, 2, `flag --blobs: "relative/dir" is not a blob store`},
		{[]string{"PACTD_BLOBS=file://relative"}, nil, 2, `environment PACTD_BLOBS: "file://relative" is not a blob store: a file URL names an absolute path`},
		{nil, []string{"--blobs", "s3://b/p?endpoint=ftp://x"}, 2, "not an http(s) address"},
		{nil, []string{"--blobs", "s3://b/p?endpoint=http://127.0.0.1:9"}, 1, "AWS_ACCESS_KEY_ID"},
		{[]string{"AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s"}, []string{"--blobs", "s3://b/p?endpoint=http://127.0.0.1:9"}, 1, "bucket b does not answer"},
	} {
		r := pactd(t, tc.env, "", append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want %d and %q", tc.env, tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

// pactd serve --blobs s3://… keeps documents in a bucket of a real
// S3-compatible server, and pactd blobs migrate moves a database's
// documents there; with --blobs-public-url a pinned version's readers are
// sent to the bucket, once it is public.
func TestServeOnS3(t *testing.T) {
	s3 := s3test.Start(t)
	t.Setenv("AWS_ACCESS_KEY_ID", s3.Creds.AccessKeyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.Creds.SecretAccessKey)
	bucket := s3.Bucket(t)
	file := filepath.Join(t.TempDir(), "pact.db")
	before := packDocument("old", "1.0.0", "In the database.")
	srv, token := startWithToken(t, "alice", file, "--blobs", "none")
	wantAnswer(t, "publish", publish(t, srv.URL, token, before), http.StatusOK)
	srv.Stop()
	r := pactd(t, nil, "", "blobs", "migrate", "--db", file, "--blobs", bucket)
	if r.code != 0 || !strings.Contains(r.stdout, "moved 1 documents") {
		t.Fatalf("blobs migrate to S3: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The bucket made public (a bucket policy), pactd sends pinned
	// versions' readers to it (docs/operations.md, "A CDN in front of the
	// blob store"): its path-style address and the object's key.
	name := strings.TrimPrefix(bucket[:strings.Index(bucket, "/docs")], "s3://")
	public := s3.Endpoint + "/" + name + "/"
	srv = startPactd(t, file, "--blobs", bucket, "--blobs-public-url", public)
	doc := packDocument("ons3", "1.0.0", "In a bucket.")
	wantAnswer(t, "publish", publish(t, srv.URL, token, doc), http.StatusOK)
	object := public + "docs/" + docSHA(doc)
	if status, _ := curlStatus(t, object); status != "403" {
		t.Errorf("an unsigned GET of an object of the private bucket: %s, want 403", status)
	}
	s3.PublicRead(t, name)
	if status, loc := curlStatus(t, srv.URL+"/raw/alice/ons3@1.0.0.pact.md"); status != "307" || loc != object {
		t.Errorf("GET a pinned version: %s to %q, want 307 to %s", status, loc, object)
	}
	if got := curlFollow(t, srv.URL+"/raw/alice/ons3@1.0.0.pact.md"); got != doc {
		t.Errorf("curl -L of the pinned version got %q", got)
	}
	for _, d := range []string{before, doc} {
		if got, err := os.ReadFile(s3.Object(name, "docs/"+docSHA(d))); err != nil || string(got) != d {
			t.Errorf("object: %q, %v", got, err)
		}
	}
	if n := rowsHolding(t, file); n != 0 {
		t.Errorf("%d rows hold their document", n)
	}
	for path, d := range map[string]string{"/raw/alice/old.pact.md": before, "/raw/alice/ons3@1.0.0.pact.md": doc} {
		if got := get(t, srv.URL+path, ""); got.status != 200 || string(got.body) != d {
			t.Errorf("GET %s: %s", path, got)
		}
	}
	if r := pactd(t, nil, "", "log", "check", "--db", file, "--blobs", bucket); r.code != 0 {
		t.Errorf("log check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
