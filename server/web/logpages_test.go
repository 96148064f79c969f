package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/pkg/translog"
)

// coverLog waits for a checkpoint that covers every entry logged so far,
// as pact log watch does, and answers the tree's size.
func coverLog(t *testing.T, env *servertest.Env) int64 {
	t.Helper()
	signed, err := env.Service.LogCheckpointCovering(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, size, _ := strings.Cut(string(signed), "\n")
	size, _, _ = strings.Cut(size, "\n")
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil {
		t.Fatalf("checkpoint %q: %v", signed, err)
	}
	return n
}

func logIndexOf(t *testing.T, env *servertest.Env, owner, pack, version string) int64 {
	t.Helper()
	_, versions, err := env.Service.PackageDetail(context.Background(), owner, pack)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if v.Version == version && v.LogIndex != nil {
			return *v.LogIndex
		}
	}
	t.Fatalf("%s/%s@%s has no log index", owner, pack, version)
	return 0
}

func getText(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body), resp.Header
}

var (
	logRowPattern   = regexp.MustCompile(`<tr class="log-entry">\s*<td data-label="Entry"><a href="/log/entry/(\d+)">`)
	olderLogPattern = regexp.MustCompile(`<a rel="next" href="(/log\?before=\d+)">Older`)
)

func TestLogPageListsNewestEntriesAndPagesBack(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		for i := range 30 { // 60 entries: each publish and its pack-state entry
			publishDoc(t, env, alice, packDoc("widget", fmt.Sprintf("1.0.%d", i)))
		}
		size := coverLog(t, env)
		if size != 60 {
			t.Fatalf("the log holds %d entries, want 60", size)
		}
		_, checkpoint, _ := getText(t, env.URL+"/log/checkpoint")
		root := strings.Split(checkpoint, "\n")[2]

		first := web.Get("/log")
		servertest.WantPage(t, first, http.StatusOK, "Transparency log", "Latest checkpoint", root,
			"No witnesses are configured", "servertest/log",
			`href="/alice/widget@1.0.29"`, `href="/log/entry/59"`, "publish", "by API token", "pack-state")
		if csp := first.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("the log page's CSP = %q", csp)
		}
		assertNoInlineCode(t, first.Body)
		rows := logRowPattern.FindAllStringSubmatch(first.Body, -1)
		if len(rows) != 50 || rows[0][1] != "59" || rows[49][1] != "10" {
			t.Fatalf("first page lists %d entries (%v), want 59 down to 10", len(rows), rows)
		}
		older := olderLogPattern.FindStringSubmatch(first.Body)
		if older == nil {
			t.Fatalf("the log page has no link to older entries:\n%s", first.Body)
		}
		second := web.Get(html.UnescapeString(older[1]))
		servertest.WantPage(t, second, http.StatusOK, `href="/log">← Newest`, `href="/alice/widget@1.0.0"`)
		rows = logRowPattern.FindAllStringSubmatch(second.Body, -1)
		if len(rows) != 10 || rows[0][1] != "9" || rows[9][1] != "0" {
			t.Errorf("second page lists %v, want 9 down to 0", rows)
		}
		if olderLogPattern.MatchString(second.Body) {
			t.Errorf("the page of the oldest entries links to older ones")
		}
		servertest.WantPage(t, web.Get("/log?before=junk"), http.StatusBadRequest, "before must be")

		// The machine paths under /log/ answer as before.
		status, text, h := getText(t, env.URL+"/log/checkpoint")
		if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") || !strings.HasPrefix(text, "servertest/log\n") {
			t.Errorf("/log/checkpoint = %d %s %q", status, h.Get("Content-Type"), text)
		}
	})
}

func TestLogEntryPageShowsTextAndHowToVerify(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
		publishDoc(t, env, alice, packDoc("widget", "1.1.0"))
		size := coverLog(t, env)
		index := logIndexOf(t, env, "alice", "widget", "1.0.0")

		// The version pages link their entries.
		servertest.WantPage(t, web.Get("/alice/widget@1.0.0"), http.StatusOK, fmt.Sprintf(`href="/log/entry/%d"`, index))
		latest := logIndexOf(t, env, "alice", "widget", "1.1.0")
		servertest.WantPage(t, web.Get("/alice/widget"), http.StatusOK, fmt.Sprintf(`href="/log/entry/%d"`, latest))

		// The entry as the log serves it, in its bundle.
		bundlePath := translog.TilePath(translog.EntryTile(index, size))
		_, bundle, _ := getText(t, env.URL+"/log/"+bundlePath)
		entries, err := translog.DecodeBundle([]byte(bundle), int(size%translog.TileWidth))
		if err != nil {
			t.Fatal(err)
		}
		entry := string(entries[index])
		leaf := sha256.Sum256(append([]byte{0}, entry...))

		page := web.Get(fmt.Sprintf("/log/entry/%d", index))
		servertest.WantPage(t, page, http.StatusOK, "<code>"+html.EscapeString(entry)+"</code>", hex.EncodeToString(leaf[:]),
			"curl -fsS "+env.URL+"/log/checkpoint", env.URL+"/log/"+bundlePath,
			"pact verify --host "+env.URL+" alice/widget@1.0.0", `href="/alice/widget@1.0.0"`, `href="/log"`)
		assertNoInlineCode(t, page.Body)

		// The hashing command, run as a reader would, prints the leaf hash.
		cmd := regexp.MustCompile(`(?s)<pre id="verify-leaf"><code>(.*?)</code></pre>`).FindStringSubmatch(page.Body)
		if cmd == nil {
			t.Fatalf("the entry page has no hashing command:\n%s", page.Body)
		}
		out, err := exec.Command("sh", "-c", html.UnescapeString(cmd[1])).Output()
		if err != nil {
			t.Fatalf("running %q: %v", cmd[1], err)
		}
		if got := strings.Fields(string(out)); len(got) == 0 || got[0] != hex.EncodeToString(leaf[:]) {
			t.Errorf("the hashing command printed %q, want the leaf hash %x", out, leaf)
		}

		for _, path := range []string{"/log/entry/999999", fmt.Sprintf("/log/entry/%d", size), "/log/entry/-1", "/log/entry/01", "/log/entry/x"} {
			servertest.WantPage(t, web.Get(path), http.StatusNotFound, "Not found")
		}
	})
}

