package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/pact-registry/pact/pkg/client"
)

// logKeysSetting is the config file's map from registry address to the
// pinned verifier key of its transparency log. It is read from the file
// directly: viper splits keys at dots, and addresses are full of them.
const logKeysSetting = "log_keys"

// verifyFlags are the flags of the commands that check the log.
type verifyFlags struct {
	NoVerify bool
	LogKey   string
}

func addVerifyFlags(cmd *cobra.Command, v *verifyFlags, noVerify bool) {
	if noVerify {
		cmd.Flags().BoolVar(&v.NoVerify, "no-verify", false, "do not check the document against the registry's transparency log")
	}
	cmd.Flags().StringVar(&v.LogKey, "log-key", "", "the log's verifier key, name+hash+key (env PACT_LOG_KEY; default: the key pinned in the config)")
}

// logVerifier returns a verifier of c's log: with the key of --log-key or
// PACT_LOG_KEY, else the one pinned in the config file for this registry,
// else the registry's announced key, pinned now (trust on first use) and
// said so on stderr.
func (f *factory) logVerifier(ctx context.Context, c *client.Client, flagKey string) (*client.LogVerifier, error) {
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("cannot find the cache directory for the log's state: set XDG_CACHE_HOME or HOME: %w", err)
	}
	cacheDir = filepath.Join(cacheDir, "pact")
	key := flagKey
	if key == "" {
		key = os.Getenv("PACT_LOG_KEY")
	}
	if key != "" {
		v, err := c.NewLogVerifier(key, cacheDir)
		if err != nil {
			return nil, &usageError{msg: err.Error()}
		}
		return v, nil
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	host := c.BaseURL()
	pinned, err := pinnedLogKey(cfg.Path, host)
	if err != nil {
		return nil, err
	}
	if pinned != "" {
		f.run.logKeyPinned = true
		return c.NewLogVerifier(pinned, cacheDir)
	}
	announced, err := c.LogKey(ctx)
	if err != nil {
		return nil, err
	}
	v, err := c.NewLogVerifier(announced, cacheDir)
	if err != nil {
		return nil, err
	}
	if err := updateConfigFile(cfg.Path, func(settings map[string]any) {
		keys, _ := settings[logKeysSetting].(map[string]any)
		if keys == nil {
			keys = map[string]any{}
		}
		keys[host] = announced
		settings[logKeysSetting] = keys
	}); err != nil {
		return nil, fmt.Errorf("pinning the log key in %s: %w", cfg.Path, err)
	}
	f.IO.info("Pinned the log key of %s in %s (trust on first use; compare it with the one the registry's operator publishes):\n  %s", host, cfg.Path, announced)
	return v, nil
}

// pinnedLogKey reads the key pinned for host in the config file, or "".
func pinnedLogKey(path, host string) (string, error) {
	keys, err := pinnedLogKeys(path)
	return keys[host], err
}

// pinnedLogKeys reads every key pinned in the config file, by registry.
func pinnedLogKeys(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var settings struct {
		LogKeys map[string]string `yaml:"log_keys"`
	}
	if err := yaml.Unmarshal(data, &settings); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	for host, key := range settings.LogKeys {
		settings.LogKeys[host] = strings.TrimSpace(key)
	}
	return settings.LogKeys, nil
}

// explainKeyMismatch adds to a checkpoint that the key does not verify the
// key the registry announces now, so the user can tell a changed key (ask
// the operator; re-pin by removing the line from the config) from a
// registry that is not the one they pinned.
func (f *factory) explainKeyMismatch(ctx context.Context, c *client.Client, v *client.LogVerifier, err error) error {
	var verr *client.VerificationError
	if !errors.As(err, &verr) || verr.Check != "checkpoint" || !strings.Contains(verr.Msg, "not signed by the pinned key") {
		return err
	}
	announced, kerr := c.LogKey(ctx)
	if kerr != nil || announced == v.Key() {
		return err
	}
	msg := fmt.Sprintf("%s; the registry announces the key %s", verr.Msg, announced)
	if f.run.logKeyPinned {
		msg += fmt.Sprintf(". A changed key is not trusted silently: if the registry's operator confirms it, pass it with --log-key or remove the old one under %s in the config to pin the new one", logKeysSetting)
	}
	return &client.VerificationError{Check: verr.Check, Msg: msg}
}
