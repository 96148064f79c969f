package cmdutil

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
)

const DefaultHost = "http://localhost:8080"

// Config is what pact knows about the server it talks to, resolved once
// with the precedence flag > environment > config file > default.
//
// The config file keeps a token per registry, under hosts keyed by the
// registry's address (hostKey), and a default registry under host, the
// last one logged in to:
//
//	host: https://pact.example.com
//	hosts:
//	  https://pact.example.com:
//	    token: pact_...
//	  http://localhost:8080:
//	    token: pact_...
//
// A stored token is only ever sent to the registry it was stored for; a
// token given with --token or PACT_TOKEN goes to whichever registry the
// command talks to, as the user chose. Before hosts, the file held one
// token beside host; it is read as that host's and moved under hosts by
// the next write (UpdateConfigFile).
type Config struct {
	Host  string
	Token string
	// TokenSource says where Token came from: "--token", "PACT_TOKEN",
	// the config file ("config"), or "" when there is none.
	TokenSource string
	// Path is the config file, whether it exists or not.
	Path string
	// HostIsDefault says no flag, variable or config file named the host.
	HostIsDefault bool
	// HostChosen says --host or PACT_HOST named the host.
	HostChosen bool
	// DefaultHost is the registry the config file names (pact login sets
	// it); "" when none.
	DefaultHost string
	// Stored are the tokens of the config file by hostKey.
	Stored map[string]string
}

// Setting names of the config file.
const (
	HostSetting   = "host"
	hostsSetting  = "hosts"
	tokenSetting  = "token"
	legacyDefault = DefaultHost // the registry of a token stored without host
)

// settingEnv names the environment variable of each setting pact reads
// from its environment. The keys that are also global flags (host, token,
// timeout) take the flag first.
var settingEnv = map[string]string{
	"host":    "PACT_HOST",
	"token":   "PACT_TOKEN",
	"timeout": "PACT_TIMEOUT",
	// The log's verifier key and witness policy file, after --log-key and
	// --log-policy (VerifyFlags).
	"log-key":    "PACT_LOG_KEY",
	"log-policy": "PACT_LOG_POLICY",
	// A CI job's ID token: GitLab's, or where GitHub Actions serves one.
	"id-token":                      "PACT_ID_TOKEN",
	"github-id-token-url":           "ACTIONS_ID_TOKEN_REQUEST_URL",
	"github-id-token-request-token": "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	"ssh-agent":                     "SSH_AUTH_SOCK",
	"config-home":                   "XDG_CONFIG_HOME",
	"no-color":                      "NO_COLOR",
	"term":                          "TERM",
}

// Settings are what pact reads from its global flags and its environment,
// all through one viper: this is the only place pact reads either. A flag
// the user gave wins over its variable; an empty variable counts as unset.
// Each value knows where it came from, for the messages that name it.
type Settings struct {
	v     *viper.Viper
	flags *pflag.FlagSet
}

// newSettings binds every setting to its variable, and the global flags
// among them to their flags; values are read when asked for.
func newSettings(flags *pflag.FlagSet) *Settings {
	v := viper.New()
	for key, env := range settingEnv {
		// The variable alone, under its own name, for env.
		if err := v.BindEnv(env, env); err != nil {
			panic(err) // only for a missing name
		}
		if err := v.BindEnv(key, env); err != nil {
			panic(err)
		}
		if fl := flags.Lookup(key); fl != nil {
			if err := v.BindPFlag(key, fl); err != nil {
				panic(err)
			}
		}
	}
	return &Settings{v: v, flags: flags}
}

// lookup is a setting's value and where it came from: the flag ("--host")
// when the user gave it, else the variable ("PACT_HOST") when it is set,
// else "" from "".
func (s *Settings) lookup(key string) (value, source string) {
	if _, ok := settingEnv[key]; !ok {
		panic("no setting " + key)
	}
	if fl := s.flags.Lookup(key); fl != nil && fl.Changed {
		return s.v.GetString(key), "--" + key
	}
	if value := s.v.GetString(settingEnv[key]); value != "" {
		return value, settingEnv[key]
	}
	return "", ""
}

// Env is the value of one of the variables of settingEnv, "" when unset,
// whatever the flags say.
func (s *Settings) Env(name string) string {
	for _, env := range settingEnv {
		if env == name {
			return s.v.GetString(name)
		}
	}
	panic("pact reads no variable " + name)
}

// configPath is $XDG_CONFIG_HOME/pact/config.yaml, or ~/.config/pact/config.yaml.
func configPath(s *Settings) (string, error) {
	if dir := s.Env("XDG_CONFIG_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "pact", "config.yaml"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the config directory: set XDG_CONFIG_HOME or HOME: %w", err)
	}
	return filepath.Join(home, ".config", "pact", "config.yaml"), nil
}

// ConfigFile is what pact reads of the config file. It is read with yaml
// directly: viper splits keys at dots, and addresses are full of them.
type ConfigFile struct {
	Host string `yaml:"host"`
	// Token is the single token of a file written before hosts: host's.
	Token string                `yaml:"token"`
	Hosts map[string]hostConfig `yaml:"hosts"`
}

type hostConfig struct {
	Token string `yaml:"token"`
}

func ReadConfigFile(path string) (*ConfigFile, error) {
	var file ConfigFile
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &file, nil
	}
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &file, nil
}

