package main_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // PRAGMA integrity_check on pactd's file
)

// apiUser talks to a running pactd over HTTP as one account, the way the
// crash, full-disk and slow-client tests need: plain requests, every error
// returned rather than failing the test, since a killed server is expected.
type apiUser struct {
	base, token string
	client      *http.Client
}

func newAPIUser(base, token string, conns int) *apiUser {
	return &apiUser{base: base, token: token, client: &http.Client{
		Timeout:   20 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: conns},
	}}
}

// publish posts content to /api/publish and returns the status and body.
func (u *apiUser) publish(content string) (int, []byte, error) {
	body, _ := json.Marshal(map[string]string{"content": content})
	req, err := http.NewRequest(http.MethodPost, u.base+"/api/publish", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+u.token)
	req.Header.Set("Content-Type", "application/json")
	return u.do(req)
}

func (u *apiUser) get(path string) (int, http.Header, []byte, error) {
	resp, err := u.client.Get(u.base + path)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

func (u *apiUser) do(req *http.Request) (int, []byte, error) {
	resp, err := u.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

type listedVersion struct {
	Version string `json:"version"`
	SHA256  string `json:"sha256"`
}

// versions lists a package's versions, newest first; nil when the package
// does not exist.
func (u *apiUser) versions(t *testing.T, owner, pack string) []listedVersion {
	t.Helper()
	status, _, body, err := u.get("/api/packages/" + owner + "/" + pack)
	switch {
	case err != nil:
		t.Fatalf("GET /api/packages/%s/%s: %v", owner, pack, err)
	case status == http.StatusNotFound:
		return nil
	case status != http.StatusOK:
		t.Fatalf("GET /api/packages/%s/%s: %d %s", owner, pack, status, body)
	}
	var detail struct {
		Versions []listedVersion `json:"versions"`
	}
	if err := json.Unmarshal(body, &detail); err != nil {
		t.Fatalf("GET /api/packages/%s/%s: %v: %s", owner, pack, err, body)
	}
	return detail.Versions
}

// checkDocument asserts that owner/pack@version serves exactly want, with
// an ETag and a listed sha256 (when given) that match its bytes.
func (u *apiUser) checkDocument(t *testing.T, owner, pack, version, want, listedSHA string) {
	t.Helper()
	path := fmt.Sprintf("/raw/%s/%s@%s.pact.md", owner, pack, version)
	status, header, body, err := u.get(path)
	if err != nil || status != http.StatusOK {
		t.Errorf("GET %s: status %d, error %v: %.200s", path, status, err, body)
		return
	}
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	if string(body) != want {
		t.Errorf("GET %s: %d bytes differ from the %d bytes published", path, len(body), len(want))
	}
	if etag := header.Get("ETag"); etag != `"`+digest+`"` {
		t.Errorf("GET %s: ETag %s, but the body's sha256 is %s (a half-written version?)", path, etag, digest)
	}
	if listedSHA != "" && listedSHA != digest {
		t.Errorf("GET %s: listed sha256 %s, but the body's sha256 is %s", path, listedSHA, digest)
	}
}

// packDoc is a pack document; padding bytes of prose make it span pages.
func packDoc(name, version string, padding int) string {
	return fmt.Sprintf("# %s %s\n\n```yaml pact:pack\nname: %s\nversion: %s\n```\n\n%s\n",
		name, version, name, version, strings.Repeat(name+" "+version+" ", padding/(len(name)+len(version)+2)+1))
}

// integrityCheck opens pactd's SQLite file (pactd must have stopped) and
// returns what PRAGMA integrity_check answers: "ok" when nothing is damaged.
func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		t.Fatalf("PRAGMA integrity_check: %v", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("PRAGMA integrity_check: %v", err)
	}
	return strings.Join(lines, "\n")
}
