package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

// Factory hands commands what they share: streams, build info,
// configuration, a client, and the state of this run.
type Factory struct {
	IO    *iostreams.IOStreams
	Build BuildInfo
	// settings are the global flags and the environment (newSettings).
	settings *Settings
	cfg      *Config
	Run      runState
}

// runState is what one run of pact sets up or learns on the way and what
// mainRun needs at its end: the bound to release, the progress line to
// clear, how much an error message says.
type runState struct {
	// Debug adds statuses and requests to error messages (--debug).
	Debug bool
	// Budget bounds the command (--timeout, PACT_TIMEOUT, else
	// DefaultTimeout); nil for none. budgetCtx is the context it cancels.
	Budget    *budget
	budgetCtx context.Context
	// Progress is the line a multi-file publish keeps updated on a terminal.
	Progress *iostreams.ProgressLine
	// logKeyPinned says the log key in use came from the config file (not
	// --log-key or PACT_LOG_KEY), for the advice on a changed key.
	logKeyPinned bool
	// LoginToken says the token sent is the one pact login checks, not
	// the configured one, for the message of its refusal.
	LoginToken bool
	// logPolicyPinned says the witness policy in use came from the config
	// file (not --log-policy or PACT_LOG_POLICY), likewise.
	logPolicyPinned bool
}

type BuildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

// Config resolves the configuration once per run.
func (f *Factory) Config() (*Config, error) {
	if f.cfg == nil {
		cfg, err := loadConfig(f.Settings())
		if err != nil {
			return nil, err
		}
		f.cfg = cfg
	}
	return f.cfg, nil
}

// Settings are the global flags and the environment; a factory made
// without the root command (a test's) has the environment alone.
func (f *Factory) Settings() *Settings {
	if f.settings == nil {
		f.settings = newSettings(pflag.NewFlagSet("pact", pflag.ContinueOnError))
	}
	return f.settings
}

// ReadSettings reads the settings from flags, the global ones, and the
// environment.
func (f *Factory) ReadSettings(flags *pflag.FlagSet) {
	f.settings = newSettings(flags)
}

// RedactToken hides the token in use in s.
func (f *Factory) RedactToken(s string) string {
	if f.cfg != nil && f.cfg.Token != "" {
		return strings.ReplaceAll(s, f.cfg.Token, "[token]")
	}
	return s
}

// Client returns a client of the configured host with the configured token.
func (f *Factory) Client() (*client.Client, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return f.NewClient(cfg.Host, cfg.Token)
}

func (f *Factory) NewClient(host, token string) (*client.Client, error) {
	return client.New(host, client.WithToken(token), client.WithVersion(f.Build.Version),
		client.WithRetryNotify(func(r client.Retry) { f.RetryNotice(host, r) }),
		client.WithWaitNotify(waitingNotice, func(w client.Waiting) { f.waitNotice(host, w) }))
}

// waitNotice says on stderr that a request has had no answer for a while,
// and from which registry: "waiting for pact.example.com to answer GET
// /api/packages...". Each attempt says it once.
func (f *Factory) waitNotice(host string, w client.Waiting) {
	f.Run.Progress.Clear()
	f.IO.Info("waiting for %s to answer %s %s...", urlHost(host), w.Method, w.Path)
}

// RetryNotice says on stderr why pact waits, and how long, before trying
// again: "rate limited, retrying in 5 s (2/4)".
func (f *Factory) RetryNotice(host string, r client.Retry) {
	name := host
	if u, err := url.Parse(host); err == nil && u.Host != "" {
		name = u.Host
	}
	var reason string
	var netErr net.Error
	switch {
	case r.Status == http.StatusTooManyRequests:
		reason = "rate limited"
	case r.Status >= 500:
		reason = fmt.Sprintf("the registry failed (%s)", r.Err)
	case errors.As(r.Err, &netErr) && netErr.Timeout():
		reason = "no answer from " + name
	default:
		reason = fmt.Sprintf("cannot reach %s (%s)", name, NetworkReason(r.Err))
	}
	f.Run.Progress.Clear()
	f.IO.Info("%s, retrying in %s (%d/%d)", reason, formatWait(r.Wait), r.Attempt, r.MaxAttempts)
}

