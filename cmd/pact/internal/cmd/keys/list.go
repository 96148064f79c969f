package keys

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

type keysListOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	JSON    bool
}

func newKeysListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &keysListOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List your registered SSH keys",
		Example: `  $ pact keys list
  $ pact keys list --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runKeysList(cmd.Context(), opts)
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runKeysList(ctx context.Context, opts *keysListOptions) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	keys, err := c.ListKeys(ctx)
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, keys)
	}
	if len(keys) == 0 {
		opts.IO.Info("No SSH keys registered; add one with 'pact keys add'")
		return nil
	}
	return printKeys(opts.IO.Out, keys)
}

// printKeys prints keys as a table for people.
func printKeys(w io.Writer, keys []client.Key) error {
	t := cmdutil.NewTable(w)
	fmt.Fprintln(t, "ID\tNAME\tTYPE\tFINGERPRINT\tADDED\tLAST USED")
	for _, k := range keys {
		lastUsed := "never"
		if k.LastUsedAt != nil {
			lastUsed = text.FormatTime(*k.LastUsedAt)
		}
		cmdutil.WriteRow(t, strconv.FormatInt(k.ID, 10), text.OrDash(k.Name), k.Type, k.Fingerprint, text.FormatTime(k.CreatedAt), lastUsed)
	}
	return t.Flush()
}
