package keys

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

type keysRemoveOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	// ID or Fingerprint names the key; the other is zero.
	ID          int64
	Fingerprint string
	Yes         bool
}

func newKeysRemoveCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &keysRemoveOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "remove ID|FINGERPRINT",
		Aliases: []string{"rm", "delete"},
		Short:   "Remove one of your SSH keys",
		Long: `Remove a registered SSH key by the ID or the fingerprint (SHA256:...) that
'pact keys list' shows. Versions it signed stay published, with their
signatures.

On a terminal pact asks before removing; declining prints "cancelled" and
exits 1. --yes does not ask. Without a terminal (in scripts) --yes is
required.`,
		Example: `  $ pact keys remove 3
  $ pact keys remove SHA256:uO8p1kXc1mBqP3G7o0xF0Y0nKq1b4z5rW2m9n8v7c6E --yes`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.HasPrefix(args[0], "SHA256:") {
				opts.Fingerprint = args[0]
			} else {
				id, err := strconv.ParseInt(args[0], 10, 64)
				if err != nil || id < 1 {
					return cmdutil.UsageErrorf("%q is not a key ID or fingerprint (SHA256:...): 'pact keys list' shows them", args[0])
				}
				opts.ID = id
			}
			return runKeysRemove(cmd.Context(), opts)
		},
	}
	cmdutil.AddYesFlag(cmd, &opts.Yes)
	return cmd
}

func runKeysRemove(ctx context.Context, opts *keysRemoveOptions) error {
	if err := cmdutil.CanConfirm(opts.IO, opts.Yes, "removing a key"); err != nil {
		return err
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	// The key is looked up when it is named by fingerprint, or to say on
	// the terminal which key is about to go.
	var key *client.Key
	if opts.Fingerprint != "" || !opts.Yes {
		keys, err := c.ListKeys(ctx)
		if err != nil {
			return err
		}
		for i := range keys {
			if keys[i].ID == opts.ID || (opts.Fingerprint != "" && keys[i].Fingerprint == opts.Fingerprint) {
				key = &keys[i]
				break
			}
		}
		if key == nil {
			name := opts.Fingerprint
			if name == "" {
				name = strconv.FormatInt(opts.ID, 10)
			}
			return &client.APIError{StatusCode: 404, Message: fmt.Sprintf("you have no SSH key %s: 'pact keys list' shows yours", name)}
		}
		opts.ID = key.ID
	}
	if !opts.Yes {
		ok, err := cmdutil.Confirmed(opts.IO, fmt.Sprintf("Remove SSH key %d %q (%s)? It can no longer sign publishes.", key.ID, key.Name, key.Fingerprint), "removing a key")
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Cancelled(opts.IO)
		}
	}
	if err := c.DeleteKey(ctx, opts.ID); err != nil {
		return err
	}
	if key != nil {
		opts.IO.Success("Removed key %d (%s)", key.ID, key.Fingerprint)
	} else {
		opts.IO.Success("Removed key %d", opts.ID)
	}
	return nil
}
