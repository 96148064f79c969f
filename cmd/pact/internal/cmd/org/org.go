package org

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pact-registry/pact/cmd/pact/internal/cmd/shared"
	"github.com/pact-registry/pact/cmd/pact/internal/cmdutil"
	"github.com/pact-registry/pact/cmd/pact/internal/iostreams"
	"github.com/pact-registry/pact/cmd/pact/internal/text"
	"github.com/pact-registry/pact/pkg/client"
)

// pact org: organisations (docs/protocol.md, Organisations).

type orgOptions struct {
	IO          *iostreams.IOStreams
	Factory     *cmdutil.Factory
	Org         string
	User        string
	Role        string
	DisplayName string
	JSON        bool
}

func NewOrgCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "org <command>",
		Short: "Create organisations and manage their members",
		Long: `An organisation is a namespace, shared with usernames, that several
accounts publish into: 'pact publish --owner ORG'. Owners manage members,
trusted publishers ('pact trust add --owner ORG') and deprecations;
maintainers publish and yank. An organisation always keeps an owner.
Every member change is in the transparency log: 'pact log watch --owner
ORG' shows who gained or lost the right to publish.

create, add and remove need a token with the tokens scope and no pack
limit (an owner acts on every pack of the organisation); list needs any
token; show and members need none. Removing or demoting an owner removes the trusted
publishers it added for the organisation and revokes the tokens exchanged
through them.`,
		Example: `  $ pact org create acme --display-name "Acme Corp"
  $ pact org list
  $ pact org add acme bob --role maintainer
  $ pact org members acme
  $ pact org remove acme bob`,
		Args: cmdutil.NoSubcommandArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newOrgCreateCmd(f), newOrgListCmd(f), newOrgShowCmd(f, "show", "Show an organisation"), newOrgShowCmd(f, "members", "List an organisation's members"),
		newOrgAddCmd(f), newOrgRemoveCmd(f))
	return cmd
}

func newOrgCreateCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &orgOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create an organisation, with you as its owner",
		Long: `Create the organisation NAME (the rules of usernames; a name taken by a
user or an organisation is refused), with you as its first owner.`,
		Example: `  $ pact org create acme --display-name "Acme Corp"`,
		Args:    cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Org = args[0]
			c, err := opts.Factory.Client()
			if err != nil {
				return err
			}
			o, err := c.CreateOrg(cmd.Context(), opts.Org, opts.DisplayName)
			if err != nil {
				return err
			}
			if opts.JSON {
				return cmdutil.ExportJSON(opts.IO.Out, o)
			}
			opts.IO.Success("Created organisation %s; you are its owner", text.Safe(o.Name))
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.DisplayName, "display-name", "", "the organisation's display name")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func newOrgListCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &orgOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the organisations you are a member of",
		Long: `List the organisations the token's account is a member of, by name: your
role in each and when you were added. Any token will do.`,
		Example: `  $ pact org list
  $ pact org list --json`,
		Args: cmdutil.UsageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := opts.Factory.Client()
			if err != nil {
				return err
			}
			orgs, err := c.MyOrgs(cmd.Context())
			if err != nil {
				return err
			}
			if opts.JSON {
				return cmdutil.ExportJSON(opts.IO.Out, orgs)
			}
			if len(orgs) == 0 {
				opts.IO.Info("You are a member of no organisation: 'pact org create NAME' makes one")
				return nil
			}
			t := cmdutil.NewTable(opts.IO.Out)
			fmt.Fprintln(t, "ORG\tROLE\tADDED")
			for _, o := range orgs {
				cmdutil.WriteRow(t, o.Name, o.Role, text.FormatTime(o.AddedAt))
			}
			return t.Flush()
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func newOrgShowCmd(f *cmdutil.Factory, use, short string) *cobra.Command {
	opts := &orgOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:     use + " ORG",
		Short:   short,
		Long:    short + `: each member's username, role and when it was added, owners first.`,
		Example: `  $ pact org ` + use + ` acme`,
		Args:    cmdutil.UsageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Org = args[0]
			return runOrgShow(cmd.Context(), opts, use == "members")
		},
	}
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func runOrgShow(ctx context.Context, opts *orgOptions, membersOnly bool) error {
	c, err := opts.Factory.Client()
	if err != nil {
		return err
	}
	o, err := c.Org(ctx, opts.Org)
	if err != nil {
		return err
	}
	if opts.JSON {
		if membersOnly {
			return cmdutil.ExportJSON(opts.IO.Out, o.Members)
		}
		return cmdutil.ExportJSON(opts.IO.Out, o)
	}
	if !membersOnly {
		title := text.Safe(o.Name)
		if o.DisplayName != "" {
			title += " (" + text.Safe(o.DisplayName) + ")"
		}
		fmt.Fprintf(opts.IO.Out, "%s\n%s  %s\n\n", title, text.Plural(o.Packages, "package", "packages"), text.Safe(o.URL))
	}
	return printMembers(opts, o.Members)
}

