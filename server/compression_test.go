package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/logtest"
	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/client"
)

// rawAnswer is an answer as it came over the wire, not decompressed.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
}

// rawHTTP sends requests with exactly the Accept-Encoding given: the
// transport neither adds one nor decompresses.
var rawHTTP = &http.Client{Transport: &http.Transport{DisableCompression: true}}

func fetchRaw(t *testing.T, method, url, acceptEncoding string) rawAnswer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if acceptEncoding != "" {
		req.Header.Set("Accept-Encoding", acceptEncoding)
	}
	resp, err := rawHTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawAnswer{status: resp.StatusCode, header: resp.Header, body: body}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip: %v", err)
	}
	return out
}

// JSON answers over 1 KiB, /openapi.json and the log's entry bundles are
// gzip-compressed for the clients that accept it, with Vary and the
// compressed Content-Length, HEAD answering what GET would; small answers,
// clients that refuse gzip and the raw documents are answered as they are.
func TestLargeAnswersAreGzipCompressed(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		for i := range 12 {
			publishVersions(t, env, alice, fmt.Sprintf("Pack %02d", i), "1.0.0")
		}
		publishVersions(t, env, alice, "Pack 03", "2.0.0")
		resp := env.API.PostJSON("/api/releases", releaseBody("alice/pack-00", "1.0.0", map[string]any{"url": "https://example.com/x"}), alice.Bearer())
		wantStatus(t, resp.Status, http.StatusOK, resp.Body)
		// 14 entries (over 1 KiB) in a checkpoint.
		logtest.WaitFor(t, env.URL, 14)
		bundle := "/log/tile/entries/000.p/14"

		for _, path := range []string{"/api/packages?limit=12", "/api/packages?limit=12&owner=alice", "/openapi.json",
			"/api/contracts/alice/pack-00/releases", "/api/packages/alice/pack-03", bundle} {
			plain := fetchRaw(t, http.MethodGet, env.URL+path, "")
			if plain.status != http.StatusOK || plain.header.Get("Content-Encoding") != "" || len(plain.body) <= 1024 && !strings.HasPrefix(path, "/api/contracts") {
				t.Fatalf("GET %s without Accept-Encoding: %d %q, %d bytes", path, plain.status, plain.header.Get("Content-Encoding"), len(plain.body))
			}
			if len(plain.body) <= 1024 {
				// The release list is small: it stays as it is.
				if v := plain.header.Get("Vary"); v != "" {
					t.Errorf("GET %s: %d bytes with Vary %q", path, len(plain.body), v)
				}
				if got := fetchRaw(t, http.MethodGet, env.URL+path, "gzip"); got.header.Get("Content-Encoding") != "" || !bytes.Equal(got.body, plain.body) {
					t.Errorf("GET %s (%d bytes) with gzip was compressed", path, len(plain.body))
				}
				continue
			}
			if plain.header.Get("Vary") != "Accept-Encoding" || plain.header.Get("Content-Length") != strconv.Itoa(len(plain.body)) {
				t.Errorf("GET %s uncompressed: Vary %q, Content-Length %s for %d bytes", path, plain.header.Get("Vary"),
					plain.header.Get("Content-Length"), len(plain.body))
			}
			for _, accept := range []string{"gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8", "*", "x-gzip"} {
				for round := range 2 { // the second from the list's cache, or the tile's gzip form
					gz := fetchRaw(t, http.MethodGet, env.URL+path, accept)
					if gz.status != http.StatusOK || gz.header.Get("Content-Encoding") != "gzip" || gz.header.Get("Vary") != "Accept-Encoding" ||
						gz.header.Get("Content-Length") != strconv.Itoa(len(gz.body)) || len(gz.body) >= len(plain.body) {
						t.Fatalf("GET %s, Accept-Encoding %q, round %d: %d, Content-Encoding %q, Vary %q, Content-Length %s, %d bytes (plain %d)",
							path, accept, round, gz.status, gz.header.Get("Content-Encoding"), gz.header.Get("Vary"), gz.header.Get("Content-Length"),
							len(gz.body), len(plain.body))
					}
					if got := gunzip(t, gz.body); !bytes.Equal(got, plain.body) {
						t.Fatalf("GET %s gzip: decompressed %d bytes differ from the plain answer", path, len(got))
					}
					head := fetchRaw(t, http.MethodHead, env.URL+path, accept)
					if len(head.body) != 0 || head.header.Get("Content-Length") != gz.header.Get("Content-Length") ||
						head.header.Get("Content-Encoding") != "gzip" || head.header.Get("Vary") != "Accept-Encoding" {
						t.Errorf("HEAD %s, %q: Content-Length %s, Content-Encoding %q, %d body bytes; GET said %s", path, accept,
							head.header.Get("Content-Length"), head.header.Get("Content-Encoding"), len(head.body), gz.header.Get("Content-Length"))
					}
				}
			}
			for _, accept := range []string{"", "identity", "gzip;q=0", "gzip;q=0, *", "deflate, br", "*;q=0"} {
				for _, method := range []string{http.MethodHead, http.MethodGet} {
					got := fetchRaw(t, method, env.URL+path, accept)
					if got.header.Get("Content-Encoding") != "" || got.header.Get("Content-Length") != strconv.Itoa(len(plain.body)) ||
						method == http.MethodGet && !bytes.Equal(got.body, plain.body) {
						t.Errorf("%s %s, Accept-Encoding %q: Content-Encoding %q, Content-Length %s; want the plain %d bytes", method, path, accept,
							got.header.Get("Content-Encoding"), got.header.Get("Content-Length"), len(plain.body))
					}
				}
			}
			// Real curl: --compressed asks for gzip and decodes it.
			out, err := exec.Command("curl", "-fsS", "--compressed", env.URL+path).Output()
			if err != nil || !bytes.Equal(out, plain.body) {
				t.Errorf("curl --compressed %s: %v, %d bytes, want the plain %d", path, err, len(out), len(plain.body))
			}
		}

		// A first page asked for with HEAD first is then answered whole.
		for _, accept := range []string{"", "gzip"} {
			path := "/api/packages?limit=11&x=" + accept
			head := fetchRaw(t, http.MethodHead, env.URL+path, accept)
			got := fetchRaw(t, http.MethodGet, env.URL+path, accept)
			if got.header.Get("Content-Length") != head.header.Get("Content-Length") || got.header.Get("Content-Length") != strconv.Itoa(len(got.body)) ||
				len(got.body) < 1024 {
				t.Errorf("GET %s after HEAD, Accept-Encoding %q: Content-Length %s (HEAD %s), %d bytes", path, accept,
					got.header.Get("Content-Length"), head.header.Get("Content-Length"), len(got.body))
			}
		}

		// Small answers and raw documents are never compressed.
		for _, path := range []string{"/healthz", "/api/packages/alice/nothing", "/raw/alice/pack-01.pact.md"} {
			got := fetchRaw(t, http.MethodGet, env.URL+path, "gzip")
			if got.header.Get("Content-Encoding") != "" || got.header.Get("Vary") == "Accept-Encoding" {
				t.Errorf("GET %s: Content-Encoding %q, Vary %q", path, got.header.Get("Content-Encoding"), got.header.Get("Vary"))
			}
		}

		// pkg/client reads compressed answers: Go's transport asks for gzip
		// and decodes it.
		c, err := client.New(env.URL)
		if err != nil {
			t.Fatal(err)
		}
		page, err := c.ListPackages(context.Background(), client.ListOptions{Limit: 12})
		if err != nil || len(page.Packages) != 12 {
			t.Fatalf("pkg/client ListPackages: %v", err)
		}
	})
}
