package hook

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

// pact hook: webhooks (docs/protocol.md, Webhooks).

type hookOptions struct {
	IO          *iostreams.IOStreams
	Factory     *cmdutil.Factory
	Owner       string
	Package     string
	URL         string
	Events      []string
	SecretStdin bool
	ID          int64
	Delivery    int64
	JSON        bool
}

// allHookEvents and packageHookEvents are the events a hook gets when
// --event is not given: every one, or those of one package.
var (
	allHookEvents     = []string{"publish", "yank", "unyank", "deprecate", "key", "member", "release"}
	packageHookEvents = []string{"publish", "yank", "unyank", "deprecate", "release"}
)

func NewHookCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook <command>",
		Short: "Send the events of your packs to a URL (webhooks)",
		Long: `A webhook POSTs each event it asks for (publish, yank, unyank, deprecate,
key, member, release) of an owner's packs, or of one pack, to a URL of
yours, as JSON signed with the hook's secret in Pact-Signature
(t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">). The body holds the
log entry and its inclusion proof, so a receiver can check the event
against the transparency log without trusting the channel. Deliveries
are retried with backoff for 24 hours; a hook that fails for 3 days is
disabled.

Every command needs a token with the hooks scope; an organisation's
hooks are managed by its owners (--owner ORG).`,
		Example: `  $ pact hook add https://ci.example.com/pact-hook --event publish --event yank
  $ pact hook add https://ci.example.com/widget --owner acme --package widget
  $ pact hook list --owner acme
  $ pact hook deliveries 3
  $ pact hook remove 3`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHookAddCmd(f), newHookListCmd(f), newHookRemoveCmd(f), newHookDeliveriesCmd(f), newHookRedeliverCmd(f))
	return cmd
}

func newHookAddCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &hookOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "add URL",
		Short: "Add a webhook",
		Long: `Add a hook that POSTs events to URL (http or https). --owner is an
organisation you own (default: your account), --package one of its packs
(default: all of them). --event is repeatable (default: every event; for a
package, those of one pack: publish, yank, unyank, deprecate, release).

The secret signs every delivery: with --secret-stdin it is read from
standard input (16 to 256 printable characters); otherwise one is made and
printed alone on standard output, this once. A URL on a loopback, private
or link-local address is refused unless the registry allows it.`,
		Example: `  $ pact hook add https://ci.example.com/pact-hook --event publish
  $ pact hook add https://ci.example.com/widget --owner acme --package widget
  $ pass show pact-hook | pact hook add https://ci.example.com/x --secret-stdin`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.URL = args[0]
			return runHookAdd(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Owner, "owner", "", "an organisation you own (default: your account)")
	cmd.Flags().StringVar(&opts.Package, "package", "", "one pack of the owner (default: all of them)")
	cmd.Flags().StringArrayVar(&opts.Events, "event", nil, "an event: publish, yank, unyank, deprecate, key, member or release (repeatable; default: every event)")
	cmd.Flags().BoolVar(&opts.SecretStdin, "secret-stdin", false, "read the secret from standard input instead of making one")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runHookAdd(ctx context.Context, opts *hookOptions) error {
	secret, made := "", false
	if opts.SecretStdin {
		line, err := bufio.NewReader(opts.IO.In).ReadString('\n')
		if err != nil && line == "" {
			return cmdutil.UsageErrorf("--secret-stdin: standard input holds no secret")
		}
		secret = strings.TrimRight(line, "\r\n")
	} else {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		secret, made = hex.EncodeToString(b), true
	}
	events := opts.Events
	if len(events) == 0 {
		events = allHookEvents
		if opts.Package != "" {
			events = packageHookEvents
		}
	}
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	h, err := c.AddHook(ctx, client.HookSpec{Owner: opts.Owner, Package: opts.Package, URL: opts.URL, Secret: secret, Events: events})
	if err != nil {
		return err
	}
	if opts.JSON {
		return cmdutil.ExportJSON(opts.IO.Out, h)
	}
	opts.IO.Success("Added hook %d: %s of %s to %s", h.ID, strings.Join(h.Events, ", "), hookScope(h), h.URL)
	if made {
		opts.IO.Info("Its secret, shown only now, is on standard output")
		fmt.Fprintln(opts.IO.Out, secret)
	}
	return nil
}

// hookScope names what a hook is told of: owner or owner/pack.
func hookScope(h *client.Hook) string {
	if h.Package == "" {
		return h.Owner + " (every pack)"
	}
	return h.Owner + "/" + h.Package
}

func newHookListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &hookOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List webhooks",
		Long: `List the hooks of your account, or of --owner, an organisation you own:
what each is told of, its URL and its state (ok, failing since a time, or
disabled, with why). Secrets are never shown.`,
		Example: `  $ pact hook list
  $ pact hook list --owner acme --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := opts.Factory.Client()
			if err != nil {
				return err
			}
			hooks, err := c.Hooks(cmd.Context(), opts.Owner)
			if err != nil {
				return err
			}
			if opts.JSON {
				return cmdutil.ExportJSON(opts.IO.Out, hooks)
			}
			if len(hooks) == 0 {
				opts.IO.Info("No hooks")
				return nil
			}
			t := cmdutil.NewTable(opts.IO.Out)
			fmt.Fprintln(t, "ID\tOF\tEVENTS\tURL\tSTATE")
			for i := range hooks {
				h := &hooks[i]
				cmdutil.WriteRow(t, strconv.FormatInt(h.ID, 10), hookScope(h), strings.Join(h.Events, ","), h.URL, hookState(h))
			}
			return t.Flush()
		},
	}
	cmd.Flags().StringVar(&opts.Owner, "owner", "", "an organisation you own (default: your account)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func hookState(h *client.Hook) string {
	switch {
	case h.DisabledAt != nil:
		return "disabled: " + h.DisabledNote
	case h.FailingSince != nil:
		return "failing since " + text.FormatTime(*h.FailingSince)
	}
	return "ok"
}

// hookArgs is the prologue of the commands on one hook: its ID and, for
// redeliver, the DELIVERY, parsed in that order, and the client.
func hookArgs(f *cmdutil.Factory, args []string) (*client.Client, []int64, error) {
	names := []string{"ID", "DELIVERY"}
	ids := make([]int64, len(args))
	for i, arg := range args {
		id, err := hookIDArg(arg, names[i])
		if err != nil {
			return nil, nil, err
		}
		ids[i] = id
	}
	c, err := f.Client()
	return c, ids, err
}

func hookIDArg(arg, what string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, cmdutil.UsageErrorf("%s must be a number, as 'pact hook list' shows; got %q", what, arg)
	}
	return id, nil
}

func newHookRemoveCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &hookOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:     "remove ID",
		Aliases: []string{"rm"},
		Short:   "Remove a webhook",
		Long:    `Remove hook ID and its deliveries, pending ones included.`,
		Example: `  $ pact hook remove 3`,
		Args:    cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ids, err := hookArgs(opts.Factory, args)
			if err != nil {
				return err
			}
			id := ids[0]
			if err := c.RemoveHook(cmd.Context(), id); err != nil {
				return err
			}
			opts.IO.Success("Removed hook %d", id)
			return nil
		},
	}
}

func newHookDeliveriesCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &hookOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "deliveries ID",
		Short: "Show a webhook's last 50 deliveries",
		Long: `Show hook ID's newest 50 deliveries, newest first: the event, its state
(pending, delivered, failed), the attempts, and the last attempt's time,
HTTP status, duration and error.`,
		Example: `  $ pact hook deliveries 3
  $ pact hook deliveries 3 --json`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ids, err := hookArgs(opts.Factory, args)
			if err != nil {
				return err
			}
			id := ids[0]
			h, list, err := c.HookDeliveries(cmd.Context(), id)
			if err != nil {
				return err
			}
			if opts.JSON {
				return cmdutil.ExportJSON(opts.IO.Out, list)
			}
			if h.DisabledAt != nil {
				opts.IO.Info("Hook %d is disabled: %s", h.ID, h.DisabledNote)
			}
			if len(list) == 0 {
				opts.IO.Info("No deliveries yet")
				return nil
			}
			t := cmdutil.NewTable(opts.IO.Out)
			fmt.Fprintln(t, "ID\tEVENT\tOF\tSTATE\tATTEMPTS\tTIME\tSTATUS\tDURATION\tERROR")
			for _, d := range list {
				of := d.Owner
				if d.Package != "" {
					of += "/" + d.Package
				}
				if d.Version != "" {
					of += "@" + d.Version
				}
				when, status, took := "-", "-", "-"
				if d.Time != nil {
					when, took = text.FormatTime(*d.Time), fmt.Sprintf("%dms", d.DurationMS)
					if d.Status != 0 {
						status = strconv.Itoa(d.Status)
					}
				}
				cmdutil.WriteRow(t, strconv.FormatInt(d.ID, 10), d.Event, of, d.State, strconv.Itoa(d.Attempts), when, status, took, d.Error)
			}
			return t.Flush()
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func newHookRedeliverCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &hookOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:     "redeliver ID DELIVERY",
		Short:   "Send a webhook delivery again",
		Long:    `Queue delivery DELIVERY of hook ID again: it is sent at once, with the same Pact-Delivery id, and retried for 24 hours.`,
		Example: `  $ pact hook redeliver 3 41`,
		Args:    cmdutil.UsageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ids, err := hookArgs(opts.Factory, args)
			if err != nil {
				return err
			}
			id, delivery := ids[0], ids[1]
			if _, err := c.Redeliver(cmd.Context(), id, delivery); err != nil {
				return err
			}
			opts.IO.Success("Delivery %d of hook %d is queued again", delivery, id)
			return nil
		},
	}
}
