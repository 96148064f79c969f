package cmdutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

func TestLoadConfigPrecedence(t *testing.T) {
	tests := []struct {
		name      string
		file      string // config.yaml content; "" for no file
		env       map[string]string
		flags     []string
		wantHost  string
		wantToken string
	}{
		{"default", "", nil, nil, DefaultHost, ""},
		{"config file", "host: http://file\ntoken: file-token\n", nil, nil, "http://file", "file-token"},
		{"environment over file", "host: http://file\ntoken: file-token\n",
			map[string]string{"PACT_HOST": "http://env", "PACT_TOKEN": "env-token"}, nil, "http://env", "env-token"},
		{"flag over environment", "host: http://file\n",
			map[string]string{"PACT_HOST": "http://env", "PACT_TOKEN": "env-token"},
			[]string{"--host", "http://flag", "--token", "flag-token"}, "http://flag", "flag-token"},
		{"empty variable is unset", "host: http://file\n", map[string]string{"PACT_HOST": ""}, nil, "http://file", ""},
		{"environment over default", "", map[string]string{"PACT_HOST": "http://env"}, nil, "http://env", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", dir)
			t.Setenv("PACT_HOST", "")
			t.Setenv("PACT_TOKEN", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			if tc.file != "" {
				writeFile(t, filepath.Join(dir, "pact", "config.yaml"), tc.file)
			}
			flags := pflag.NewFlagSet("pact", pflag.ContinueOnError)
			flags.String("host", DefaultHost, "")
			flags.String("token", "", "")
			if err := flags.Parse(tc.flags); err != nil {
				t.Fatal(err)
			}
			cfg, err := loadConfig(newSettings(flags))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tc.wantHost || cfg.Token != tc.wantToken {
				t.Errorf("host %q token %q, want %q %q", cfg.Host, cfg.Token, tc.wantHost, tc.wantToken)
			}
			// Only a host nobody named is the default one, for messages.
			if cfg.HostIsDefault != (tc.name == "default") {
				t.Errorf("HostIsDefault = %v", cfg.HostIsDefault)
			}
		})
	}
}

// A stored token is the token of the registry it was stored for only;
// --token and PACT_TOKEN go to any.
func TestLoadConfigTokensPerHost(t *testing.T) {
	hosts := "host: https://Pact.Example.com/\nhosts:\n  https://pact.example.com:\n    token: example-token\n" +
		"  http://localhost:9000:\n    token: local-token\n"
	tests := []struct {
		name       string
		file       string
		env        map[string]string
		flags      []string
		wantHost   string
		wantToken  string
		wantSource string
	}{
		{"the default host's", hosts, nil, nil, "https://Pact.Example.com/", "example-token", "config"},
		{"another stored host's", hosts, nil, []string{"--host", "localhost:9000"}, "http://localhost:9000", "local-token", "config"},
		{"the same host spelled otherwise", hosts, nil, []string{"--host", "HTTPS://pact.example.com:443/"}, "HTTPS://pact.example.com:443/", "example-token", "config"},
		{"none for a host without one", hosts, nil, []string{"--host", "https://other.example.com"}, "https://other.example.com", "", ""},
		{"none for another port", hosts, map[string]string{"PACT_HOST": "localhost:9001"}, nil, "http://localhost:9001", "", ""},
		{"none for another scheme", hosts, nil, []string{"--host", "http://pact.example.com"}, "http://pact.example.com", "", ""},
		{"none for a path below", hosts, nil, []string{"--host", "https://pact.example.com/evil"}, "https://pact.example.com/evil", "", ""},
		{"PACT_TOKEN to any host", hosts, map[string]string{"PACT_TOKEN": "env-token"}, []string{"--host", "https://other.example.com"},
			"https://other.example.com", "env-token", "PACT_TOKEN"},
		{"--token to any host", hosts, nil, []string{"--host", "https://other.example.com", "--token", "flag-token"},
			"https://other.example.com", "flag-token", "--token"},
		{"an old file's token is its host's", "host: http://old:8080\ntoken: old-token\n", nil, nil, "http://old:8080", "old-token", "config"},
		{"and no other's", "host: http://old:8080\ntoken: old-token\n", nil, []string{"--host", "http://new:8080"}, "http://new:8080", "", ""},
		{"an old file's token without host is the default host's", "token: old-token\n", nil, nil, DefaultHost, "old-token", "config"},
		{"hosts beat the old token", "host: http://old:8080\ntoken: old-token\nhosts:\n  http://old:8080:\n    token: new-token\n",
			nil, nil, "http://old:8080", "new-token", "config"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", dir)
			t.Setenv("PACT_HOST", "")
			t.Setenv("PACT_TOKEN", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			writeFile(t, filepath.Join(dir, "pact", "config.yaml"), tc.file)
			flags := pflag.NewFlagSet("pact", pflag.ContinueOnError)
			flags.String("host", "", "")
			flags.String("token", "", "")
			if err := flags.Parse(tc.flags); err != nil {
				t.Fatal(err)
			}
			cfg, err := loadConfig(newSettings(flags))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host != tc.wantHost || cfg.Token != tc.wantToken || cfg.TokenSource != tc.wantSource {
				t.Errorf("host %q token %q from %q, want %q %q from %q", cfg.Host, cfg.Token, cfg.TokenSource, tc.wantHost, tc.wantToken, tc.wantSource)
			}
		})
	}
}

