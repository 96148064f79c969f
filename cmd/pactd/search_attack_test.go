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

	"github.com/pact-registry/pact/internal/seedtest"
	"github.com/pact-registry/pact/internal/storetest"
)

// attackPackages is the size of the store the hostile searches run on.
const attackPackages = 20000

// seedForAttack fills dsn with attackPackages packages: half say "alpha",
// half "omega" (never both), every one "pack" and "made"; some hold
// wildcard characters and non-ASCII letters; a third hold "xyq yqz qzw",
// every trigram of the word "xyqzw", which none holds.
func seedForAttack(t *testing.T, dsn string) {
	t.Helper()
	req := seedtest.Request{}
	for i := range 20 {
		req.Owners = append(req.Owners, fmt.Sprintf("owner-%02d", i))
	}
	extras := []string{"", "100% pure", "snake_case", "Größe über", "日本語のパック", "emoji 🙂🙂🙂", `back\slash`}
	base := time.Now().Add(-time.Hour)
	for i := range attackPackages {
		name := fmt.Sprintf("pack-%05d", i)
		word := []string{"alpha", "omega"}[i%2]
		req.Packages = append(req.Packages, seedtest.Package{Owner: req.Owners[i%len(req.Owners)], Pack: name, Name: name,
			Description: fmt.Sprintf("A pack made for the %s side %s%s", word, extras[i%len(extras)], decoy(i)), Scheme: "s",
			Version: "1.0.0", Content: []byte("# " + name + "\n"), SHA256: "00", Now: base.Add(time.Duration(i) * time.Millisecond)})
	}
	seedtest.Seed(t, dsn, req)
}

// decoy is what package i holds besides: in a third of the packages, the
// trigrams of "xyqzw" without the word, which a trigram index would hand
// back and a word index does not.
func decoy(i int) string {
	if i%3 == 0 {
		return " xyq yqz qzw"
	}
	return ""
}

