package main_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pact-registry/pact/internal/pactdtest"
)

// refusedServe runs pactd serve with a fresh database path and returns its
// result; a pactd that starts instead of refusing is stopped after a while
// and reported.
func refusedServe(t *testing.T, env []string, args ...string) (result, string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "p.db")
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pactdBin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db}, args...)...)
	cmd.Env = append(pactdtest.CleanEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout.String(), stderr.String(), 0}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("pactd serve %v started instead of refusing its settings:\n%s", args, stdout.String())
	}
	return r, db
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every setting, from a flag, the environment or the config file, is
// checked like a flag: a bad type, an unknown name or a value that makes
// no sense stops serve with exit code 2 before it listens or touches the
// database, and the message names the source, the key and the value.
func TestServeRefusesBadSettingsFromEverySource(t *testing.T) {
	t.Parallel()
	type file struct{ name, content string }
	cases := []struct {
		name string
		env  []string
		file file // written to a temporary directory; FILE in args, env and want is its path
		args []string
		want string
	}{
		{name: "flag, bad type", args: []string{"--rate-ip", "fast"},
			want: `pactd: flag --rate-ip: "fast" is not a number`},
		{name: "flag, unknown", args: []string{"--adr", ":80"},
			want: `pactd: unknown flag: --adr`},
		{name: "flag, bad meaning", args: []string{"--rate-ip", "-1"},
			want: `pactd: flag --rate-ip: "-1" is negative (0 turns the limit off)`},
		{name: "flag, bad meaning of a /log limit", args: []string{"--rate-log-ip", "-1"},
			want: `pactd: flag --rate-log-ip: "-1" is negative (0 turns the limit off)`},
		{name: "flag, a negative bound of held waits", args: []string{"--log-waits-ip", "-1"},
			want: `pactd: flag --log-waits-ip: "-1" is negative (0 means no bound)`},

		{name: "environment, bad type", env: []string{"PACTD_RATE_IP=fast"},
			want: `pactd: environment PACTD_RATE_IP: "fast" is not a number`},
		{name: "environment, unknown", env: []string{"PACTD_ADR=:80"},
			want: `pactd: environment: unknown variable PACTD_ADR (did you mean PACTD_ADDR?)`},
		{name: "environment, bad meaning", env: []string{"PACTD_SIGNUP=maybe"},
			want: `pactd: environment PACTD_SIGNUP: "maybe" is neither open nor closed`},

		{name: "yaml file, bad type", file: file{"pact.yaml", "rate-ip: fast\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: rate-ip: "fast" is not a number`},
		{name: "yaml file, unknown key", file: file{"pact.yaml", "adr: \":80\"\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: unknown key "adr" (did you mean "addr"?)`},
		{name: "yaml file, bad meaning", file: file{"pact.yaml", "base-url: ftp://pact.example\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: base-url: "ftp://pact.example" is not an absolute http(s) URL`},
		{name: "environment, bad public URL of the blob store", env: []string{"PACTD_BLOBS_PUBLIC_URL=cdn.example.com"},
			want: `pactd: environment PACTD_BLOBS_PUBLIC_URL: "cdn.example.com" is not an absolute http(s) URL`},
		{name: "yaml file, bad public URL of the blob store", file: file{"pact.yaml", "blobs-public-url: ftp://cdn.example\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: blobs-public-url: "ftp://cdn.example" is not an absolute http(s) URL`},

		{name: "toml file, bad type", file: file{"pact.toml", "read-timeout = 30\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: read-timeout: "30" is not a duration such as 30s`},
		{name: "json file, bad meaning", file: file{"pact.json", `{"max-body": 0}`}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: max-body: "0" is not a positive number of bytes`},
		{name: "file named by PACTD_CONFIG", file: file{"pact.yml", "login-attempts: 0\n"}, env: []string{"PACTD_CONFIG=FILE"},
			want: `pactd: config file FILE: login-attempts: "0" is less than 1`},
		{name: "key without a value", file: file{"pact.yaml", "signup:\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: signup: has no value`},
		{name: "a list for a single value", file: file{"pact.yaml", "rate-ip: [1, 2]\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: rate-ip: is a list, but --rate-ip takes one value`},
		{name: "a key set twice", file: file{"pact.yaml", "addr: :1\naddr: :2\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: addr: set twice (line 2)`},
		{name: "a file that is not a mapping", file: file{"pact.yaml", "- addr\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: must hold settings as keys and values`},
		{name: "a file of unknown format", file: file{"pact.conf", "addr: :1\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: cannot tell its format from ".conf"`},
		{name: "a missing file", args: []string{"--config", "/nonexistent/pact.yaml"},
			want: `pactd: config file /nonexistent/pact.yaml: no such file`},
		{name: "a bad file value under a flag", file: file{"pact.yaml", "rate-ip: fast\n"}, args: []string{"--config", "FILE", "--rate-ip", "5"},
			want: `pactd: config file FILE: rate-ip: "fast" is not a number`},
		{name: "a lower-case variable", env: []string{"PACTD_rate_ip=5"},
			want: `pactd: environment: unknown variable PACTD_rate_ip (did you mean PACTD_RATE_IP?)`},
		{name: "an empty number", env: []string{"PACTD_RATE_TOKEN="},
			want: `pactd: environment PACTD_RATE_TOKEN: "" is not a number`},
		{name: "a rate that is not finite", env: []string{"PACTD_RATE_KEY=NaN"},
			want: `pactd: environment PACTD_RATE_KEY: "NaN" is not a finite number`},
		{name: "a burst of 0 while the limit is on", args: []string{"--rate-key-burst", "0"},
			want: `pactd: flag --rate-key-burst: "0" is less than 1 while --rate-key is on`},
		{name: "a timeout of 0", env: []string{"PACTD_READ_HEADER_TIMEOUT=0s"},
			want: `pactd: environment PACTD_READ_HEADER_TIMEOUT: "0s" is not a positive duration`},
		{name: "a whole number out of range", args: []string{"--max-body", "99999999999999999999"},
			want: `pactd: flag --max-body: "99999999999999999999" is out of range`},
		{name: "a proxy that is not an address", env: []string{"PACTD_TRUSTED_PROXIES=10.0.0.1,proxy.internal"},
			want: `pactd: environment PACTD_TRUSTED_PROXIES: "10.0.0.1,proxy.internal" holds "proxy.internal", which is neither an IP address nor a CIDR`},
		{name: "a proxy list in a file", file: file{"pact.yaml", "trusted-proxies: [10.0.0.0/8, 300.1.1.1]\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: trusted-proxies: "10.0.0.0/8,300.1.1.1" holds "300.1.1.1"`},
		{name: "an OIDC issuer over plain http", args: []string{"--oidc-issuer", "https://token.actions.githubusercontent.com", "--oidc-issuer", "http://idp.example.com"},
			want: `pactd: flag --oidc-issuer: "https://token.actions.githubusercontent.com,http://idp.example.com" holds "http://idp.example.com", which is not an https URL`},
		{name: "an OIDC issuer that is no URL", env: []string{"PACTD_OIDC_ISSUER=gitlab.com"},
			want: `pactd: environment PACTD_OIDC_ISSUER: "gitlab.com" holds "gitlab.com", which is not an https URL`},
		{name: "a user's share of the webhook workers past them", env: []string{"PACTD_WEBHOOK_DELIVERIES_PER_USER=9"},
			want: `pactd: environment PACTD_WEBHOOK_DELIVERIES_PER_USER: "9" must be 1 to 8, the workers of one pactd`},
		{name: "no share of the webhook workers", args: []string{"--webhook-deliveries-per-user", "0"},
			want: `pactd: flag --webhook-deliveries-per-user: "0" must be 1 to 8, the workers of one pactd`},
		{name: "a negative queue wait", args: []string{"--publish-queue-wait=-1s"},
			want: `pactd: flag --publish-queue-wait: "-1s" is a negative duration`},
		{name: "an address without a port", args: []string{"--addr", "localhost"},
			want: `pactd: flag --addr: "localhost" is not an address to listen on`},
		{name: "a metrics address without a port", env: []string{"PACTD_METRICS_ADDR=localhost"},
			want: `pactd: environment PACTD_METRICS_ADDR: "localhost" is not an address to listen on`},
		{name: "a base URL with a query", args: []string{"--base-url", "https://pact.example/?x=1"},
			want: `pactd: flag --base-url: "https://pact.example/?x=1" is not an absolute http(s) URL`},
		{name: "a negative pool", args: []string{"--db-max-conns", "-1"},
			want: `pactd: flag --db-max-conns: "-1" is not a number of connections from 1 to 1000 (or 0, the default)`},
		{name: "a pool too large", env: []string{"PACTD_DB_MAX_CONNS=100000"},
			want: `pactd: environment PACTD_DB_MAX_CONNS: "100000" is not a number of connections from 1 to 1000`},
		{name: "a statement timeout under a millisecond", env: []string{"PACTD_DB_STATEMENT_TIMEOUT=500us"},
			want: `pactd: environment PACTD_DB_STATEMENT_TIMEOUT: "500us" is not a duration of at least 1ms`},
		{name: "a busy timeout of 0", file: file{"pact.yaml", "db-busy-timeout: 0s\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: db-busy-timeout: "0s" is not a duration of at least 1ms`},
		{name: "a negative read cache", file: file{"pact.toml", "db-read-cache-bytes = -1\n"}, args: []string{"--config", "FILE"},
			want: `pactd: config file FILE: db-read-cache-bytes: "-1" is a negative number of bytes (0 turns the cache off)`},
		{name: "a read cache size that is not a number", args: []string{"--db-read-cache-bytes", "16MiB"},
			want: `pactd: flag --db-read-cache-bytes: "16MiB" is not a whole number`},
		{name: "a PostgreSQL cache setting with SQLite", args: []string{"--db-read-cache-ttl", "5s"},
			want: `pactd: flag --db-read-cache-ttl: "5s" applies to PostgreSQL only, and --db is a SQLite file`},
		{name: "a negative token retention", env: []string{"PACTD_TOKEN_RETENTION=-24h"},
			want: `pactd: environment PACTD_TOKEN_RETENTION: "-24h" is a negative duration (0 keeps every token)`},
		{name: "a SQLite lock setting with PostgreSQL", file: file{"pact.yaml", "db-busy-timeout: 1s\n"}, args: []string{"--config", "FILE", "--db", "postgresql://pact@db.invalid/pact"},
			want: `pactd: config file FILE: db-busy-timeout: "1s" applies to SQLite only, and --db is a PostgreSQL URL`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := ""
			if tc.file.name != "" {
				path = writeFile(t, tc.file.name, tc.file.content)
			}
			fill := func(s string) string { return strings.ReplaceAll(s, "FILE", path) }
			var args, env []string
			for _, a := range tc.args {
				args = append(args, fill(a))
			}
			for _, e := range tc.env {
				env = append(env, fill(e))
			}
			r, db := refusedServe(t, env, args...)
			if r.code != 2 || !strings.HasPrefix(r.stderr, fill(tc.want)) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit code %d (want 2)\nstderr %q\nwant it to start with %q", r.code, r.stderr, fill(tc.want))
			}
			if strings.Contains(r.stdout, "listening") {
				t.Errorf("pactd listened: %q", r.stdout)
			}
			if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the database was created (%v) though the settings were refused", err)
			}
		})
	}
}

// secondStatus sends two GET /api/packages, the i-th with the
// X-Forwarded-For forwardedFor[i] if given, and returns the second status.
func secondStatus(t *testing.T, base string, forwardedFor ...string) int {
	t.Helper()
	status := 0
	for i := 0; i < 2; i++ {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/packages", nil)
		if i < len(forwardedFor) && forwardedFor[i] != "" {
			req.Header.Set("X-Forwarded-For", forwardedFor[i])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		status = resp.StatusCode
	}
	return status
}

// A setting from the environment or the file reaches the server with its
// type: a per-address limit of one request allows one request, whichever
// source gave it, and a higher source wins.
func TestServeSettingsTakeEffectFromEverySource(t *testing.T) {
	limitFile := writeFile(t, "pact.yaml", "rate-ip: 0.01\nrate-ip-burst: 1\n")
	proxyFile := writeFile(t, "proxy.yaml", "rate-ip: \"0.01\"\nrate-ip-burst: 1\ntrusted-proxies:\n  - 127.0.0.1\n")
	tomlFile := writeFile(t, "pact.toml", "rate-ip = 0.01\nrate-ip-burst = 1\n")
	cases := []struct {
		name         string
		env          []string
		args         []string
		forwardedFor []string
		want         int
	}{
		{"flag", nil, []string{"--rate-ip", "0.01", "--rate-ip-burst", "1"}, nil, http.StatusTooManyRequests},
		{"environment", []string{"PACTD_RATE_IP=0.01", "PACTD_RATE_IP_BURST=1"}, nil, nil, http.StatusTooManyRequests},
		{"yaml file", nil, []string{"--config", limitFile}, nil, http.StatusTooManyRequests},
		{"toml file", nil, []string{"--config", tomlFile}, nil, http.StatusTooManyRequests},
		{"environment beats file", []string{"PACTD_RATE_IP=0"}, []string{"--config", limitFile}, nil, http.StatusOK},
		{"flag beats environment", []string{"PACTD_RATE_IP=0.01", "PACTD_RATE_IP_BURST=1"}, []string{"--rate-ip", "0"}, nil, http.StatusOK},
		{"a list from a file", nil, []string{"--config", proxyFile}, []string{"203.0.113.1", "203.0.113.2"}, http.StatusOK},
		{"a list from the environment replaces the file's", []string{"PACTD_TRUSTED_PROXIES=10.9.9.9"}, []string{"--config", proxyFile},
			[]string{"203.0.113.1", "203.0.113.2"}, http.StatusTooManyRequests},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(pactdBin, append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "p.db")}, tc.args...)...)
			cmd.Env = append(pactdtest.CleanEnv(), tc.env...)
			base := startedURL(t, cmd)
			if got := secondStatus(t, base, tc.forwardedFor...); got != tc.want {
				t.Errorf("second request: %d, want %d", got, tc.want)
			}
		})
	}
}

var announced = regexp.MustCompile(`listening on \S+ \((\S+)\)`)

// startedURL starts cmd (a pactd serve) and returns its base URL; the test
// stops it.
func startedURL(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make([]byte, 512)
	n, _ := out.Read(line)
	m := announced.FindSubmatch(line[:n])
	if m == nil {
		cmd.Wait()
		t.Fatalf("pactd serve announced %q; stderr %q", line[:n], stderr.String())
	}
	return string(m[1])
}

// The admin commands share the environment and config file with serve:
// serve's settings there do not disturb them, --db is read from both, and
// unknown keys are refused as they are by serve.
func TestAdminCommandsShareSettingsWithServe(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "from-file.db")
	shared := writeFile(t, "pact.yaml", "db: "+db+"\naddr: 127.0.0.1:0\nrate-ip: 5\ntrusted-proxies: [10.0.0.1]\nsignup: closed\n")
	r := pactd(t, []string{"PACTD_RATE_IP=2", "PACTD_SIGNUP=closed"}, "", "migrate", "--config", shared)
	if r.code != 0 || r.stdout != "database is up to date\n" {
		t.Fatalf("migrate --config with serve's settings: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("migrate did not use the file's db: %v", err)
	}

	envDB := filepath.Join(dir, "from-env.db")
	fromEnv := []string{"PACTD_DB=" + envDB, "PACTD_CONFIG=" + shared}
	if r = pactd(t, fromEnv, "", "migrate"); r.code != 0 {
		t.Fatalf("migrate with PACTD_DB: code %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(envDB); err != nil {
		t.Errorf("PACTD_DB did not beat the file's db: %v", err)
	}
	r = pactd(t, fromEnv, "long enough\n", "user", "create", "--email", "a@example.com", "--username", "alice", "--password-stdin")
	if r.code != 0 {
		t.Fatalf("user create with PACTD_DB: code %d, stderr %q", r.code, r.stderr)
	}

	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"unknown key", nil, []string{"migrate", "--config", writeFile(t, "bad.yaml", "dbb: x.db\n")}, `unknown key "dbb" (did you mean "db"?)`},
		{"unknown variable", []string{"PACTD_DBB=x.db"}, []string{"dump", "--db", envDB}, `unknown variable PACTD_DBB (did you mean PACTD_DB?)`},
		{"empty db", []string{"PACTD_DB="}, []string{"token", "create", "--user", "alice"}, `--db is empty`},
	} {
		r := pactd(t, tc.env, "", tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: code %d, stderr %q, want exit code 2 and %q", tc.name, r.code, r.stderr, tc.want)
		}
	}
}