// Tokens are the stored tokens by hostKey, the old single one included.
func (file *ConfigFile) Tokens() map[string]string {
	stored := map[string]string{}
	if token := strings.TrimSpace(file.Token); token != "" {
		stored[HostKey(cmp.Or(strings.TrimSpace(file.Host), legacyDefault))] = token
	}
	for host, h := range file.Hosts {
		if token := strings.TrimSpace(h.Token); token != "" {
			stored[HostKey(host)] = token
		}
	}
	return stored
}

// loadConfig resolves host and token from the settings (--host and
// PACT_HOST, --token and PACT_TOKEN) and the config file.
func loadConfig(s *Settings) (*Config, error) {
	path, err := configPath(s)
	if err != nil {
		return nil, err
	}
	file, err := ReadConfigFile(path)
	if err != nil {
		return nil, err
	}
	fileHost := strings.TrimSpace(file.Host)
	host, hostSource := s.lookup("host")
	chosen := hostSource != ""
	if !chosen {
		host = cmp.Or(fileHost, DefaultHost)
	}
	cfg := &Config{
		Host: HostAddress(host), Path: path,
		HostIsDefault: !chosen && fileHost == "", HostChosen: chosen,
		Stored: file.Tokens(),
	}
	if fileHost != "" {
		cfg.DefaultHost = HostKey(fileHost)
	}
	switch token, source := s.lookup("token"); {
	case source != "":
		cfg.Token, cfg.TokenSource = token, source
	default:
		// Only the token stored for this very registry.
		if token := cfg.Stored[HostKey(cfg.Host)]; token != "" {
			cfg.Token, cfg.TokenSource = token, "config"
		}
	}
	return cfg, nil
}

// HostKey is the registry address credentials are stored under: scheme
// and host in lower case, without a default port or a trailing slash, so
// that every spelling of one address finds the same token and no other
// address does.
func HostKey(address string) string {
	address = HostAddress(address)
	u, err := url.Parse(address)
	if err != nil || u.Host == "" {
		return strings.TrimRight(address, "/")
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" && !(scheme == "https" && port == "443") && !(scheme == "http" && port == "80") {
		host += ":" + port
	}
	return scheme + "://" + host + strings.TrimRight(u.EscapedPath(), "/")
}

// HostAddress completes a registry address given without a scheme:
// http:// for localhost and loopback addresses, https:// for any other.
// An address ending in /api is taken without it (withoutAPIPath).
func HostAddress(host string) string {
	host = strings.TrimSpace(host)
	if host == "" || strings.Contains(host, "://") {
		return withoutAPIPath(host)
	}
	return withoutAPIPath(withScheme(host))
}

// withoutAPIPath drops a trailing /api from an address: pact adds /api/…
// itself, and an address copied from an API request's URL would otherwise
// ask for /api/api/packages and get "not found".
func withoutAPIPath(address string) string {
	u, err := url.Parse(address)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return address
	}
	path := strings.TrimRight(u.Path, "/")
	if path != "/api" && !strings.HasSuffix(path, "/api") {
		return address
	}
	u.Path, u.RawPath = strings.TrimSuffix(path, "/api"), ""
	return u.String()
}

func withScheme(host string) string {
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

// UpdateConfigFile rewrites the config file through change. The directory
// is made 0700 and the file 0600, since it holds the token; the file is
// replaced atomically so a crash never leaves half a config, and a config
// that is a symbolic link (into a dotfiles repository, say) stays one.
func UpdateConfigFile(path string, change func(settings map[string]any)) error {
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
	migrateToken(settings)
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
	return SaveFile(path, out, 0o600, 0o700)
}

// migrateToken moves the single token of a config file written before
// hosts under hosts, as the token of the host beside it.
func migrateToken(settings map[string]any) {
	token, ok := settings[tokenSetting]
	if !ok {
		return
	}
	delete(settings, tokenSetting)
	text, _ := token.(string)
	if strings.TrimSpace(text) == "" {
		return
	}
	host, _ := settings[HostSetting].(string)
	key := HostKey(cmp.Or(strings.TrimSpace(host), legacyDefault))
	if storedToken(settings, key) == "" {
		SetStoredToken(settings, key, strings.TrimSpace(text))
	}
}

// hostSettings is the hosts map of the config file's settings, made when
// create is true and it is missing.
func hostSettings(settings map[string]any, create bool) map[string]any {
	hosts, _ := settings[hostsSetting].(map[string]any)
	if hosts == nil && create {
		hosts = map[string]any{}
		settings[hostsSetting] = hosts
	}
	return hosts
}

// storedToken is the token stored for the host key in settings, or "".
func storedToken(settings map[string]any, key string) string {
	for host, entry := range hostSettings(settings, false) {
		if m, ok := entry.(map[string]any); ok && HostKey(host) == key {
			if token, ok := m[tokenSetting].(string); ok {
				return token
			}
		}
	}
	return ""
}

// SetStoredToken stores token for the host key in settings.
func SetStoredToken(settings map[string]any, key, token string) {
	RemoveStoredToken(settings, key)
	hostSettings(settings, true)[key] = map[string]any{tokenSetting: token}
}

// RemoveStoredToken forgets the token stored for the host key, however its
// address was spelled; it says whether there was one.
func RemoveStoredToken(settings map[string]any, key string) bool {
	hosts := hostSettings(settings, false)
	removed := false
	for host, entry := range hosts {
		if HostKey(host) != key {
			continue
		}
		if m, ok := entry.(map[string]any); ok {
			if token, _ := m[tokenSetting].(string); token != "" {
				removed = true
			}
		}
		delete(hosts, host)
	}
	if hosts != nil && len(hosts) == 0 {
		delete(settings, hostsSetting)
	}
	return removed
}