// TestHostileSearches sends the worst searches we could think of to a real
// pactd on a store of attackPackages packages, many at once: every answer is
// right (or a 400 naming the bound), and pactd's memory stays bounded.
func TestHostileSearches(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			dsn := filepath.Join(t.TempDir(), "pact.db")
			if backend == "postgres" {
				dsn = storetest.PostgresURL(t)
			}
			seedForAttack(t, dsn)
			// The machine is shared: a generous statement timeout, so the
			// answers are checked rather than the machine's load.
			srv := startPactd(t, dsn, "--db-statement-timeout", "60s")

			type result struct {
				status int
				count  int // packages on the first page (limit 100)
				error  string
			}
			search := func(q string, extra ...string) result {
				path := srv.URL + "/api/packages?limit=100&q=" + url.QueryEscape(q) + strings.Join(extra, "")
				resp, err := http.Get(path)
				if err != nil {
					return result{error: err.Error()}
				}
				defer resp.Body.Close()
				var body struct {
					Packages []json.RawMessage `json:"packages"`
					Error    string            `json:"error"`
				}
				if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
					return result{status: resp.StatusCode, error: err.Error()}
				}
				return result{status: resp.StatusCode, count: len(body.Packages), error: body.Error}
			}
			// rotations are n distinct words of size letters cut from the
			// rotations of word.
			rotations := func(word string, n, size int) string {
				var out []string
				for i := range n {
					out = append(out, (word[i:] + word[:i])[:size])
				}
				return strings.Join(out, " ")
			}
			many := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
			distinct := func(words ...string) string { return strings.Join(words, " ") }
			cases := []struct {
				name, q string
				status  int
				count   int // -1: do not check
				msg     string
			}{
				{"two common words that never meet", "alpha omega", 200, 0, ""},
				{"a word whose rare trigrams meet in 6,667 packages, none a match", "xyqzw", 200, 0, ""},
				{"16 common words that never meet", distinct("alpha", "omega", "pack", "made", "for", "the", "side",
					"ack", "ade", "pac", "lph", "meg", "ome", "alp", "ega", "pha"), 200, 0, ""},
				{"16 words of 11 characters, all of common trigrams", rotations("packmadeside", 12, 11) + " " + rotations("alphaomegas", 4, 11), 200, 0, ""},
				{"common words, a full first page", "pack made alpha", 200, 100, ""},
				{"200 percent signs", strings.Repeat("%", 200), 200, 0, ""},
				{"200 underscores", strings.Repeat("_", 200), 200, 0, ""},
				{"wildcards around common words: punctuation separates words", "%pack% _made_ %", 200, 100, ""},
				{"a literal percent", "100%", 200, -1, ""},
				{"a literal underscore", "snake_case", 200, -1, ""},
				{"backslashes", `\\\\ back\slash`, 200, -1, ""},
				{"16 times a word in every package", many("a", 16), 200, 100, ""},
				{"short wildcards", "% _", 200, 0, ""},
				{"owner/slug of wildcards", "%/%", 200, 0, ""},
				{"owner/ of every package of an owner", "owner-01/", 200, 100, ""},
				{"unicode letters", "größe über", 200, 100, ""},
				{"unicode upper case, folded as slugs fold", "GRÖSSE", 200, 100, ""},
				{"CJK", "日本語", 200, 100, ""},
				{"emoji: no word", "🙂🙂🙂", 200, 0, ""},
				{"100 two-byte letters", strings.Repeat("é", 100), 200, 0, ""},
				{"combining marks", strings.Repeat("e\u0301", 66), 200, 0, ""},
				{"dotted capital I", strings.Repeat("İ", 100), 200, 0, ""},
				{"right-to-left marks around a word", "\u202ealpha\u202c", 200, 100, ""},
				{"a typo's suggestions among 20,000 similar slugs", "pakc-00123", 200, 0, ""},
				{"one word of 66 rare tokens: a frequency probe each (SQLite)", rareTokens(66), 200, 0, ""},
				{"one word of 40 tokens, each in every package", strings.Repeat("pack-", 39) + "pack", 200, 0, ""},
				{"quotes and FTS5 syntax", `"alpha" OR omega* NEAR(pack) {owner}: ^made -side`, 200, 0, ""},
				{"tsquery syntax", `alpha & !omega | (pack <-> made):*`, 200, 0, ""},
				{"201 bytes", strings.Repeat("a", 201), 400, -1, "at most 200 bytes"},
				{"17 words", many("pack", 17), 400, -1, "at most 16 words"},
				{"invalid UTF-8", "pack\xff\xfe", 400, -1, "UTF-8"},
				{"a NUL", "pack\x00", 400, -1, "NUL"},
			}
			check := func(c int) string {
				tc := cases[c]
				got := search(tc.q)
				switch {
				case got.status != tc.status:
					return fmt.Sprintf("%s: status %d (%s), want %d", tc.name, got.status, got.error, tc.status)
				case tc.count >= 0 && got.count != tc.count:
					return fmt.Sprintf("%s: %d packages, want %d", tc.name, got.count, tc.count)
				case tc.count < 0 && tc.status == 200 && got.count == 0:
					return fmt.Sprintf("%s: no packages", tc.name)
				case !strings.Contains(got.error, tc.msg):
					return fmt.Sprintf("%s: error %q, want it to mention %q", tc.name, got.error, tc.msg)
				}
				return ""
			}
			for c := range cases {
				start := time.Now()
				if msg := check(c); msg != "" {
					t.Error(msg)
				}
				t.Logf("%s: %v", cases[c].name, time.Since(start).Round(time.Millisecond))
			}

			// All of them at once, from 16 clients, a few rounds.
			srv.ResetPeakRSS()
			var wg sync.WaitGroup
			errs := make(chan string, 16*len(cases))
			start := time.Now()
			for w := range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := range 3 {
						for c := range cases {
							if msg := check((c + w + r) % len(cases)); msg != "" {
								errs <- msg
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for msg := range errs {
				t.Errorf("under load: %s", msg)
			}
			peak := srv.PeakRSSMiB()
			t.Logf("%d hostile searches from 16 clients in %v; pactd peak RSS %.1f MiB", 16*3*len(cases), time.Since(start).Round(time.Millisecond), peak)
			if peak >= 150 {
				t.Errorf("pactd's peak RSS reached %.1f MiB under hostile searches, want under 150", peak)
			}
			if got := search("pack-00042"); got.status != 200 || got.count != 1 {
				t.Errorf("after the attack, an exact slug search answers %d with %d packages", got.status, got.count)
			}
		})
	}
}

// rareTokens is one word of n distinct two-letter tokens no package holds,
// joined by hyphens: before its statement a search probes how many
// packages hold each.
func rareTokens(n int) string {
	var tokens []string
	for i := range n {
		tokens = append(tokens, fmt.Sprintf("%c%c", 'w'+i/26, 'a'+i%26))
	}
	return strings.Join(tokens, "-")
}
