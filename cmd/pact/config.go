package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
)

const defaultHost = "http://localhost:8080"

// config is what pact knows about the server it talks to, resolved once
// with the precedence flag > environment > config file > default.
type config struct {
	Host  string
	Token string
	// Path is the config file, whether it exists or not.
	Path string
	// HostIsDefault says no flag, variable or config file named the host.
	HostIsDefault bool
}

// configPath is $XDG_CONFIG_HOME/pact/config.yaml, or ~/.config/pact/config.yaml.
func configPath() (string, error) {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "pact", "config.yaml"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the config directory: set XDG_CONFIG_HOME or HOME: %w", err)
	}
	return filepath.Join(home, ".config", "pact", "config.yaml"), nil
}

// loadConfig resolves host and token from the global flags, PACT_HOST and
// PACT_TOKEN, and the config file.
func loadConfig(flags *pflag.FlagSet) (*config, error) {
	path, err := configPath()
	if err != nil {
		return nil, err
	}
	v := viper.New()
	v.SetDefault("host", defaultHost)
	for key, env := range map[string]string{"host": "PACT_HOST", "token": "PACT_TOKEN"} {
		if err := v.BindEnv(key, env); err != nil {
			return nil, err
		}
		if err := v.BindPFlag(key, flags.Lookup(key)); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(path); err == nil {
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	hostSet := flags.Changed("host") || os.Getenv("PACT_HOST") != "" || v.InConfig("host")
	return &config{
		Host: hostAddress(v.GetString("host")), Token: v.GetString("token"), Path: path,
		HostIsDefault: !hostSet,
	}, nil
}

// parseTimeout reads --timeout: a duration ("30s", "2m"), or whole seconds;
// "" and "0" mean no bound.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if secs, aerr := strconv.Atoi(s); aerr == nil {
			d, err = time.Duration(secs)*time.Second, nil
		}
	}
	if err != nil || d < 0 {
		return 0, usageErrorf("--timeout (or PACT_TIMEOUT) %q is not a duration such as 30s or 2m", s)
	}
	return d, nil
}

// hostAddress completes a registry address given without a scheme:
// http:// for localhost and loopback addresses, https:// for any other.
func hostAddress(host string) string {
	host = strings.TrimSpace(host)
	if host == "" || strings.Contains(host, "://") {
		return host
	}
	name := host
	if i := strings.IndexAny(name, "/?#"); i >= 0 {
		name = name[:i]
	}
	if h, _, err := net.SplitHostPort(name); err == nil {
		name = h
	}
	name = strings.Trim(name, "[]")
	if isLoopback(name) {
		return "http://" + host
	}
	return "https://" + host
}

func isLoopback(name string) bool {
	if strings.EqualFold(name, "localhost") || strings.HasSuffix(strings.ToLower(name), ".localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// updateConfigFile rewrites the config file through change. The directory
// is made 0700 and the file 0600, since it holds the token; the file is
// replaced atomically so a crash never leaves half a config, and a config
// that is a symbolic link (into a dotfiles repository, say) stays one.
func updateConfigFile(path string, change func(settings map[string]any)) error {
	settings := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := yaml.Unmarshal(data, &settings); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if settings == nil {
			settings = map[string]any{}
		}
	}
	change(settings)

	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil { // tighten a directory made by hand
		return err
	}
	out, err := yaml.Marshal(settings)
	if err != nil {
		return err
	}
	return saveFile(path, out, 0o600, 0o700)
}
