package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
	"github.com/pact-registry/pact/pkg/wire"
)

type loginOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Token      string
	TokenStdin bool
	// Scopes are the scopes a login through the browser asks for.
	Scopes []string
}

func NewLoginCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &loginOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Log in to a registry, through the browser or with an API token",
		Long: `Log in to the registry and store a token for it in
$XDG_CONFIG_HOME/pact/config.yaml (mode 0600). The registry becomes the
default host, used when no --host or PACT_HOST names one, and pact says
so when that changes the default; 'pact auth switch HOST' changes it back.

On a terminal, with no token given, pact login logs in through the
browser: it prints a short code and the address of the registry's page
/login/device; open it where you are logged in to the registry's
dashboard, check the code, choose what the token may do and how long it
lasts, and approve. pact login then receives the token and stores it.
The code lasts 10 minutes and works once; Ctrl-C gives up.

The page ticks no scope unless asked: --scope (publish, yank, keys, tokens,
hooks; repeatable) names the scopes pact login asks for, which the page
ticks first. You decide there; at least one scope must be ticked to
approve, so a login never holds every scope by default.

Scripts give a token instead, made in the dashboard, with 'pact token
create', or on the server with 'pactd token create': on standard input
with --token-stdin (best: it stays out of your shell history; on a
terminal it asks for it without showing it), or with --token. The token
is checked with the registry before it is stored.

Tokens are stored per registry, so you can be logged in to several at once
(log in with --host to each). A stored token is only ever sent to the
registry it was stored for: 'pact --host OTHER ...' sends none, unless you
give one with --token or PACT_TOKEN. 'pact auth status' lists them.`,
		Example: `  $ pact login --host https://pact.example.com
  $ pact login --scope publish --scope yank
  $ pact login --token-stdin < token.txt
  $ echo "$PACT_TOKEN" | pact login --token-stdin`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogin(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Token, "token", "", "the API token to store")
	cmd.Flags().BoolVar(&opts.TokenStdin, "token-stdin", false, "read the API token from standard input (asked for on a terminal)")
	cmd.Flags().StringArrayVar(&opts.Scopes, "scope", nil, "a scope the browser login asks for, ticked first on the approval page: publish, yank, keys, tokens, hooks (repeatable)")
	return cmd
}

func runLogin(ctx context.Context, opts *loginOptions) error {
	token := strings.TrimSpace(opts.Token)
	switch {
	case opts.Token != "" && opts.TokenStdin:
		return cmdutil.UsageErrorf("use either --token or --token-stdin, not both")
	case len(opts.Scopes) > 0 && (opts.Token != "" || opts.TokenStdin):
		return cmdutil.UsageErrorf("--scope asks the browser login for scopes; a token given with --token or --token-stdin keeps the scopes it was made with")
	case opts.TokenStdin && opts.IO.StdinTTY:
		var err error
		if token, err = opts.IO.PromptSecret("Paste your API token: ", nil); err != nil {
			return err
		}
		if token = strings.TrimSpace(token); token == "" {
			return errors.New("no token entered")
		}
	case opts.TokenStdin:
		data, err := io.ReadAll(io.LimitReader(opts.IO.In, 64<<10))
		if err != nil {
			return err
		}
		token = strings.TrimSpace(string(data))
		if token == "" {
			return cmdutil.UsageErrorf("--token-stdin: standard input held no token")
		}
	case token == "" && !opts.IO.StdinTTY:
		return cmdutil.UsageErrorf("no token given, and no terminal to log in through the browser: pass a token on standard input with --token-stdin (or with --token)")
	}

	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	if token == "" {
		if token, err = loginThroughBrowser(ctx, opts, cfg.Host); err != nil {
			return err
		}
	}
	c, err := opts.Factory.NewClient(cfg.Host, token)
	if err != nil {
		return err
	}
	opts.Factory.Run.LoginToken = true
	user, err := c.Me(ctx)
	if err != nil {
		return err
	}
	host := cmdutil.HostKey(c.BaseURL())
	err = cmdutil.UpdateConfigFile(cfg.Path, func(settings map[string]any) {
		cmdutil.SetStoredToken(settings, host, token)
		settings[cmdutil.HostSetting] = host
	})
	if err != nil {
		return err
	}
	opts.IO.Success("Logged in to %s as %s", host, text.Safe(user.Username))
	if cfg.DefaultHost != host {
		back := ""
		if cfg.DefaultHost != "" {
			back = fmt.Sprintf(" ('pact auth switch %s' goes back)", cfg.DefaultHost)
		}
		opts.IO.Info("The default host is now %s%s%s", host, wasDefault(cfg.DefaultHost), back)
	}
	if cfg.TokenSource == "PACT_TOKEN" {
		opts.IO.Info("PACT_TOKEN is set in the environment and is sent instead of the stored token")
	}
	return nil
}

// loginThroughBrowser logs in as RFC 8628 describes (docs/protocol.md,
// Logging in through the browser): it shows the code and the page that
// approves it, and answers the token once the user has approved.
func loginThroughBrowser(ctx context.Context, opts *loginOptions, host string) (string, error) {
	c, err := opts.Factory.NewClient(host, "")
	if err != nil {
		return "", err
	}
	login, err := c.StartDeviceLogin(ctx, deviceTokenName(), opts.Scopes...)
	if err != nil {
		return "", err
	}
	// The registry's words, shown through text.Safe as all it sends.
	opts.IO.Info("To log in to %s, open this page in a browser where you are logged in to it:", cmdutil.HostKey(c.BaseURL()))
	opts.IO.Info("\n  %s\n", login.VerificationURIComplete)
	opts.IO.Info("and check that it shows the code %s; then approve. The code lasts %d minutes.", login.UserCode, login.ExpiresIn/60)
	opts.IO.Info("Waiting for the approval (Ctrl-C gives up)…")
	// The user's turn: approving takes what it takes, up to the code's
	// expiry, and is not the registry's time (--timeout).
	restart := opts.IO.UserTurn()
	tok, err := c.WaitDeviceLogin(ctx, login)
	restart()
	var apiErr *client.APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.Code == wire.DeviceAccessDenied:
		return "", &cmdutil.WrappedError{Msg: "the login was denied in the browser; nothing was stored", Err: err}
	case errors.As(err, &apiErr) && apiErr.Code == wire.DeviceExpiredToken:
		return "", &cmdutil.WrappedError{Msg: "the code expired before the login was approved; run 'pact login' again", Err: err}
	case err != nil:
		return "", err
	}
	return tok.Token, nil
}

// deviceTokenName names the token a login through the browser asks for:
// "pact login on HOSTNAME", which the user may change when approving.
func deviceTokenName() string {
	name, err := os.Hostname()
	if err != nil || name == "" {
		return "pact login"
	}
	if len(name) > 60 {
		name = name[:60]
	}
	return "pact login on " + strings.ToValidUTF8(name, "")
}
