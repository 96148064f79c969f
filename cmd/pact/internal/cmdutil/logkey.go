package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/translog"
)

// logKeysSetting is the config file's map from registry address to the
// pinned verifier key of its transparency log, logPoliciesSetting the one
// to its pinned witness policy ("" when the registry had none when first
// used). They are read from the file directly: viper splits keys at dots,
// and addresses are full of them.
const (
	LogKeysSetting     = "log_keys"
	logPoliciesSetting = "log_policies"
)

// defaultMaxCheckpointAge is how old the newest quorum of a checkpoint's
// cosignatures may be (--max-checkpoint-age): the registry re-sends an
// unchanged checkpoint to its witnesses every hour by default.
const defaultMaxCheckpointAge = 24 * time.Hour

// VerifyFlags are the flags of the commands that check the log.
type VerifyFlags struct {
	NoVerify         bool
	LogKey           string
	LogPolicy        string
	MaxCheckpointAge time.Duration
}

func AddVerifyFlags(cmd *cobra.Command, v *VerifyFlags, noVerify bool) {
	if noVerify {
		cmd.Flags().BoolVar(&v.NoVerify, "no-verify", false, "do not check the document against the registry's transparency log")
	}
	cmd.Flags().StringVar(&v.LogKey, "log-key", "", "the log's verifier key, name+hash+key (env PACT_LOG_KEY; default: the key pinned in the config)")
	cmd.Flags().StringVar(&v.LogPolicy, "log-policy", "", "file holding the log's witness policy, whose quorum must cosign every checkpoint (env PACT_LOG_POLICY; default: the policy pinned in the config)")
	cmd.Flags().DurationVar(&v.MaxCheckpointAge, "max-checkpoint-age", defaultMaxCheckpointAge, "with a witness policy, how long ago a quorum of witnesses may last have cosigned the checkpoint (0: any age)")
}

// LogVerifier returns a verifier of c's log: with the key of --log-key or
// PACT_LOG_KEY, else the one pinned in the config file for this registry,
// else the registry's announced key, pinned now (trust on first use) and
// said so on stderr; and with the witness policy of --log-policy or
// PACT_LOG_POLICY, else the one pinned, else the registry's, pinned now.
func (f *Factory) LogVerifier(ctx context.Context, c *client.Client, flags VerifyFlags) (*client.LogVerifier, error) {
	if flags.MaxCheckpointAge < 0 {
		return nil, UsageErrorf("--max-checkpoint-age must not be negative (0: any age)")
	}
	v, err := f.logKeyVerifier(ctx, c, flags.LogKey)
	if err != nil {
		return nil, err
	}
	policy, fromUser, err := f.logPolicy(ctx, c, flags.LogPolicy)
	if err != nil || policy == nil {
		return v, err
	}
	if err := v.SetPolicy(policy, flags.MaxCheckpointAge); err != nil {
		if fromUser {
			return nil, &UsageError{Msg: "--log-policy: " + err.Error()}
		}
		return nil, &client.VerificationError{Check: "witness", Msg: err.Error()}
	}
	return v, nil
}

// logKeyVerifier is LogVerifier without a witness policy.
func (f *Factory) logKeyVerifier(ctx context.Context, c *client.Client, flagKey string) (*client.LogVerifier, error) {
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("cannot find the cache directory for the log's state: set XDG_CACHE_HOME or HOME: %w", err)
	}
	cacheDir = filepath.Join(cacheDir, "pact")
	key := flagKey
	if key == "" {
		key = f.Settings().Env("PACT_LOG_KEY")
	}
	if key != "" {
		v, err := c.NewLogVerifier(key, cacheDir)
		if err != nil {
			return nil, &UsageError{Msg: err.Error()}
		}
		return v, nil
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	host := c.BaseURL()
	pinned, err := ReadPins(cfg.Path)
	if err != nil {
		return nil, err
	}
	if key := strings.TrimSpace(pinned.LogKeys[host]); key != "" {
		f.Run.logKeyPinned = true
		return c.NewLogVerifier(key, cacheDir)
	}
	announced, err := c.LogKey(ctx)
	if err != nil {
		return nil, err
	}
	v, err := c.NewLogVerifier(announced, cacheDir)
	if err != nil {
		return nil, err
	}
	if err := Pin(cfg.Path, LogKeysSetting, host, announced); err != nil {
		return nil, fmt.Errorf("pinning the log key in %s: %w", cfg.Path, err)
	}
	f.IO.Info("Pinned the log key of %s in %s (trust on first use; compare it with the one the registry's operator publishes):\n  %s", host, cfg.Path, announced)
	return v, nil
}

