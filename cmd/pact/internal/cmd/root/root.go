package root

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/auth"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/completion"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/deprecate"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/get"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/hook"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/info"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/keys"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/list"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/log"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/org"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/publish"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/release"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/token"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/trust"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/validate"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/verify"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/version"
	"github.com/pact-registry/pact/cmd/pact/internal/cmd/yank"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
)

// runPact runs pact with args and returns the exit code; build is what
// the link set (main's version, commit and date), completed from the build
// information.
func Run(args []string, ios *iostreams.IOStreams, build cmdutil.BuildInfo) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	info, ok := debug.ReadBuildInfo()
	f := &cmdutil.Factory{IO: ios, Build: version.CompleteBuild(build, info, ok)}
	root := newRootCmd(f)
	if !ios.Color {
		ios.Color = iostreams.ColorWanted(ios.StderrTTY, f.Settings().Env)
	}
	root.SetArgs(args)
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)

	cmd, err := root.ExecuteContextC(ctx)
	err = f.Explain(err)
	f.Run.Budget.Stop()
	f.Run.Progress.Clear()
	code, msg := cmdutil.ExitStatus(err)
	if msg != "" {
		redact := f.RedactToken
		// Error messages quote the registry's answers: shown, never obeyed.
		fmt.Fprintln(ios.ErrOut, ios.ErrorPrefix()+text.SafeLines(redact(msg)))
		if f.Run.Debug {
			for _, line := range cmdutil.DebugDetails(err) {
				fmt.Fprintln(ios.ErrOut, "debug: "+text.SafeLines(redact(line)))
			}
		}
		if code == cmdutil.ExitUsage && cmd != nil {
			fmt.Fprintf(ios.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	return code
}

func newRootCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "pact <command>",
		Short: "Publish and fetch pack documents on a pact registry",
		Long: `pact publishes pack documents (*.pact.md) to a pact registry, lists and
fetches them, yanks versions and deprecates packages, and manages the SSH
keys used for signed publishing and the API tokens of your account.

Configuration comes from flags, then the environment (PACT_HOST,
PACT_TOKEN), then the config file written by 'pact login'
($XDG_CONFIG_HOME/pact/config.yaml), then the default host
` + cmdutil.DefaultHost + `. A host given without a scheme is https://, or
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
		// because NoSubcommandArgs asks for suggestions itself.
		SuggestionsMinimumDistance: 2,
		SilenceErrors:              true,
		SilenceUsage:               true,
		Args:                       cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := f.Run.ApplyTimeout(cmd, f.Settings()); err != nil {
				return err
			}
			f.IO.StopClock = f.Run.Budget.Pause
			return nil
		},
	}
	root.SetVersionTemplate(fmt.Sprintf("pact %s (commit %s, built %s)\n", f.Build.Version, f.Build.Commit, f.Build.Date))
	root.CompletionOptions.DisableDefaultCmd = true // our own completion command has help and examples

	pf := root.PersistentFlags()
	pf.String("host", "", "registry address (env PACT_HOST; else the host of the last 'pact login', else "+cmdutil.DefaultHost+")")
	pf.String("token", "", "API token, sent to any --host (env PACT_TOKEN; prefer those or 'pact login' over this flag)")
	pf.String("timeout", "", "give up on the whole command after this long, e.g. 30s or 2m; 0 for never (env PACT_TIMEOUT; default 1m, none for 'log watch' and a publish of several documents)")
	pf.BoolVar(&f.Run.Debug, "debug", false, "add HTTP statuses and requests to error messages")
	f.ReadSettings(pf)

	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &cmdutil.UsageError{Msg: err.Error()}
	})

	root.AddCommand(
		auth.NewLoginCmd(f),
		auth.NewLogoutCmd(f),
		auth.NewWhoamiCmd(f),
		auth.NewAuthCmd(f),
		publish.NewPublishCmd(f),
		list.NewListCmd(f),
		get.NewGetCmd(f),
		info.NewInfoCmd(f),
		yank.NewYankCmd(f),
		yank.NewUnyankCmd(f),
		deprecate.NewDeprecateCmd(f),
		verify.NewVerifyCmd(f),
		log.NewLogCmd(f),
		keys.NewKeysCmd(f),
		token.NewTokenCmd(f),
		trust.NewTrustCmd(f),
		release.NewReleaseCmd(f),
		org.NewOrgCmd(f),
		hook.NewHookCmd(f),
		validate.NewValidateCmd(f),
		completion.NewCompletionCmd(f),
		version.NewVersionCmd(f),
	)
	return root
}