func printMembers(opts *orgOptions, members []client.Member) error {
	t := cmdutil.NewTable(opts.IO.Out)
	fmt.Fprintln(t, "USERNAME\tROLE\tADDED")
	for _, m := range members {
		cmdutil.WriteRow(t, m.Username, m.Role, text.FormatTime(m.AddedAt))
	}
	return t.Flush()
}

func newOrgAddCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &orgOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "add ORG USERNAME [--role maintainer|owner]",
		Short: "Add a member, or change its role",
		Long: `Give USERNAME the role --role (default maintainer) in ORG, adding it
when it is not a member. Only owners may. Demoting the last owner is
refused. Demoting an owner removes the trusted publishers it added for
ORG and revokes the tokens exchanged through them; both are listed.`,
		Example: `  $ pact org add acme bob
  $ pact org add acme carol --role owner`,
		Args: cmdutil.UsageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Org, opts.User = args[0], args[1]
			c, err := opts.Factory.Client()
			if err != nil {
				return err
			}
			ch, err := c.SetOrgMember(cmd.Context(), opts.Org, opts.User, opts.Role)
			if err != nil {
				return err
			}
			m := &ch.Member
			if opts.JSON {
				return cmdutil.ExportJSON(opts.IO.Out, m)
			}
			opts.IO.Success("%s is a %s of %s", text.Safe(m.Username), text.Safe(m.Role), text.Safe(opts.Org))
			printRevokedGrants(opts.IO, opts.User, ch.RemovedTrustedPublishers, ch.RevokedTokens)
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Role, "role", "maintainer", "maintainer (publish and yank) or owner (also members, trusted publishers, deprecations)")
	cmdutil.AddJSONFlag(cmd, &opts.JSON)
	return cmd
}

func newOrgRemoveCmd(f *cmdutil.Factory) *cobra.Command {
	opts := &orgOptions{IO: f.IO, Factory: f}
	return &cobra.Command{
		Use:     "remove ORG USERNAME",
		Aliases: []string{"rm"},
		Short:   "Remove a member",
		Long: `Remove USERNAME from ORG: its publishing into ORG stops at once. Only
owners may; removing the last owner is refused. The trusted publishers
USERNAME added for ORG are removed and the tokens exchanged through them
revoked; both are listed.`,
		Example: `  $ pact org remove acme bob`,
		Args:    cmdutil.UsageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Org, opts.User = args[0], args[1]
			c, err := opts.Factory.Client()
			if err != nil {
				return err
			}
			gone, err := c.RemoveOrgMember(cmd.Context(), opts.Org, opts.User)
			if err != nil {
				return err
			}
			opts.IO.Success("Removed %s from %s", text.Safe(opts.User), text.Safe(opts.Org))
			printRevokedGrants(opts.IO, opts.User, gone.RemovedTrustedPublishers, gone.RevokedTokens)
			return nil
		},
	}
}

// printRevokedGrants says what a member's removal or demotion took away
// with its owner role.
func printRevokedGrants(streams *iostreams.IOStreams, member string, removed []client.TrustedPublisher, tokens []int64) {
	for _, p := range removed {
		streams.Info("Removed trusted publisher %d, which %s added: %s may publish %s", p.ID, member, shared.DescribeClaims(p.Claims), strings.Join(p.Packages, ", "))
	}
	if len(tokens) > 0 {
		ids := make([]string, len(tokens))
		for i, id := range tokens {
			ids[i] = strconv.FormatInt(id, 10)
		}
		streams.Info("Revoked the tokens exchanged through them: %s", strings.Join(ids, ", "))
	}
}
