package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pact-registry/pact/pkg/client"
)

// factory hands commands what they share: streams, build info,
// configuration, a client, and the state of this run.
type factory struct {
	IO    *iostreams
	Build buildInfo
	// settings are the global flags and the environment (newSettings).
	settings *settings
	cfg      *config
	run      runState
}

// runState is what one run of pact sets up or learns on the way and what
// mainRun needs at its end: the bound to release, the progress line to
// clear, how much an error message says.
type runState struct {
	// debug adds statuses and requests to error messages (--debug).
	debug bool
	// budget bounds the command (--timeout, PACT_TIMEOUT, else
	// defaultTimeout); nil for none. budgetCtx is the context it cancels.
	budget    *budget
	budgetCtx context.Context
	// progress is the line a multi-file publish keeps updated on a terminal.
	progress *progressLine
	// logKeyPinned says the log key in use came from the config file (not
	// --log-key or PACT_LOG_KEY), for the advice on a changed key.
	logKeyPinned bool
	// loginToken says the token sent is the one pact login checks, not
	// the configured one, for the message of its refusal.
	loginToken bool
	// logPolicyPinned says the witness policy in use came from the config
	// file (not --log-policy or PACT_LOG_POLICY), likewise.
	logPolicyPinned bool
}

type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

// Config resolves the configuration once per run.
func (f *factory) Config() (*config, error) {
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
func (f *factory) Settings() *settings {
	if f.settings == nil {
		f.settings = newSettings(pflag.NewFlagSet("pact", pflag.ContinueOnError))
	}
	return f.settings
}

// Client returns a client of the configured host with the configured token.
func (f *factory) Client() (*client.Client, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	return f.newClient(cfg.Host, cfg.Token)
}

func (f *factory) newClient(host, token string) (*client.Client, error) {
	return client.New(host, client.WithToken(token), client.WithVersion(f.Build.Version),
		client.WithRetryNotify(func(r client.Retry) { f.retryNotice(host, r) }),
		client.WithWaitNotify(waitingNotice, func(w client.Waiting) { f.waitNotice(host, w) }))
}

// waitNotice says on stderr that a request has had no answer for a while,
// and from which registry: "waiting for pact.example.com to answer GET
// /api/packages...". Each attempt says it once.
func (f *factory) waitNotice(host string, w client.Waiting) {
	f.run.progress.clear()
	f.IO.info("waiting for %s to answer %s %s...", urlHost(host), w.Method, w.Path)
}

// retryNotice says on stderr why pact waits, and how long, before trying
// again: "rate limited, retrying in 5 s (2/4)".
func (f *factory) retryNotice(host string, r client.Retry) {
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
		reason = fmt.Sprintf("cannot reach %s (%s)", name, networkReason(r.Err))
	}
	f.run.progress.clear()
	f.IO.info("%s, retrying in %s (%d/%d)", reason, formatWait(r.Wait), r.Attempt, r.MaxAttempts)
}

// formatWait prints a pause in seconds for people: "5 s", "0.4 s".
func formatWait(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second)/time.Second))
}

// applyTimeout bounds the command's context by --timeout or PACT_TIMEOUT,
// else by defaultTimeout; 0 is no bound. A command exempt from the
// default lifts it before its work (exemptFromDefaultTimeout).
func (r *runState) applyTimeout(cmd *cobra.Command, s *settings) error {
	value, _ := s.lookup("timeout")
	d, isDefault := defaultTimeout, true
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
	r.budgetCtx, r.budget = newBudget(cmd.Context(), d, isDefault)
	cmd.SetContext(r.budgetCtx)
	return nil
}

// exemptFromDefaultTimeout lifts the default bound off a command whose
// length is not pact's to bound (pact log watch: its work grows with the
// log, --follow runs until interrupted; a publish of several documents);
// a bound the user set stays. Each request is still bounded (client.DefaultTimeout an
// attempt), and pact still says when it waits.
func (r *runState) exemptFromDefaultTimeout() {
	if r.budget != nil && r.budget.isDefault {
		r.budget.pause() // for good: never resumed
	}
}

