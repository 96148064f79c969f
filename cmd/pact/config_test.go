package main

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
		{"default", "", nil, nil, defaultHost, ""},
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
			flags.String("host", defaultHost, "")
			flags.String("token", "", "")
			if err := flags.Parse(tc.flags); err != nil {
				t.Fatal(err)
			}
			cfg, err := loadConfig(flags)
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

func TestConfigPathFallsBackToDotConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	got, err := configPath()
	if err != nil || got != filepath.Join(home, ".config", "pact", "config.yaml") {
		t.Errorf("configPath = %q, %v", got, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/dir") // the XDG spec says to ignore relative paths
	if got2, _ := configPath(); got2 != got {
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
	err := updateConfigFile(path, func(s map[string]any) {
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