// formatWait prints a pause in seconds for people: "5 s", "0.4 s".
func formatWait(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
}

// ApplyTimeout bounds the command's context by --timeout or PACT_TIMEOUT,
// else by DefaultTimeout; 0 is no bound. A command exempt from the
// default lifts it before its work (ExemptFromDefaultTimeout).
func (r *runState) ApplyTimeout(cmd *cobra.Command, s *Settings) error {
	value, _ := s.lookup("timeout")
	d, isDefault := DefaultTimeout, true
	if strings.TrimSpace(value) != "" {
		var err error
		if d, err = parseTimeout(value); err != nil {
			return err
		}
		isDefault = false
	}
	if d == 0 {
		return nil
	}
	r.budgetCtx, r.Budget = newBudget(cmd.Context(), d, isDefault)
	cmd.SetContext(r.budgetCtx)
	return nil
}

// ExemptFromDefaultTimeout lifts the default bound off a command whose
// length is not pact's to bound (pact log watch: its work grows with the
// log, --follow runs until interrupted; a publish of several documents);
// a bound the user set stays. Each request is still bounded (client.DefaultTimeout an
// attempt), and pact still says when it waits.
func (r *runState) ExemptFromDefaultTimeout() {
	if r.Budget != nil && r.Budget.isDefault {
		r.Budget.Pause() // for good: never resumed
	}
}

// Explain gives errors the context of the run that their own message
// lacks: which bound ran out, that the host unreached is the default one.
func (f *Factory) Explain(err error) error {
	if err == nil {
		return nil
	}
	host, hostIsDefault := DefaultHost, true
	if f.cfg != nil {
		host, hostIsDefault = f.cfg.Host, f.cfg.HostIsDefault
	}
	if b := f.Run.Budget; b.spent(f.Run.budgetCtx, err) {
		bound := "--timeout"
		if b.isDefault {
			bound = "the default --timeout; --timeout 0 for none"
		}
		// Wraps DeadlineExceeded, not the Canceled of the context, which
		// would read as an interruption.
		return &WrappedError{Msg: fmt.Sprintf("gave up after %s (%s): no answer from %s", b.limit, bound, urlHost(host)), Err: context.DeadlineExceeded}
	}
	var apiErr *client.APIError
	if f.cfg != nil && (f.cfg.TokenSource == "PACT_TOKEN" || f.cfg.TokenSource == "--token") && !f.Run.LoginToken &&
		errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusUnauthorized &&
		apiErr.BaseURL != "" && !strings.HasPrefix(apiErr.Message, "missing API token") {
		return refusedGivenToken(err, apiErr, f.cfg.TokenSource, f.cfg.Stored[HostKey(apiErr.BaseURL)] != "")
	}
	if f.cfg != nil && f.cfg.Token == "" && len(f.cfg.Stored) > 0 && errors.As(err, &apiErr) &&
		apiErr.StatusCode == http.StatusUnauthorized && strings.HasPrefix(apiErr.Message, "missing API token") {
		// Logged in elsewhere: say which registry has no token, and how
		// to give it one.
		key := HostKey(host)
		what := fmt.Sprintf("not logged in to %s: no API token is stored for it; run 'pact login --host %s' or set PACT_TOKEN", key, key)
		return &NotLoggedInError{Msg: strings.Replace(err.Error(), apiErr.Error(), what, 1), err: err}
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) && hostIsDefault && urlHost(urlErr.URL) == urlHost(DefaultHost) {
		return fmt.Errorf("cannot reach the registry at %s, the default host since no --host, PACT_HOST or 'pact login' names another: %s",
			urlHost(urlErr.URL), NetworkReason(urlErr))
	}
	return err
}