func TestLogPagesEscapeHostileText(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		p := publishDoc(t, env, alice, packDoc(`<script>alert(1)</script> pack`, "1.0.0", "description: <img src=x onerror=alert(2)>\n"))
		reason := `<img src=x onerror=alert(3)> "quoted"`
		if _, _, err := env.Service.YankVersion(context.Background(), alice.Account, "alice", p.PackSlug, "1.0.0", reason); err != nil {
			t.Fatal(err)
		}
		size := coverLog(t, env)

		list := web.Get("/log")
		servertest.WantPage(t, list, http.StatusOK, "reason: "+reason, `href="/alice/`+p.PackSlug+`@1.0.0"`)
		entry := web.Get(fmt.Sprintf("/log/entry/%d", size-2)) // the yank, before its pack-state entry
		servertest.WantPage(t, entry, http.StatusOK, "yank", `href="/alice/`+p.PackSlug+`@1.0.0"`)
		for name, page := range map[string]string{"log": list.Body, "entry": entry.Body} {
			assertNoInlineCode(t, page)
			if markup := pageMarkup(t, page); strings.Contains(markup, `src="x"`) || strings.Contains(markup, "onerror") || strings.Contains(markup, "<script>") {
				t.Errorf("the %s page lets the yank reason's HTML through:\n%s", name, page)
			}
		}
		if !strings.Contains(html.UnescapeString(entry.Body), translog.JSONString(reason)) {
			t.Errorf("the entry page lacks the reason as logged, %s", translog.JSONString(reason))
		}
	})
}

// A pack-state row of /log names its package, owner/pack, linked to the
// package's page, and says the state in words; a trusted-publishing-only
// row names its package too.
func TestLogPageNamesThePackageOfPackageRows(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, env *servertest.Env) {
		alice := env.CreateUser(t, "alice")
		web := servertest.NewWebClient(t, env.URL)
		ctx := context.Background()
		publishDoc(t, env, alice, packDoc("widget", "1.0.0"))
		publishDoc(t, env, alice, packDoc("widget", "1.1.0"))
		if _, _, err := env.Service.YankVersion(ctx, alice.Account, "alice", "widget", "1.1.0", "broken"); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Service.DeprecatePackage(ctx, alice.Account, "alice", "widget", "use alice/gadget"); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Service.SetTrustedPublishingOnly(ctx, alice.Account, nil, "alice", "widget", true); err != nil {
			t.Fatal(err)
		}
		coverLog(t, env)
		page := web.Get("/log")
		whats := regexp.MustCompile(`<span class="tag">([a-z-]+)</span></td>\s*<td data-label="What">(.*?)</td>`).FindAllStringSubmatch(page.Body, -1)
		got := map[string][]string{}
		for _, m := range whats {
			got[m[1]] = append(got[m[1]], html.UnescapeString(m[2]))
		}
		want := map[string][]string{
			"pack-state": {
				`<a href="/alice/widget">alice/widget</a> <span class="muted">latest 1.0.0 · yanked 1.1.0 · deprecated</span>`,
				`<a href="/alice/widget">alice/widget</a> <span class="muted">latest 1.0.0 · yanked 1.1.0</span>`,
				`<a href="/alice/widget">alice/widget</a> <span class="muted">latest 1.1.0</span>`,
				`<a href="/alice/widget">alice/widget</a> <span class="muted">latest 1.0.0</span>`,
			},
			"trusted-publishing-only": {`<a href="/alice/widget">alice/widget</a>`},
		}
		for kind, rows := range want {
			if strings.Join(got[kind], "\n") != strings.Join(rows, "\n") {
				t.Errorf("the %s rows of /log read\n%s\nwant\n%s", kind, strings.Join(got[kind], "\n"), strings.Join(rows, "\n"))
			}
		}
	})
}