// logPolicy answers the witness policy to check c's log with: the file of
// --log-policy or PACT_LOG_POLICY (fromUser), else the one pinned in the
// config file for this registry, else the one the registry announces,
// pinned now and said so, or, when it has none, nil and "" pinned, so that
// a policy it announces later is not trusted silently.
func (f *Factory) logPolicy(ctx context.Context, c *client.Client, flagFile string) (p *translog.Policy, fromUser bool, err error) {
	file := flagFile
	if file == "" {
		file = f.Settings().Env("PACT_LOG_POLICY")
	}
	if file != "" {
		text, err := readBounded(file, translog.MaxPolicySize)
		if err != nil {
			return nil, true, &UsageError{Msg: "--log-policy: " + err.Error()}
		}
		p, err := translog.ParsePolicy(text)
		if err != nil {
			return nil, true, &UsageError{Msg: "--log-policy " + file + ": " + err.Error()}
		}
		return p, true, nil
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, false, err
	}
	host := c.BaseURL()
	pinned, err := ReadPins(cfg.Path)
	if err != nil {
		return nil, false, err
	}
	if text, ok := pinned.LogPolicies[host]; ok {
		if strings.TrimSpace(text) == "" {
			return nil, false, nil
		}
		p, err := translog.ParsePolicy([]byte(text))
		if err != nil {
			return nil, false, fmt.Errorf("the witness policy pinned for %s under %s in %s does not parse (%v): remove it to pin the registry's again", host, logPoliciesSetting, cfg.Path, err)
		}
		f.Run.logPolicyPinned = true
		return p, false, nil
	}
	p, err = c.LogPolicy(ctx)
	if err != nil {
		return nil, false, err
	}
	text := ""
	if p != nil {
		text = string(p.Text())
	}
	if err := Pin(cfg.Path, logPoliciesSetting, host, text); err != nil {
		return nil, false, fmt.Errorf("pinning the witness policy in %s: %w", cfg.Path, err)
	}
	if p != nil {
		f.IO.Info("Pinned the witness policy of %s in %s (trust on first use; compare it with the one at %s/log/policy and the operator's): %s",
			host, cfg.Path, host, describePolicy(p))
	}
	return p, false, nil
}

// describePolicy names a policy's witnesses: "2 witnesses (w1, w2)".
func describePolicy(p *translog.Policy) string {
	names := make([]string, len(p.Witnesses))
	for i, w := range p.Witnesses {
		names[i] = text.Safe(w.Name)
	}
	return text.Plural(int64(len(names)), "witness", "witnesses") + " (" + strings.Join(names, ", ") + ")"
}

// pins are what the config file pins per registry.
type pins struct {
	LogKeys     map[string]string `yaml:"log_keys"`
	LogPolicies map[string]string `yaml:"log_policies"`
}

// PinnedLogKeys reads every key pinned in the config file, by registry.
func PinnedLogKeys(path string) (map[string]string, error) {
	p, err := ReadPins(path)
	for host, key := range p.LogKeys {
		p.LogKeys[host] = strings.TrimSpace(key)
	}
	return p.LogKeys, err
}

// ReadPins reads the pinned keys and policies of the config file.
func ReadPins(path string) (pins, error) {
	var p pins
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	if err := yaml.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("reading %s: %w", path, err)
	}
	return p, nil
}

// Pin sets setting[host] to value in the config file.
func Pin(path, setting, host, value string) error {
	return UpdateConfigFile(path, func(settings map[string]any) {
		m, _ := settings[setting].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m[host] = value
		settings[setting] = m
	})
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s holds more than %d bytes", path, limit)
	}
	return data, nil
}

// ExplainKeyMismatch adds to a checkpoint that the key does not verify the
// key the registry announces now, so the user can tell a changed key (ask
// the operator; re-pin by removing the line from the config) from a
// registry that is not the one they pinned; and to a checkpoint that does
// not meet the pinned witness policy, that the registry announces another.
func (f *Factory) ExplainKeyMismatch(ctx context.Context, c *client.Client, v *client.LogVerifier, err error) error {
	var verr *client.VerificationError
	if errors.As(err, &verr) && verr.Check == "witness" && v.Policy() != nil {
		announced, perr := c.LogPolicy(ctx)
		if perr != nil || (announced != nil && string(announced.Text()) == string(v.Policy().Text())) {
			return err
		}
		msg := verr.Msg + "; the registry announces another witness policy at " + c.BaseURL() + "/log/policy"
		if announced == nil {
			msg = verr.Msg + "; the registry announces no witness policy any more"
		}
		if f.Run.logPolicyPinned {
			msg += fmt.Sprintf(". A changed policy is not trusted silently: if the registry's operator confirms it, pass it with --log-policy or remove the old one under %s in the config to pin the new one", logPoliciesSetting)
		}
		return &client.VerificationError{Check: verr.Check, Msg: msg}
	}
	if !errors.As(err, &verr) || verr.Check != "checkpoint" || !strings.Contains(verr.Msg, "not signed by the pinned key") {
		return err
	}
	announced, kerr := c.LogKey(ctx)
	if kerr != nil || announced == v.Key() {
		return err
	}
	msg := fmt.Sprintf("%s; the registry announces the key %s", verr.Msg, announced)
	if f.Run.logKeyPinned {
		msg += ". A changed key is not trusted silently: if the registry's operator confirms it, pass it with --log-key, or pin it with 'pact log repin'"
	}
	return &client.VerificationError{Check: verr.Check, Msg: msg}
}
