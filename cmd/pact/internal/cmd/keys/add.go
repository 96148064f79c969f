package keys

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/pkg/client"
)

type keysAddOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Path string
	Name string
	JSON bool
}

func newKeysAddCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &keysAddOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "add [PUBLIC-KEY-FILE]",
		Short: "Register an SSH public key",
		Long: `Register an SSH public key (an authorized_keys line, as in a .pub file) for
signed publishing. The default file is ~/.ssh/id_ed25519.pub. "-" reads
the key from standard input. The key's name is its comment unless --name
gives one.`,
		Example: `  $ pact keys add
  $ pact keys add ~/.ssh/id_rsa.pub --name laptop
  $ ssh-add -L | head -1 | pact keys add -`,
		Args: cmdutil.UsageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = "~/.ssh/id_ed25519.pub"
			if len(args) == 1 {
				opts.Path = args[0]
			}
			return runKeysAdd(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "", "label of the key (default: its comment)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runKeysAdd(ctx context.Context, opts *keysAddOptions) error {
	path := cmdutil.ExpandHome(opts.Path)
	data, err := shared.ReadDocument(opts.IO, path)
	if err != nil {
		return err
	}
	// Never send anything but a public key: a private key given by mistake
	// must not leave the machine.
	if _, _, _, _, err := ssh.ParseAuthorizedKey(data); err != nil {
		hint := ""
		if strings.Contains(string(data), "PRIVATE KEY") {
			hint = "; it looks like a private key: give the .pub file"
		}
		return fmt.Errorf("%s is not an SSH public key line%s", path, hint)
	}
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(string(data)), "\n", 2)[0])

	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	key, err := c.AddKey(ctx, line, opts.Name)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, key)
	}
	if err := printKeys(opts.IO.Out, []client.Key{*key}); err != nil {
		return err
	}
	opts.IO.Success("Added key %s; sign publishes with 'pact publish --sign'", key.Fingerprint)
	return nil
}