func TestHostKey(t *testing.T) {
	for in, want := range map[string]string{
		"pact.example.com":              "https://pact.example.com",
		"HTTPS://Pact.Example.COM:443/": "https://pact.example.com",
		"http://localhost:80":           "http://localhost",
		"localhost:8080":                "http://localhost:8080",
		"https://pact.example.com:8443": "https://pact.example.com:8443",
		"https://example.com/pact/":     "https://example.com/pact",
		"[::1]:8080":                    "http://[::1]:8080",
		"http://[::1]:80/":              "http://[::1]",
		// An address copied from the API's URL is the registry's.
		"https://pact.example.com/api": "https://pact.example.com",
		"pact.example.com/api/":        "https://pact.example.com",
		"https://example.com/pact/api": "https://example.com/pact",
		"https://api.example.com":      "https://api.example.com",
		"https://example.com/apidocs":  "https://example.com/apidocs",
	} {
		if got := HostKey(in); got != want {
			t.Errorf("hostKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// The first write moves an old file's token under hosts, as its host's.
func TestUpdateConfigFileMovesTheOldToken(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"host: http://old:8080\ntoken: t\nlog_keys:\n    http://old:8080: k\n",
			"host: http://old:8080\nhosts:\n    http://old:8080:\n        token: t\nlog_keys:\n    http://old:8080: k\n"},
		{"token: t\n", "hosts:\n    " + DefaultHost + ":\n        token: t\n"},
		{"host: http://old:8080\ntoken: old\nhosts:\n    http://old:8080:\n        token: new\n",
			"host: http://old:8080\nhosts:\n    http://old:8080:\n        token: new\n"},
	} {
		path := filepath.Join(t.TempDir(), "pact", "config.yaml")
		writeFile(t, path, tc.file)
		if err := UpdateConfigFile(path, func(map[string]any) {}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != tc.want {
			t.Errorf("from %q:\n%s\nwant\n%s", tc.file, data, tc.want)
		}
	}
}

func TestConfigPathFallsBackToDotConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	env := newSettings(pflag.NewFlagSet("pact", pflag.ContinueOnError))
	got, err := configPath(env)
	if err != nil || got != filepath.Join(home, ".config", "pact", "config.yaml") {
		t.Errorf("configPath = %q, %v", got, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/dir") // the XDG spec says to ignore relative paths
	if got2, _ := configPath(env); got2 != got {
		t.Errorf("relative XDG_CONFIG_HOME used: %q", got2)
	}
}

func TestUpdateConfigFileKeepsOtherSettingsAndIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pact")
	path := filepath.Join(dir, "config.yaml")
	writeFile(t, path, "host: http://old\nextra: kept\n")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	err := UpdateConfigFile(path, func(s map[string]any) {
		s["host"] = "http://new"
		s["token"] = "t"
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "extra: kept\nhost: http://new\ntoken: t\n" {
		t.Errorf("config file = %q", data)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s mode %#o, want %#o", p, info.Mode().Perm(), want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
