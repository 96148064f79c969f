package main

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

type loginOptions struct {
	IO      *iostreams
	Factory *factory

	Token      string
	TokenStdin bool
}

func newLoginCmd(f *factory) *cobra.Command {
	opts := &loginOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Store an API token for the registry",
		Long: `Check an API token against the registry and store it for that registry in
$XDG_CONFIG_HOME/pact/config.yaml (mode 0600). The registry becomes the
default host, used when no --host or PACT_HOST names one.

Tokens are stored per registry, so you can be logged in to several at once
(log in with --host to each). A stored token is only ever sent to the
registry it was stored for: 'pact --host OTHER ...' sends none, unless you
give one with --token or PACT_TOKEN. 'pact auth status' lists them.

Make a token in the registry's dashboard, with 'pact token create' while
logged in with a token that has the tokens scope, or on the server with
'pactd token create'. Pass it on standard input with --token-stdin
(best: it stays out of your shell history), with --token, or paste it
when asked on a terminal.`,
		Example: `  $ pact login --token-stdin < token.txt
  $ pact login --host https://pact.example.com
  $ echo "$PACT_TOKEN" | pact login --token-stdin`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLogin(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Token, "token", "", "the API token to store")
	cmd.Flags().BoolVar(&opts.TokenStdin, "token-stdin", false, "read the API token from standard input")
	return cmd
}

func runLogin(ctx context.Context, opts *loginOptions) error {
	token := strings.TrimSpace(opts.Token)
	switch {
	case opts.Token != "" && opts.TokenStdin:
		return usageErrorf("use either --token or --token-stdin, not both")
	case opts.TokenStdin:
		data, err := io.ReadAll(io.LimitReader(opts.IO.In, 64<<10))
		if err != nil {
			return err
		}
		token = strings.TrimSpace(string(data))
		if token == "" {
			return usageErrorf("--token-stdin: standard input held no token")
		}
	case token == "":
		var err error
		token, err = opts.IO.promptSecret("Paste your API token: ",
			usageErrorf("no token given: pass it with --token-stdin or --token"))
		if err != nil {
			return err
		}
		token = strings.TrimSpace(token)
		if token == "" {
			return errors.New("no token entered")
		}
	}

	cfg, err := opts.Factory.Config()
	if err != nil {
		return err
	}
	c, err := opts.Factory.newClient(cfg.Host, token)
	if err != nil {
		return err
	}
	user, err := c.Me(ctx)
	if err != nil {
		return err
	}
	host := hostKey(c.BaseURL())
	err = updateConfigFile(cfg.Path, func(settings map[string]any) {
		setStoredToken(settings, host, token)
		settings[hostSetting] = host
	})
	if err != nil {
		return err
	}
	opts.IO.success("Logged in to %s as %s", host, safeText(user.Username))
	if cfg.TokenSource == "PACT_TOKEN" {
		opts.IO.info("PACT_TOKEN is set in the environment and is sent instead of the stored token")
	}
	return nil
}