// mainRun runs pact with args and returns the exit code.
func mainRun(args []string, ios *iostreams) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	info, ok := debug.ReadBuildInfo()
	f := &factory{IO: ios, Build: completeBuild(buildInfo{Version: version, Commit: commit, Date: date}, info, ok)}
	root := newRootCmd(f)
	if !ios.color {
		ios.color = colorWanted(ios.stderrTTY, f.settings.env)
	}
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)

	cmd, err := root.ExecuteContextC(ctx)
	err = f.explain(err)
	f.run.budget.stop()
	f.run.progress.clear()
	code, msg := exitStatus(err)
	if msg != "" {
		redact := func(s string) string {
			if f.cfg != nil && f.cfg.Token != "" {
				return strings.ReplaceAll(s, f.cfg.Token, "[token]")
			}
			return s
		}
		// Error messages quote the registry's answers: shown, never obeyed.
		fmt.Fprintln(ios.ErrOut, ios.errorPrefix()+safeLines(redact(msg)))
		if f.run.debug {
			for _, line := range debugDetails(err) {
				fmt.Fprintln(ios.ErrOut, "debug: "+safeLines(redact(line)))
			}
		}
		if code == exitUsage && cmd != nil {
			fmt.Fprintf(ios.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	return code
}

func newRootCmd(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "pact <command>",
		Short: "Publish and fetch pack documents on a pact registry",
		Long: `pact publishes pack documents (*.pact.md) to a pact registry, lists and
fetches them, yanks versions and deprecates packages, and manages the SSH
keys used for signed publishing and the API tokens of your account.

Configuration comes from flags, then the environment (PACT_HOST,
PACT_TOKEN), then the config file written by 'pact login'
($XDG_CONFIG_HOME/pact/config.yaml), then the default host
` + defaultHost + `. A host given without a scheme is https://, or
http:// for localhost and loopback addresses; one ending in /api is taken
without it.

The config file keeps a token per registry, and the last one logged in to
as the default host. A stored token is only ever sent to the registry it
was stored for: with --host naming another, pact sends none (log in to it
with 'pact login --host HOST'). A token given with --token or PACT_TOKEN is
sent to whichever registry the command talks to. 'pact auth status' lists
the registries you are logged in to.

Requests that fail for a passing reason (rate limited, a server error, no
answer) are tried up to 4 times; pact says on standard error why it waits
and how long, and after 3 s without an answer that it is waiting for the
registry. Failures no retry can fix end at once: a host name that does
not exist, an https:// address of a server speaking plain HTTP (pact says
to use http://), a certificate that does not verify. --timeout (or
PACT_TIMEOUT) bounds the whole command, retries included: 1m by default,
0 for no bound. The time pact waits for you (a question, a login approved
in the browser) does not count. 'pact log watch' and a publish of several
documents have no default bound, only one you set: their work grows with
the log or the documents (each request is still bounded), and --follow
runs until interrupted.

Errors are the registry's own words; --debug adds the HTTP status and
the request.

Exit codes: 0 ok, 1 error, 2 usage, 3 authentication failed (or a
signing key the registry does not know), 4 not found, 5 rejected by the
server, 6 verification against the registry's transparency log failed
(or the registry's digests disagree with the bytes it served).`,
		Example: `  $ pact login --token-stdin < token.txt
  $ pact publish hello.pact.md
  $ pact list --owner alice
  $ pact get alice/hello`,
		Version: f.Build.Version,
		// cobra's default for its own unknown-command message; set here
		// because noSubcommandArgs asks for suggestions itself.
		SuggestionsMinimumDistance: 2,
		SilenceErrors:              true,
		SilenceUsage:               true,
		Args:                       noSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := f.run.applyTimeout(cmd, f.Settings()); err != nil {
				return err
			}
			f.IO.stopClock = f.run.budget.pause
			return nil
		},
	}
	root.SetVersionTemplate(fmt.Sprintf("pact %s (commit %s, built %s)\n", f.Build.Version, f.Build.Commit, f.Build.Date))
	root.CompletionOptions.DisableDefaultCmd = true // our own completion command has help and examples

	pf := root.PersistentFlags()
	pf.String("host", "", "registry address (env PACT_HOST; else the host of the last 'pact login', else "+defaultHost+")")
	pf.String("token", "", "API token, sent to any --host (env PACT_TOKEN; prefer those or 'pact login' over this flag)")
	pf.String("timeout", "", "give up on the whole command after this long, e.g. 30s or 2m; 0 for never (env PACT_TIMEOUT; default 1m, none for 'log watch' and a publish of several documents)")
	pf.BoolVar(&f.run.debug, "debug", false, "add HTTP statuses and requests to error messages")
	f.settings = newSettings(pf)

	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})

	root.AddCommand(
		newLoginCmd(f),
		newLogoutCmd(f),
		newWhoamiCmd(f),
		newAuthCmd(f),
		newPublishCmd(f),
		newListCmd(f),
		newGetCmd(f),
		newInfoCmd(f),
		newYankCmd(f),
		newUnyankCmd(f),
		newDeprecateCmd(f),
		newVerifyCmd(f),
		newLogCmd(f),
		newKeysCmd(f),
		newTokenCmd(f),
		newTrustCmd(f),
		newReleaseCmd(f),
		newOrgCmd(f),
		newHookCmd(f),
		newValidateCmd(f),
		newCompletionCmd(f),
		newVersionCmd(f),
	)
	return root
}

// noSubcommandArgs refuses an unknown command name given to a command
// that only groups others.
func noSubcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if suggestions := cmd.SuggestionsFor(args[0]); len(suggestions) > 0 {
		msg += "; did you mean " + strings.Join(suggestions, " or ") + "?"
	}
	return &usageError{msg: msg}
}

// usageArgs makes an argument validator's complaints usage errors (exit 2).
func usageArgs(validate cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := validate(cmd, args); err != nil {
			return &usageError{msg: err.Error()}
		}
		return nil
	}
}

// addJSONFlag gives a command that prints data the --json switch.
func addJSONFlag(cmd *cobra.Command, target *bool) {
	cmd.Flags().BoolVar(target, "json", false, "print JSON for scripts instead of a table")
}
