package main_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/storetest"
)

// pactd token create|list|revoke on the host, on both engines.
func TestTokenListAndRevoke(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", storetest.SQLiteDSN}, {"postgres", storetest.PostgresURL}} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db := migrated(t, b.dsn(t))
			run := func(code int, stdin string, args ...string) result {
				t.Helper()
				r := pactd(t, nil, stdin, append(args, "--db", db)...)
				if r.code != code {
					t.Fatalf("pactd %s: exit %d, want %d\nstdout %q\nstderr %q", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
				}
				return r
			}
			wantMatch := func(what, text, pattern string) {
				t.Helper()
				if !regexp.MustCompile(pattern).MatchString(text) {
					t.Errorf("%s = %q, want it to match /%s/", what, text, pattern)
				}
			}
			run(0, "long enough\n", "user", "create", "--email", "a@example.com", "--username", "alice", "--password-stdin")
			run(0, "long enough\n", "user", "create", "--email", "b@example.com", "--username", "bob", "--password-stdin")

			r := run(0, "", "token", "list", "--user", "alice")
			wantMatch("stderr of an empty list", r.stderr, `^alice has no active tokens\n$`)

			token := `^pact_[0-9A-Za-z]{43}\n$`
			wantMatch("full token", run(0, "", "token", "create", "--user", "alice", "--name", "all").stdout, token)
			wantMatch("scoped token", run(0, "", "token", "create", "--user", "alice", "--name", "ci deploy", "--scope", "publish",
				"--scope", "yank", "--package", "widget-*", "--expires-in", "30d").stdout, token)
			wantMatch("read-only token", run(0, "", "token", "create", "--user", "alice", "--name", "read\u200bonly", "--scope", "none", "--expires-in", "720h").stdout, token)
			wantMatch("bob's token", run(0, "", "token", "create", "--user", "bob", "--name", "bobs", "--expires-in", "7").stdout, token)

			// Refused: a lifetime that is not one, an unknown scope, a bad glob.
			for _, c := range []struct {
				code   int
				args   []string
				stderr string
			}{
				{2, []string{"--expires-in", "0d"}, "1 to 3650 days"},
				{2, []string{"--expires-in", "soon"}, "is not a lifetime"},
				{1, []string{"--expires-in", "87601h"}, "within 3650 days"},
				{1, []string{"--scope", "admin"}, `scope "admin" is not known`},
				{1, []string{"--scope", "keys", "--package", "w"}, "add one of them"},
				{1, []string{"--scope", "publish", "--package", "w["}, "not a valid glob"},
			} {
				r := run(c.code, "", append([]string{"token", "create", "--user", "alice"}, c.args...)...)
				if !strings.Contains(r.stderr, c.stderr) || r.stdout != "" {
					t.Errorf("token create %v: stdout %q, stderr %q; want nothing printed and %q", c.args, r.stdout, r.stderr, c.stderr)
				}
			}

			list := run(0, "", "token", "list", "--user", "alice").stdout
			lines := strings.Split(strings.TrimSpace(list), "\n")
			if len(lines) != 4 {
				t.Fatalf("list has %d lines, want a header and 3 tokens:\n%s", len(lines), list)
			}
			wantMatch("header", lines[0], `^ID +NAME +SCOPES +PACKAGES +CREATED +EXPIRES +LAST USED +STATUS$`)
			wantMatch("read-only row", lines[1], `^3 +"read\\u200bonly" +none \(read only\) +all +\S+ \S+ +\S+ \S+ +never +active$`)
			wantMatch("scoped row", lines[2], `^2 +ci deploy +publish,yank +widget-\* +\S+ \S+ +\S+ \S+ +never +active$`)
			wantMatch("full row", lines[3], `^1 +all +all +all +\S+ \S+ +never +never +active$`)
			if strings.Contains(list, "bobs") || strings.Contains(list, "pact_") {
				t.Errorf("alice's list shows bob's token or a secret:\n%s", list)
			}

			var rows []map[string]any
			if err := json.Unmarshal([]byte(run(0, "", "token", "list", "--user", "alice", "--json").stdout), &rows); err != nil {
				t.Fatal(err)
			}
			if len(rows) != 3 || rows[1]["name"] != "ci deploy" || rows[2]["scopes"] != nil || rows[1]["expires_at"] == nil ||
				rows[0]["scopes"] == nil || len(rows[0]["scopes"].([]any)) != 0 {
				t.Errorf("list --json = %v", rows)
			}

			wantMatch("revoke", run(0, "", "token", "revoke", "2").stdout, `^revoked token 2 of alice\n$`)
			wantMatch("revoke again", run(0, "", "token", "revoke", "2").stdout, `^revoked token 2 of alice\n$`)
			wantMatch("revoke bob's", run(0, "", "token", "revoke", "4").stdout, `^revoked token 4 of bob\n$`)
			wantMatch("revoke a missing token", run(1, "", "token", "revoke", "99").stderr, `no token with id 99`)
			wantMatch("revoke a bad id", run(2, "", "token", "revoke", "abc").stderr, `"abc" is not a token id`)
			wantMatch("list of nobody", run(1, "", "token", "list", "--user", "carol").stderr, `carol`)
			wantMatch("list needs --user", run(2, "", "token", "list").stderr, `user`)
			// The list shows active tokens; --all the revoked one too.
			if list := run(0, "", "token", "list", "--user", "alice").stdout; strings.Contains(list, "ci deploy") {
				t.Errorf("the list of active tokens shows the revoked one:\n%s", list)
			}
			wantMatch("revoked row", run(0, "", "token", "list", "--user", "alice", "--all").stdout, `(?m)^2 +ci deploy .* revoked$`)
		})
	}
}

// pactd serve deletes the tokens that ended longer than --token-retention
// ago when it starts (and every hour), and says how many; a shorter
// retention than the token's age keeps it, --token-retention 0 keeps all.
func TestServeDeletesEndedTokens(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"sqlite", storetest.SQLiteDSN}, {"postgres", storetest.PostgresURL}} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			db := b.dsn(t)
			run := func(args ...string) result {
				t.Helper()
				r := pactd(t, nil, "", append(args, "--db", db)...)
				if r.code != 0 {
					t.Fatalf("pactd %s: exit %d\nstderr %q", strings.Join(args, " "), r.code, r.stderr)
				}
				return r
			}
			run("migrate") // host commands other than serve and migrate never make a database
			if r := pactd(t, nil, "long enough\n", "user", "create", "--email", "a@example.com", "--username", "alice", "--password-stdin", "--db", db); r.code != 0 {
				t.Fatalf("user create: %q", r.stderr)
			}
			run("token", "create", "--user", "alice", "--name", "kept")
			run("token", "create", "--user", "alice", "--name", "brief", "--expires-in", "1s")
			if !eventually(10*time.Second, func() bool {
				return regexp.MustCompile(`(?m)^2 +brief .* expired$`).MatchString(run("token", "list", "--user", "alice", "--all").stdout)
			}) {
				t.Fatal("the brief token is not listed as expired with --all")
			}
			deleted := `"msg":"deleted the tokens that ended longer than --token-retention ago","count":1`

			// A week's retention keeps it; 0 keeps everything.
			for _, retention := range []string{"168h", "0"} {
				srv := startPactd(t, db, "--token-retention", retention)
				if err := srv.Stop(); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(srv.Logs(), "deleted the tokens") {
					t.Errorf("--token-retention %s deleted tokens:\n%s", retention, srv.Logs())
				}
			}
			if list := run("token", "list", "--user", "alice", "--all").stdout; !listsToken(list, "brief") {
				t.Fatalf("the brief token was deleted:\n%s", list)
			}

			srv := startPactd(t, db, "--token-retention", "1ms")
			if !eventually(10*time.Second, func() bool { return strings.Contains(srv.Logs(), deleted) }) {
				t.Fatalf("pactd did not log %s:\n%s", deleted, srv.Logs())
			}
			list := run("token", "list", "--user", "alice", "--all").stdout
			if listsToken(list, "brief") || !listsToken(list, "kept") {
				t.Errorf("after serve's pruning, the list is\n%s", list)
			}
		})
	}
}

// listsToken says whether pactd token list's output has a row for the token
// named name.
func listsToken(list, name string) bool {
	return regexp.MustCompile(`(?m)^\d+ +` + regexp.QuoteMeta(name) + ` `).MatchString(list)
}
